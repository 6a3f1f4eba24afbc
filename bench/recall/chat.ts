/**
 * A generated set of two people chatting over many sessions, in English and in Chinese, the way
 * real chats are (and the generated personal-facts set in dataset.ts is not): short turns whose
 * meaning sits in their neighbours ("Yes! We went last Saturday." after "Did you ever try the
 * climbing gym?"), evidence spread over adjacent turns, dates said relatively, facts that
 * change, speakers' names in the questions and now and then in the turns, and the other person
 * talking about the same things (a brother who hated climbing). Questions are asked by a third
 * party ("When did Maya go climbing?"); evidence is every turn needed to answer, so a question
 * whose answer is spread over two turns needs both. Deterministic for a seed.
 *
 * Written before any tuning on it, as a regression set: it is not the hold-out, and its
 * templates are few, so a scorer can learn them; read its figures beside LongMemEval's.
 */
import type { RecallOp } from "../../src/protocol/recall.ts";

type Who = "A" | "B";
/** One turn of an exchange: who says it, the text, and whether it is evidence for the question. */
type Line = [Who, string, boolean?];

interface Exchange {
  /** B is the one the question is about. */
  lines: (a: string, b: string) => Line[];
  question: (a: string, b: string) => string;
  /** Said by the other person about the same topic elsewhere (no evidence). */
  distractor: Line[];
}

interface Change {
  first: (b: string) => Line[];
  later: (b: string) => Line[];
  question: (b: string) => string;
}

const EN: Exchange[] = [
  {
    lines: () => [
      ["A", "Did you ever try that climbing gym downtown?", true],
      ["B", "Yes! We went last Saturday.", true],
      ["A", "And??"],
      ["B", "Loved it, my arms are still sore though."],
    ],
    question: (_, b) => `When did ${b} go to the climbing gym?`,
    distractor: [["A", "My brother tried bouldering once and hated it."]],
  },
  {
    lines: () => [
      ["B", "Guess who has a new family member!"],
      ["A", "No way, a puppy?", true],
      ["B", "Yep, a little beagle. We called her Biscuit.", true],
      ["A", "Aww, send pics!"],
    ],
    question: (_, b) => `What is the name of ${b}'s dog?`,
    distractor: [["A", "The neighbours' dog barked all night again."]],
  },
  {
    lines: (a) => [
      ["B", "I handed in my notice today."],
      ["A", "Whoa, really? Where are you going?", true],
      ["B", `A small design studio in Portland. I start in two weeks, ${a}!`, true],
    ],
    question: (_, b) => `Where is ${b} going to work next?`,
    distractor: [["A", "Work has been so busy, we hired two new designers."]],
  },
  {
    lines: () => [
      ["A", "How was the trip?"],
      ["B", "Amazing. Lisbon is so pretty, we ate pastries every single day.", true],
      ["A", "Jealous!"],
    ],
    question: (_, b) => `Which city did ${b} travel to?`,
    distractor: [["A", "I still haven't booked anything for the summer."]],
  },
  {
    lines: () => [
      ["B", "I signed up for pottery classes!", true],
      ["A", "Oh fun, when are they?"],
      ["B", "Tuesday evenings. I made a very lopsided bowl yesterday, haha.", true],
    ],
    question: (_, b) => `What did ${b} make in the pottery class?`,
    distractor: [["A", "We bought new bowls and plates for the kitchen."]],
  },
  {
    lines: () => [
      ["B", "My sister had her baby last week!", true],
      ["A", "Congrats, auntie! Boy or girl?", true],
      ["B", "A girl. They named her Lily.", true],
    ],
    question: (_, b) => `What is the name of ${b}'s niece?`,
    distractor: [["A", "My cousin is expecting twins in the autumn."]],
  },
  {
    lines: () => [
      ["B", "Ugh, I sprained my ankle.", true],
      ["A", "Oh no! How?"],
      ["B", "Soccer on Sunday. Stepped on the ball like an idiot.", true],
    ],
    question: (_, b) => `How did ${b} hurt their ankle?`,
    distractor: [["A", "I've started running again, my knees are complaining."]],
  },
  {
    lines: () => [
      ["A", "Read anything good lately?", true],
      ["B", "Yes! Piranesi. I couldn't put it down.", true],
      ["A", "Adding it to my list."],
    ],
    question: (_, b) => `Which book did ${b} recommend?`,
    distractor: [["A", "I fell asleep reading on the train again."]],
  },
  {
    lines: () => [
      ["B", "The car broke down again this morning.", true],
      ["A", "Time for a new one?"],
      ["B", "Already ordered one, a small electric hatchback.", true],
    ],
    question: (_, b) => `What kind of car did ${b} order?`,
    distractor: [["A", "Traffic on the bridge was terrible today."]],
  },
  {
    lines: (a) => [
      ["A", `Are you coming to the concert on Friday?`],
      ["B", `Can't, ${a}, it's my parents' anniversary dinner.`, true],
      ["A", "Ah, tell them congrats!"],
    ],
    question: (_, b) => `Why couldn't ${b} come to the concert?`,
    distractor: [["A", "The band is playing two nights this time."]],
  },
];

