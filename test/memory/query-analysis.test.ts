/** What query analysis reads from a question's wording, in English and Chinese, and the rule tables themselves. */
import { describe, expect, test } from "bun:test";
import { analyseQuery, type Finding, QUERY_RULES } from "../../src/memory/query-analysis.ts";

/** The findings of `text` that are true, in a stable order. */
const found = (text: string, rulesOff?: string[]) => {
  const a = analyseQuery(text, rulesOff);
  return (Object.keys(a) as (keyof typeof a)[]).filter((k) => a[k] === true).sort() as Finding[];
};
/** `text` without its framing words, spaces collapsed. */
const unframed = (text: string) => analyseQuery(text).unframed.replace(/\s+/g, " ").trim();

describe("English", () => {
  test("a quantity, a measure, the time between two things", () => {
    expect(found("How many babies were born to friends?")).toEqual(["asksQuantity", "isQuestion"]);
    expect(found("How many hours have I spent playing games?")).toEqual([
      "asksMeasure",
      "asksQuantity",
      "firstPerson",
      "isQuestion",
    ]);
    expect(found("How many days before Christmas did I go to the market?")).toEqual([
      "asksMeasure",
      "asksQuantity",
      "asksTimeBetween",
      "firstPerson",
      "isQuestion",
    ]);
  });

  test("the assistant addressed, its words asked for, a request for advice that only frames", () => {
    expect(found("What did you tell me about naming my puppy?")).toEqual([
      "addressesAssistant",
      "asksWhatAssistantSaid",
      "firstPerson",
      "isQuestion",
    ]);
    expect(found("Can you suggest a name for my new puppy?")).toEqual(["asksAdvice", "firstPerson", "isQuestion"]);
    expect(found("Continue the story.")).toEqual([]);
  });

  test("the present state", () => {
    expect(found("What exercise do I do these days?")).toContain("asksPresentState");
    expect(found("What was my current job?")).not.toContain("asksPresentState");
  });

  test("framing words leave the question; what it is about stays", () => {
    expect(unframed("What exercise do I do these days?")).toBe("What exercise do I do ?");
    expect(unframed("We discussed jobs for seniors earlier, what was the 7th one?")).toBe(
      "We discussed jobs for seniors , what was the 7th one?",
    );
    expect(unframed("Can you suggest some things to do on my commute? Any tips?")).toBe(
      "some things to do on my commute? ?",
    );
    expect(unframed("I've been thinking about a cocktail, but I'm not sure which one to choose.")).toBe(
      "a cocktail, but .",
    );
    expect(unframed("How many different types of cheese have I tried?")).toBe("cheese have I tried?");
    expect(unframed("Which book did Tom recommend?")).toBe("Which book did Tom recommend?");
  });

  test("what says the question is about something said before frames it: 'I mentioned', 'we talked about'", () => {
    expect(unframed("I mentioned cooking something for my friend a couple of days ago. What was it?")).toBe(
      "cooking something for my friend a couple of days ago. What was it?",
    );
    expect(unframed("What was the book we talked about?")).toBe("What was the book ?");
    expect(unframed("I remember I've told you about my bike. What colour is it?")).toBe(
      "about my bike. What colour is it?",
    );
    // What the assistant said is what is asked: its words stay, and say so.
    expect(unframed("What did you say about my bike?")).toBe("What did you say about my bike?");
    expect(found("What did you say about my bike?")).toContain("asksWhatAssistantSaid");
  });

  test("a rule turned off finds nothing and frames nothing", () => {
    expect(found("How many babies were born?", ["en.quantity"])).toEqual(["isQuestion"]);
    expect(found("Can you suggest a hotel?", ["en.advice-request"])).toEqual(["addressesAssistant", "isQuestion"]);
    expect(analyseQuery("What do I do these days?", ["en.present-phrase"]).unframed).toBe("What do I do these days?");
  });
});

