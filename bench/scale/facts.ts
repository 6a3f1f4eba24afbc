/**
 * Facts told once somewhere in ten years of generated chats (bench/scale/history.ts), each on a
 * day of its own, and a question for each asked later in a new conversation: what the
 * cross-conversation note is timed on. Their telling words occur nowhere else in the history
 * (words.ts holds none of them), so a note that quotes them found the fact, not a look-alike.
 */
export interface PlantedFact {
  lang: "en" | "zh";
  /** The day of the ten years it is told on (0 = the first). */
  day: number;
  told: string;
  question: string;
  /** Words the quote holds when the fact reached the model. */
  expect: string;
}

export const PLANTED_FACTS: PlantedFact[] = [
  {
    lang: "en",
    day: 211,
    told: "By the way, my sister named her sailboat Marigold Thunderbird last spring.",
    question: "What did my sister name her sailboat?",
    expect: "Marigold Thunderbird",
  },
  {
    lang: "en",
    day: 1207,
    told: "Note for later: the combination of my locker at the climbing gym is 4471.",
    question: "What is the combination of my climbing gym locker?",
    expect: "4471",
  },
  {
    lang: "en",
    day: 2333,
    told: "The vet told us our cat Biscuit is allergic to salmon, so no more fish treats.",
    question: "What is our cat Biscuit allergic to?",
    expect: "salmon",
  },
  {
    lang: "en",
    day: 3190,
    told: "We parked the camper van at Holloway Farm for the winter, behind the apple barn.",
    question: "Where did we park the camper van for the winter?",
    expect: "Holloway Farm",
  },
  {
    lang: "zh",
    day: 640,
    told: "我把结婚证放在书房那个蓝色档案盒里了，以后找不到就看那里。",
    question: "我的结婚证放在哪里了？",
    expect: "蓝色档案盒",
  },
  {
    lang: "zh",
    day: 1733,
    told: "奶奶最喜欢的花是栀子花，她生日那天可以送一束。",
    question: "奶奶最喜欢什么花？",
    expect: "栀子花",
  },
  {
    lang: "zh",
    day: 2710,
    told: "表弟的新公司叫星河织布坊，在绍兴柯桥那边。",
    question: "表弟的新公司叫什么名字？",
    expect: "星河织布坊",
  },
  {
    lang: "zh",
    day: 3555,
    told: "我们家车库的门禁密码改成了 8206 了。",
    question: "车库门禁密码是多少？",
    expect: "8206",
  },
];