const EN_CHANGES: Change[] = [
  {
    first: () => [
      ["B", "We finally got the keys to the flat in Denver!", true],
      ["A", "Congrats on the move!"],
    ],
    later: () => [
      ["B", "Big news: we're moving again.", true],
      ["A", "What? Where to?", true],
      ["B", "Austin. Sam got the job there.", true],
    ],
    question: (b) => `Where is ${b} moving to?`,
  },
  {
    first: () => [["B", "I've been doing yoga every morning before work.", true]],
    later: () => [
      ["A", "Still doing yoga in the mornings?", true],
      ["B", "Nope, switched to swimming after work, my back likes it more.", true],
    ],
    question: (b) => `What exercise does ${b} do these days?`,
  },
];

const ZH: Exchange[] = [
  {
    lines: () => [
      ["A", "你去过市中心那家攀岩馆吗？", true],
      ["B", "去了！上周六去的。", true],
      ["A", "怎么样？"],
      ["B", "太好玩了，就是现在胳膊还酸。"],
    ],
    question: (_, b) => `${b}什么时候去的攀岩馆？`,
    distractor: [["A", "我哥去抱石馆玩过一次，再也不想去了。"]],
  },
  {
    lines: () => [
      ["B", "我们家添了新成员！"],
      ["A", "不会吧，小狗？", true],
      ["B", "对，一只小比格，叫饼干。", true],
      ["A", "快发照片！"],
    ],
    question: (_, b) => `${b}的狗叫什么名字？`,
    distractor: [["A", "邻居家的狗昨晚又叫了一夜。"]],
  },
  {
    lines: (a) => [
      ["B", "我今天递了辞职信。"],
      ["A", "真的假的？去哪儿？", true],
      ["B", `去杭州一家小设计工作室，${a}，两周后入职。`, true],
    ],
    question: (_, b) => `${b}接下来去哪里上班？`,
    distractor: [["A", "我们公司最近很忙，又招了两个设计师。"]],
  },
  {
    lines: () => [
      ["A", "旅行怎么样？"],
      ["B", "太棒了，厦门特别美，我们每天都在吃海鲜。", true],
      ["A", "羡慕！"],
    ],
    question: (_, b) => `${b}去哪个城市旅游了？`,
    distractor: [["A", "暑假我还什么都没订呢。"]],
  },
  {
    lines: () => [
      ["B", "我报了个陶艺班！", true],
      ["A", "好玩，什么时候上课？"],
      ["B", "每周二晚上。昨天做了个歪歪扭扭的碗，哈哈。", true],
    ],
    question: (_, b) => `${b}在陶艺课上做了什么？`,
    distractor: [["A", "我们给厨房买了一套新碗盘。"]],
  },
  {
    lines: () => [
      ["B", "我姐上周生了！", true],
      ["A", "恭喜当小姨！男孩女孩？", true],
      ["B", "女孩，叫莉莉。", true],
    ],
    question: (_, b) => `${b}的外甥女叫什么？`,
    distractor: [["A", "我表姐秋天要生双胞胎了。"]],
  },
  {
    lines: () => [
      ["B", "唉，我脚踝扭了。", true],
      ["A", "啊？怎么弄的？"],
      ["B", "周日踢球，踩到球上了，太蠢了。", true],
    ],
    question: (_, b) => `${b}的脚踝是怎么受伤的？`,
    distractor: [["A", "我又开始跑步了，膝盖有点抗议。"]],
  },
  {
    lines: () => [
      ["A", "最近看什么好书了吗？", true],
      ["B", "有！《三体》，根本停不下来。", true],
      ["A", "加进我的书单了。"],
    ],
    question: (_, b) => `${b}推荐了哪本书？`,
    distractor: [["A", "我在地铁上看书又睡着了。"]],
  },
  {
    lines: () => [
      ["B", "车今天早上又坏了。", true],
      ["A", "该换新的了吧？"],
      ["B", "已经订了一辆，小型电动车。", true],
    ],
    question: (_, b) => `${b}订了什么车？`,
    distractor: [["A", "今天桥上堵得要命。"]],
  },
  {
    lines: (a) => [
      ["A", "周五的演唱会你来吗？"],
      ["B", `来不了，${a}，那天是我爸妈结婚纪念日的晚饭。`, true],
      ["A", "替我祝他们纪念日快乐！"],
    ],
    question: (_, b) => `${b}为什么不能去演唱会？`,
    distractor: [["A", "这次乐队连演两个晚上。"]],
  },
];