describe("Chinese", () => {
  test("a quantity, a measure, the time between two things", () => {
    expect(found("朋友们一共生了几个宝宝？")).toEqual(["asksMeasure", "asksQuantity", "isQuestion"]);
    expect(found("我玩游戏花了多少个小时？")).toEqual(["asksMeasure", "asksQuantity", "firstPerson", "isQuestion"]);
    expect(found("我的狗多大了？")).toContain("asksMeasure");
    expect(found("我养了几只猫？")).not.toContain("asksMeasure");
    expect(found("买iPhone之后多少天我去了集市？")).toContain("asksTimeBetween");
    expect(found("我多久以前换的工作？")).toEqual([
      "asksMeasure",
      "asksQuantity",
      "asksTimeBetween",
      "firstPerson",
      "isQuestion",
    ]);
    // 很多大学 is "many universities", not 多大 "how old".
    expect(found("我去过很多大学。")).toEqual(["firstPerson"]);
  });

  test("the assistant addressed, its words asked for; a request for advice only frames", () => {
    expect(found("你之前给我列的清单里第七个是什么？")).toEqual([
      "addressesAssistant",
      "asksWhatAssistantSaid",
      "firstPerson",
      "isQuestion",
    ]);
    expect(found("你觉得我应该养猫吗？")).toEqual(["addressesAssistant", "firstPerson", "isQuestion"]);
    expect(found("你推荐什么书？")).toEqual(["asksAdvice", "isQuestion"]);
    expect(found("继续讲这个故事。")).toEqual([]);
  });

  test("framing words leave the question; what it is about stays", () => {
    expect(unframed("我这段时间在做什么运动？")).toBe("我 在做什么运动？");
    expect(found("我这段时间在做什么运动？")).toContain("asksPresentState");
    expect(unframed("到目前为止我去过哪些国家？")).toBe("我去过哪些国家？");
    expect(unframed("我们之前聊过的那本书叫什么？")).toBe("的那本书叫什么？");
    expect(unframed("三天以前我买了什么？")).toBe("三天以前我买了什么？");
    expect(unframed("我在考虑办一个派对，但不知道选哪个鸡尾酒好。")).toBe("办一个派对，但 鸡尾酒好。");
    expect(unframed("小美在考虑什么？")).toBe("小美在考虑什么？");
    expect(unframed("我尝过几种不同的奶酪？")).toBe("我尝过 奶酪？");
    expect(unframed("我养了几只猫？")).toBe("我养了 猫？");
    expect(unframed("我一共去了几次健身房？")).toBe("我一共去了 次健身房？");
    expect(unframed("我花了多少钱？")).toBe("我花了 钱？");
  });

  test("你能推荐 / 你可以建议 / 有什么建议 ask for advice: the words leave, and their 你 does not address the assistant", () => {
    expect(found("你能推荐一家适合带孩子去的餐厅吗？")).not.toContain("addressesAssistant");
    expect(unframed("你能推荐一家适合带孩子去的餐厅吗？")).toBe("一家适合带孩子去的餐厅吗？");
    expect(unframed("你可以建议我怎么安排周末吗？")).toBe("我怎么安排周末吗？");
    expect(found("你可以给我推荐几本书吗？")).toEqual(["asksAdvice", "firstPerson", "isQuestion"]);
    expect(unframed("去杭州玩有什么建议？")).toBe("去杭州玩 ？");
    // What the assistant recommended is asked about, not asked for: it keeps its words.
    expect(found("你推荐过哪本书？")).toEqual(["addressesAssistant", "asksWhatAssistantSaid", "isQuestion"]);
    expect(unframed("你推荐过哪本书？")).toBe("你推荐过哪本书？");
    expect(unframed("汤姆推荐了哪本书？")).toBe("汤姆推荐了哪本书？");
  });

  test("我提到过, 我记得, 我们聊过 frame the question as en.recalling does; 你说过 and 我和小王聊过 stay", () => {
    expect(unframed("我提到过的那家餐厅叫什么？")).toBe("的那家餐厅叫什么？");
    expect(unframed("我记得我们上次聊到一本书，叫什么？")).toBe("一本书，叫什么？");
    expect(unframed("你说过的那本书叫什么？")).toBe("你说过的那本书叫什么？");
    expect(found("你说过的那本书叫什么？")).toContain("asksWhatAssistantSaid");
    expect(unframed("我和小王聊过什么？")).toBe("我和小王聊过什么？");
  });

  test("最近 alone frames the question like 'recently'; 最近的 (nearest, most recent) and a span (最近两个月) stay", () => {
    expect(unframed("我最近在读什么书？")).toBe("我 在读什么书？");
    expect(found("我最近在读什么书？")).toContain("asksPresentState");
    expect(unframed("离我家最近的超市是哪家？")).toBe("离我家最近的超市是哪家？");
    expect(unframed("我最近一次去北京是什么时候？")).toBe("我最近一次去北京是什么时候？");
    // time.ts reads the span and takes the phrase out itself when the time is known.
    expect(unframed("我最近两个月去了哪里？")).toBe("我最近两个月去了哪里？");
  });

  test("几 asks a quantity before a measure word (几个, 几天, 几次, 有几); 几乎, 几何, 前几天, 这几天, 好几 do not", () => {
    for (const q of ["我养了几只猫？", "我有几个表姐？", "我去了几次健身房？", "我们家有几口人？"])
      expect(found(q)).toContain("asksQuantity");
    expect(found("我去了几天海边？")).toContain("asksMeasure");
    for (const q of [
      "我几乎每天都跑步吗？",
      "我的几何课在星期几？",
      "我前几天买了什么？",
      "我这几天在忙什么？",
      "我去过好几次的那家店叫什么？",
    ])
      expect(found(q)).not.toContain("asksQuantity");
    expect(found("他几乎不吃肉。")).toEqual([]);
  });
});

describe("the tables", () => {
  test("names are unique and prefixed by their language; a framing pattern is global (every occurrence leaves)", () => {
    const names = QUERY_RULES.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    for (const r of QUERY_RULES) {
      expect(r.name).toMatch(/^(?:en|zh)\.[a-z-]+$/);
      if (r.does === "frame") expect(r.pattern.global).toBe(true);
      expect(r.means.length * r.why.length * r.measured.length).toBeGreaterThan(0);
    }
  });

  test("every English rule has a Chinese counterpart that finds the same or frames, and the other way round", () => {
    const byName = new Map(QUERY_RULES.map((r) => [r.name, r]));
    for (const r of QUERY_RULES) {
      if (typeof r.counterpart !== "string") {
        expect(r.counterpart.none.length).toBeGreaterThan(0);
        continue;
      }
      const other = byName.get(r.counterpart);
      expect(other?.does).toBe(r.does);
      expect(other?.counterpart).toBe(r.name);
      expect(r.counterpart.slice(0, 3)).not.toBe(r.name.slice(0, 3));
    }
  });
});
