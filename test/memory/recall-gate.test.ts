/**
 * The gate before the recall note (src/memory/cross-recall.ts, src/memory/coverage.ts): a note
 * quotes a turn only when the turn's own words say enough of what is asked. Told facts among
 * everyday turns, then questions from another conversation: in other words the fact is quoted;
 * about something never told, nothing is; an earlier asking, a reply that adds nothing ("ok,
 * noted.") and a reply that says it does not know are never quoted. In process, through the same
 * Memory and MemorySearch the daemon runs.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../harness/binary.ts";
import { memoryRig } from "../harness/memory-rig.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { crossRecallNote, EARLIER } from "../../src/memory/cross-recall.ts";
import { coverageOf, markSlot, questionWords } from "../../src/memory/coverage.ts";
import { onlyAsks } from "../../src/memory/past-askings.ts";

const EVERYDAY = {
  en: [
    "Can you help me plan meals for a busy week?",
    "The weather has been grey all week, I miss the sun.",
    "Write a polite reminder to my team about Friday's deadline.",
    "What's a good way to learn touch typing as an adult?",
    "I watched a film about deep sea divers last night.",
    "Our team shipped the new release today, finally.",
    "Give me three ideas for a rainy afternoon with friends.",
    "How do I remove a coffee stain from a white shirt?",
  ],
  zh: [
    "帮我想想这周的晚饭吃什么吧。",
    "这几天一直下雨，衣服都晒不干。",
    "帮我写一封请假邮件，语气正式一点。",
    "成年人学打字有什么好办法？",
    "昨晚看了一部关于深海潜水的纪录片。",
    "我们组今天终于把新版本发出去了。",
    "下雨天和朋友在家能玩点什么？",
    "白衬衫上的咖啡渍怎么洗掉？",
  ],
};

const CASES = [
  {
    lang: "en" as const,
    fact: "My bike is a green Batavus that I got secondhand.",
    asked: "What colour is my bicycle?",
    never: "What is my passport number?",
  },
  {
    lang: "zh" as const,
    fact: "我的电脑是一台戴尔笔记本，用了四年了。",
    asked: "我用的是什么计算机？",
    never: "我的护照号码是多少？",
  },
];

function rig(dir: string) {
  const { store, memory, search, say } = memoryRig(dir);
  const note = (conv: string, input: string) =>
    crossRecallNote(search, memory, {
      conv,
      turn: "asking",
      input,
      scope: { kind: "person", includeUntrusted: false },
      budgetTokens: 4096,
    })?.entry.message.content ?? null;
  return { store, say, note };
}

describe("the recall note's gate", () => {
  for (const c of CASES)
    test(`${c.lang}: a fact asked in other words is quoted; something never told gets no note; askings and empty replies are never quoted`, () => {
      using dir = tempDir();
      const { store, say, note } = rig(dir.path);
      say("home", c.fact, "ok, noted.");
      for (const [i, t] of EVERYDAY[c.lang].entries())
        say(`day-${i % 3}`, t, c.lang === "en" ? "Sure, here you go." : "好的，给你。");
      // Asked once before, answered with nothing of the model's own.
      say("before", c.asked, c.lang === "en" ? "I don't know." : "我不知道。");
      say("before-2", c.asked, c.lang === "en" ? "ok, noted." : "好的，记下了。");

      const quoted = note("new", c.asked);
      expect(quoted).toContain(c.fact);
      const lines = (quoted ?? "").split("\n").slice(1);
      // Only the fact: not the earlier askings, not "ok, noted.", not "I don't know".
      expect(lines).toHaveLength(1);

      expect(note("new-2", c.never)).toBeNull();
      expect(note("new-3", c.lang === "en" ? "hello" : "你好")).toBeNull();
      store.close();
    });

  test("of two turns on the same thing, the older is marked as earlier and the newer is not", () => {
    using dir = tempDir();
    const { store, say, note } = rig(dir.path);
    say("a", "I ride the 8:10 tram to work every morning.", "ok, noted.");
    for (const [i, t] of EVERYDAY.en.entries()) say(`day-${i % 3}`, t, "Sure, here you go.");
    say("b", "I gave up the tram, now I ride my bike to work.", "Got it.");
    const quoted = note("c", "What do I ride to work these days?") ?? "";
    const lines = quoted.split("\n");
    const older = lines.find((l) => l.includes("8:10 tram"));
    const newer = lines.find((l) => l.includes("ride my bike to work"));
    expect(older).toContain(EARLIER);
    expect(newer).toBeDefined();
    expect(newer).not.toContain(EARLIER);
    expect(lines.indexOf(older as string)).toBeLessThan(lines.indexOf(newer as string));
    store.close();
  });

  for (const c of [
    {
      lang: "en" as const,
      older: "We rent a flat on Calloway Street, third floor.",
      newer: "Big news: we moved out of the Calloway Street flat and bought a house in Elmwood.",
      unrelated: "Calloway Street has a great bakery on the corner.",
      asked: "Which flat do I rent?",
    },
    {
      lang: "zh" as const,
      older: "我们家现在租的房子在朝阳区望京。",
      newer: "我们搬家啦，从望京搬到了通州梨园，这回是自己买的。",
      unrelated: "望京那边的烤鸭店挺好吃的。",
      asked: "我租的房子在哪儿？",
    },
  ])
    test(`${c.lang}: a quoted fact brings the person's later word on it, though that shares no word of the question; a later turn that only shares words does not`, () => {
      using dir = tempDir();
      const { store, say, note } = rig(dir.path);
      say("a", c.older, "ok, noted.");
      for (const [i, t] of EVERYDAY[c.lang].entries()) say(`day-${i % 3}`, t, "ok");
      say("b", c.unrelated, "ok");
      say("c", c.newer, "ok");
      const lines = (note("d", c.asked) ?? "").split("\n");
      const older = lines.find((l) => l.includes(c.older));
      const newer = lines.find((l) => l.includes(c.newer));
      expect(older).toContain(EARLIER);
      expect(newer).toBeDefined();
      expect(newer).not.toContain(EARLIER);
      expect(lines.some((l) => l.includes(c.unrelated))).toBe(false);
      store.close();
    });

  test("a later turn that shares words with a quote but tells of no change does not mark it earlier", () => {
    using dir = tempDir();
    const { store, say, note } = rig(dir.path);
    say("a", "My dentist is Dr. Halvorsen on Birch Lane.", "ok, noted.");
    for (const [i, t] of EVERYDAY.en.entries()) say(`day-${i % 3}`, t, "ok");
    say("b", "Dr. Halvorsen on Birch Lane says my dentist visits should be twice a year.", "ok");
    const quoted = note("c", "Who is my dentist?") ?? "";
    expect(quoted).toContain("My dentist is Dr. Halvorsen");
    expect(quoted).not.toContain(EARLIER);
    store.close();
  });
  test("coverage: the question's words weigh by how rare they are; the answer's kind counts only when said", () => {
    const tk = new Tokenizer();
    const each = (t: string) =>
      tk.words(t).map((w) => ({ term: w.term, surface: w.surface, concepts: tk.concepts(w.surface) }));
    const q = (t: string) => questionWords(markSlot(t, each(t)));
    const idf = (term: string) => 3 * tk.commonness(term);
    // "instrument" names the kind of answer; the banjo is one (a concept bridge), so it counts.
    const instrument = q("What instrument do I play these days?");
    expect(instrument.find((w) => w.slot)?.surface).toBe("instrument");
    expect(coverageOf(instrument, idf, each("I play the banjo in a bluegrass band.")).share).toBeGreaterThan(0.55);
    expect(coverageOf(instrument, idf, each("I play tennis on Sundays.")).share).toBeLessThan(0.55);
    // A brand is seldom named as "brand": unsaid, it weighs a quarter.
    expect(coverageOf(q("What brand is my fridge?"), idf, each("Our fridge is a Bosch.")).share).toBeGreaterThan(0.55);
    // Half of a question is not enough: the sister is there, her birthday is not.
    expect(
      coverageOf(q("When is my sister's birthday?"), idf, each("My sister works as a nurse in Leeds.")).share,
    ).toBeLessThan(0.55);
    // 哪家, 几点: words that ask are not what a question is about.
    expect(q("我现在在哪家公司上班？").map((w) => w.term)).not.toContain("哪家");
  });

  test("a turn that only asks tells nothing; one that also tells does", () => {
    expect(onlyAsks("Which relative is coming to stay? And when?")).toBe(true);
    expect(onlyAsks("我的自行车是什么颜色的？")).toBe(true);
    expect(onlyAsks("I bought a scarf for my sister. Can you suggest how to wrap it?")).toBe(false);
    expect(onlyAsks("我买了条围巾给我姐，你觉得怎么包好看？")).toBe(true);
    expect(onlyAsks("我买了条围巾给我姐。你觉得怎么包好看？")).toBe(false);
  });
});