const ZH_CHANGES: Change[] = [
  {
    first: () => [
      ["B", "我们终于拿到成都那套房子的钥匙了！", true],
      ["A", "恭喜乔迁！"],
    ],
    later: () => [
      ["B", "告诉你个消息：我们又要搬家了。", true],
      ["A", "啊？搬去哪？", true],
      ["B", "西安，小张在那边找到工作了。", true],
    ],
    question: (b) => `${b}要搬到哪里去？`,
  },
  {
    first: () => [["B", "我最近每天早上上班前做瑜伽。", true]],
    later: () => [
      ["A", "还在早上做瑜伽吗？", true],
      ["B", "不做了，改成下班后游泳，腰舒服多了。", true],
    ],
    question: (b) => `${b}现在做什么运动？`,
  },
];

const SMALL_TALK = {
  en: [
    "Hey! How have you been?",
    "Good, busy week. You?",
    "Same old, same old.",
    "Haha, totally.",
    "Wow, that's awesome!",
    "Did you watch the game last night?",
    "It's been raining all week here.",
    "I need coffee so badly right now.",
    "Talk soon!",
    "Sounds good.",
    "Oh nice.",
    "Ha, I know what you mean.",
    "What are you up to this weekend?",
    "Not much, probably just relaxing.",
    "That's so true.",
    "Anyway, I should get going.",
  ],
  zh: [
    "嗨！最近怎么样？",
    "还行，这周挺忙的。你呢？",
    "老样子。",
    "哈哈，确实。",
    "哇，太厉害了！",
    "昨晚的比赛你看了吗？",
    "这边下了一整周的雨。",
    "我现在特别需要一杯咖啡。",
    "回头聊！",
    "好呀。",
    "不错哦。",
    "哈，我懂你的意思。",
    "这周末干嘛？",
    "没啥，大概就在家休息。",
    "说得太对了。",
    "好了，我先去忙了。",
  ],
};

const NAMES = {
  en: [
    ["Maya", "Jon"],
    ["Caroline", "Melanie"],
    ["Priya", "Tom"],
    ["Gina", "Marcus"],
    ["Ali", "Sofia"],
  ],
  zh: [
    ["小雨", "阿杰"],
    ["王芳", "李明"],
    ["晓晓", "大伟"],
    ["陈静", "刘洋"],
    ["小美", "阿强"],
  ],
};

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** "1:56 pm on 8 May, 2023", as LoCoMo writes session times. */
function clockOnDate(ms: number): string {
  const d = new Date(ms);
  const h = d.getUTCHours();
  return `${h % 12 || 12}:${String(d.getUTCMinutes()).padStart(2, "0")} ${h < 12 ? "am" : "pm"} on ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}, ${d.getUTCFullYear()}`;
}

