/**
 * A generated evaluation set for memory recall: multi-session conversations, half in English and
 * half in Chinese, where a person mentions facts about their life among small talk; later
 * questions ask about those facts in other words. Labelled evidence: the turn(s) that answer.
 *
 * What makes it hard for lexical scoring, on purpose:
 *   - paraphrase: the question shares few words with the evidence ("what is my dog called" vs
 *     "I adopted a beagle named Max"), and inflection differs (moved/moving);
 *   - facts that change over time: the person moves, changes jobs; the evidence is the latest
 *     mention, and the earlier one is a distractor with the same words;
 *   - distractors: other people's dogs, cities visited on holiday, colleagues' jobs.
 * Deterministic for a seed, so runs compare.
 */
import type { RecallOp } from "../../src/protocol/recall.ts";

export interface Turn {
  id: string;
  text: string;
  speaker: "user" | "assistant";
  session: number;
  seq: number;
  time: string;
}

export interface Question {
  qid: string;
  text: string;
  evidence: string[];
}

export interface Conversation {
  conv: string;
  lang: "en" | "zh";
  turns: Turn[];
  questions: Question[];
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

type Slot = {
  fact: (v: string, w: string) => string;
  change?: (v: string, w: string) => string;
  question: string;
  distractor: (v: string) => string;
  values: string[];
};

const EN: Record<string, Slot> = {
  pet: {
    fact: (v) => `We finally adopted a beagle puppy last weekend, we named him ${v}.`,
    question: "What did I call my dog?",
    distractor: (v) => `My neighbour's dog ${v} barks all night, it's driving me crazy.`,
    values: ["Max", "Biscuit", "Luna", "Pepper", "Rocky", "Mochi"],
  },
  city: {
    fact: (v) => `I moved to ${v} in March, still unpacking boxes.`,
    change: (v, w) => `Big news: we're relocating from ${w} to ${v}, the new flat is near the river.`,
    question: "Which city am I living in these days?",
    distractor: (v) => `My sister visited ${v} for a conference and loved the food.`,
    values: ["Lisbon", "Toronto", "Osaka", "Denver", "Prague", "Melbourne"],
  },
  job: {
    fact: (v) => `I started a new position as a ${v} at a small company downtown.`,
    change: (v, w) => `I quit being a ${w}; starting Monday I'm working as a ${v} instead.`,
    question: "What do I do for work now?",
    distractor: (v) => `My cousin has been a ${v} for ten years and still hates Mondays.`,
    values: ["nurse", "data analyst", "carpenter", "teacher", "pharmacist", "architect"],
  },
  hobby: {
    fact: (v) => `I've been taking ${v} lessons twice a week, my fingers hurt.`,
    question: "Which instrument am I learning to play?",
    distractor: (v) => `There was a street musician playing ${v} outside the station.`,
    values: ["cello", "guitar", "piano", "violin", "ukulele", "drum"],
  },
  food: {
    fact: (v) => `Honestly nothing beats a bowl of ${v}, I could eat it every day.`,
    question: "What's my favourite meal?",
    distractor: (v) => `The restaurant ran out of ${v} so we ordered pizza.`,
    values: ["ramen", "paella", "pho", "lasagna", "curry", "dumplings"],
  },
  allergy: {
    fact: (v) => `The doctor confirmed I'm allergic to ${v}, so I have to read labels now.`,
    question: "What can't I eat because of the allergy test?",
    distractor: (v) => `The bakery started labelling cakes that contain ${v}.`,
    values: ["peanuts", "shellfish", "sesame", "eggs", "gluten", "soy"],
  },
};

const ZH: Record<string, Slot> = {
  pet: {
    fact: (v) => `我们上周末终于领养了一只小猎犬，给它起名叫${v}。`,
    question: "我的狗叫什么名字？",
    distractor: (v) => `邻居家的狗${v}整晚都在叫，吵得我睡不着。`,
    values: ["豆豆", "旺财", "小白", "球球", "可乐", "年糕"],
  },
  city: {
    fact: (v) => `我三月份搬到了${v}，箱子还没拆完。`,
    change: (v, w) => `告诉你个消息：我们要从${w}搬去${v}了，新房子在江边。`,
    question: "我现在住在哪个城市？",
    distractor: (v) => `我姐姐去${v}开会，说那边的东西很好吃。`,
    values: ["杭州", "成都", "厦门", "西安", "青岛", "昆明"],
  },
  job: {
    fact: (v) => `我在市中心一家小公司找了份新工作，当${v}。`,
    change: (v, w) => `我不做${w}了，下周一开始改做${v}。`,
    question: "我现在做什么工作？",
    distractor: (v) => `我表哥当了十年${v}，还是每天都不想上班。`,
    values: ["护士", "数据分析师", "木匠", "老师", "药剂师", "建筑师"],
  },
  hobby: {
    fact: (v) => `我最近每周上两次${v}课，手指都练疼了。`,
    question: "我在学哪种乐器？",
    distractor: (v) => `车站外面有个街头艺人在弹${v}。`,
    values: ["大提琴", "吉他", "钢琴", "小提琴", "古筝", "二胡"],
  },
  food: {
    fact: (v) => `说实话没有什么比一碗${v}更好吃了，我能天天吃。`,
    question: "我最喜欢吃什么？",
    distractor: (v) => `那家餐厅的${v}卖完了，我们只好点了披萨。`,
    values: ["牛肉面", "麻辣烫", "小笼包", "酸菜鱼", "火锅", "饺子"],
  },
  allergy: {
    fact: (v) => `医生确认我对${v}过敏，以后买东西得看配料表了。`,
    question: "体检发现我不能吃什么？",
    distractor: (v) => `面包店开始标注哪些蛋糕含有${v}。`,
    values: ["花生", "海鲜", "芝麻", "鸡蛋", "麸质", "大豆"],
  },
};

const SMALL_TALK = {
  en: [
    "Did you see the game last night?",
    "It's been raining all week here.",
    "I need to remember to buy milk.",
    "Work was exhausting today.",
    "Any good podcast recommendations?",
    "The traffic this morning was terrible.",
    "I finally fixed the leaking tap.",
    "We watched an old movie yesterday.",
  ],
  zh: [
    "昨晚的比赛你看了吗？",
    "这周一直在下雨。",
    "我得记得去买牛奶。",
    "今天上班好累。",
    "有什么好听的播客推荐吗？",
    "今天早上堵车太严重了。",
    "我终于把漏水的水龙头修好了。",
    "我们昨天看了一部老电影。",
  ],
};
const REPLIES = {
  en: ["That sounds great!", "Oh no, sorry to hear that.", "Tell me more.", "Good to know, I'll remember."],
  zh: ["听起来不错！", "哎呀，真遗憾。", "多说说吧。", "好的，我记住了。"],
};

export function generate(seed = 7, conversations = 20): Conversation[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const out: Conversation[] = [];
  for (let c = 0; c < conversations; c++) {
    const lang = c % 2 === 0 ? "en" : "zh";
    const slots = lang === "en" ? EN : ZH;
    const turns: Turn[] = [];
    const questions: Question[] = [];
    const evidence = new Map<string, string[]>();
    const day0 = Date.UTC(2025, 0, 1 + c * 3);
    let seq = 0;
    const say = (text: string, session: number, speaker: "user" | "assistant" = "user") => {
      const id = `c${c}-t${seq}`;
      turns.push({
        id,
        text,
        speaker,
        session,
        seq,
        time: new Date(day0 + session * 86_400_000 * 4 + seq * 60_000).toISOString(),
      });
      seq++;
      return id;
    };
    // Plan: each slot's fact lands in a random session; changing slots change in a later one.
    const plan: { session: number; kind: "fact" | "change" | "distractor"; slot: string }[] = [];
    for (const slot of Object.keys(slots)) {
      const s = Math.floor(r() * 3);
      plan.push({ session: s, kind: "fact", slot });
      if (slots[slot]!.change) plan.push({ session: s + 1 + Math.floor(r() * 2), kind: "change", slot });
      plan.push({ session: Math.floor(r() * 5), kind: "distractor", slot });
      plan.push({ session: Math.floor(r() * 5), kind: "distractor", slot });
    }
    const value = new Map<string, string>();
    for (let session = 0; session < 5; session++) {
      const here = plan.filter((p) => p.session === session);
      const length = 24 + Math.floor(r() * 10);
      const positions = new Map<number, (typeof plan)[number]>();
      for (const p of here) {
        let at = Math.floor(r() * length);
        while (positions.has(at)) at = (at + 1) % length;
        positions.set(at, p);
      }
      for (let i = 0; i < length; i++) {
        const p = positions.get(i);
        if (!p) {
          say(i % 2 === 0 ? pick(SMALL_TALK[lang]) : pick(REPLIES[lang]), session, i % 2 === 0 ? "user" : "assistant");
          continue;
        }
        const s = slots[p.slot]!;
        if (p.kind === "fact") {
          const v = pick(s.values);
          value.set(p.slot, v);
          evidence.set(p.slot, [say(s.fact(v, ""), session)]);
        } else if (p.kind === "change") {
          const old = value.get(p.slot) ?? pick(s.values);
          let v = pick(s.values);
          while (v === old) v = pick(s.values);
          value.set(p.slot, v);
          evidence.set(p.slot, [say(s.change!(v, old), session)]);
        } else {
          say(s.distractor(pick(s.values)), session);
        }
        say(pick(REPLIES[lang]), session, "assistant");
      }
    }
    for (const [slot, ev] of evidence)
      questions.push({ qid: `c${c}-${slot}`, text: slots[slot]!.question, evidence: ev });
    out.push({ conv: `eval-${c}`, lang, turns, questions });
  }
  return out;
}

export interface FactsCase {
  qid: string;
  lang: "en" | "zh";
  evidence: string[];
}

/** The set as recall ops (each conversation its own memory) and its cases, in query order. */
export function factsSet(seed = 7, conversations = 20): { ops: RecallOp[]; cases: FactsCase[] } {
  const ops: RecallOp[] = [];
  const cases: FactsCase[] = [];
  for (const c of generate(seed, conversations)) {
    ops.push({ op: "reset", conv: c.conv });
    for (const t of c.turns)
      ops.push({
        op: "index",
        conv: c.conv,
        id: t.id,
        text: t.text,
        speaker: t.speaker,
        time: t.time,
        session: t.session,
        seq: t.seq,
      });
    ops.push({ op: "commit", conv: c.conv });
    for (const q of c.questions) {
      ops.push({ op: "query", conv: c.conv, qid: q.qid, text: q.text, k: 10 });
      cases.push({ qid: q.qid, lang: c.lang, evidence: q.evidence });
    }
  }
  return { ops, cases };
}