export interface ChatCase {
  qid: string;
  lang: "en" | "zh";
  evidence: string[];
}

/** Ops for `conversations` chats (even ones English, odd ones Chinese) and the cases, in query order. */
export function chatSet(seed = 11, conversations = 20): { ops: RecallOp[]; cases: ChatCase[] } {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const ops: RecallOp[] = [];
  const cases: ChatCase[] = [];
  for (let c = 0; c < conversations; c++) {
    const lang = c % 2 === 0 ? "en" : "zh";
    const conv = `chat-${c}`;
    const [p, q] = NAMES[lang][Math.floor(c / 2) % NAMES[lang].length] as [string, string];
    const exchanges = lang === "en" ? EN : ZH;
    const changes = lang === "en" ? EN_CHANGES : ZH_CHANGES;
    const sessions = 6;
    // Each exchange (about one of the two, at random) lands in a random session; changes start
    // in the first half and change in the second; every distractor goes somewhere else.
    type Planned = { session: number; lines: Line[]; names: [string, string]; question?: string; qid: string };
    const plan: Planned[] = [];
    exchanges.forEach((x, i) => {
      const names: [string, string] = r() < 0.5 ? [p, q] : [q, p];
      plan.push({
        session: Math.floor(r() * sessions),
        lines: x.lines(...names),
        names,
        question: x.question(...names),
        qid: `${conv}-x${i}`,
      });
      plan.push({ session: Math.floor(r() * sessions), lines: x.distractor, names: [names[1], names[0]], qid: "" });
    });
    changes.forEach((x, i) => {
      const names: [string, string] = r() < 0.5 ? [p, q] : [q, p];
      plan.push({
        session: Math.floor(r() * 3),
        lines: x.first(names[1]).map(([w, t]) => [w, t, false] as Line),
        names,
        qid: "",
      });
      plan.push({
        session: 3 + Math.floor(r() * 3),
        lines: x.later(names[1]),
        names,
        question: x.question(names[1]),
        qid: `${conv}-c${i}`,
      });
    });
    ops.push({ op: "reset", conv });
    const evidence = new Map<string, string[]>();
    let seq = 0;
    let day = Date.UTC(2023, 2, 1 + c) + Math.floor(r() * 12) * 3_600_000;
    for (let s = 0; s < sessions; s++) {
      day += (4 + Math.floor(r() * 14)) * 86_400_000;
      const time = lang === "en" ? clockOnDate(day) : new Date(day).toISOString();
      const here = plan.filter((x) => x.session === s);
      const turns: { speaker: string; text: string; qid?: string }[] = [];
      let speaker = 0;
      const say = (who: string, text: string, qid?: string) => turns.push({ speaker: who, text, qid });
      const filler = () => {
        const n = 2 + Math.floor(r() * 4);
        for (let i = 0; i < n; i++) say(speaker++ % 2 === 0 ? p : q, pick(SMALL_TALK[lang]));
      };
      filler();
      for (const x of here) {
        for (const [who, text, ev] of x.lines)
          say(who === "A" ? x.names[0] : x.names[1], text, ev && x.question ? x.qid : undefined);
        filler();
      }
      for (const t of turns) {
        const id = `${conv}-s${s}-${seq++}`;
        ops.push({ op: "index", conv, id, text: t.text, speaker: t.speaker, time, session: s + 1, seq });
        if (t.qid) evidence.set(t.qid, [...(evidence.get(t.qid) ?? []), id]);
      }
    }
    ops.push({ op: "commit", conv });
    const asked = new Date(day + 86_400_000).toISOString();
    for (const x of plan) {
      if (!x.question) continue;
      ops.push({ op: "query", conv, qid: x.qid, text: x.question, k: 10, time: asked });
      cases.push({ qid: x.qid, lang, evidence: evidence.get(x.qid) ?? [] });
    }
  }
  return { ops, cases };
}
