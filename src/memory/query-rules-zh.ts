/**
 * The Chinese rules of query analysis (src/memory/query-analysis.ts), each the counterpart of
 * an English rule in query-rules-en.ts. Framing rules apply in this order, after the English ones.
 */
import type { QueryRule } from "./query-analysis.ts";

/**
 * 几 as a question word ("how many", "which": 几个, 星期几). Not in a word of its own (几乎
 * "almost", 几何 "geometry", 几率, 几近, 几经), not "a few" or "a dozen or so" (前几天 "the
 * other day", 这几天 "these days", 好几次 "several times", 十几, 几十, 没几个) and not
 * the "a few" of a request (推荐几本书 "recommend a few books").
 */
const JI = "(?<![前这那好十没头后])(?<!推荐|建议|介绍|列举|列出)几(?![乎何率近经十百千万])";

/**
 * Measure words that only count (个, 只, 本 …): "how many" with them is the question's form,
 * the thing counted comes after (几只猫).
 */
const COUNTING =
  "个|位|名|口|只|条|头|匹|顿|本|张|件|部|辆|台|家|所|座|栋|间|层|场|种|样|类|项|道|首|篇|封|杯|瓶|碗|盒|包|双|对|套|副|块|片|颗|粒|支|把|棵|朵|门|节|堂|届|期|集|季|岁";

/**
 * Units a measure is said in (天, 小时, 公里, 元, 次 …): they name what is asked and stay in the
 * query, as "hours" does after "how many".
 */
const UNITS =
  "次|回|遍|趟|天|周|星期|礼拜|年|小时|钟头|分钟|秒|公里|千米|米|公斤|千克|斤|磅|英里|元|美元|欧元|倍|页|步";

/**
 * What 几 counts when it asks how many. Not 点, 号 or 月 alone: 几点, 几号, 几月 ask when, as
 * "what time" does.
 */
const COUNTED = `${COUNTING}|${UNITS}|个月|人`;

/** 多少 as a question word; not in 多多少少 ("more or less"). */
const DUOSHAO = "(?<!多)多少";

/** 多大 "how old / how big", 多远 "how far": not the 多 of 很多, 许多, 差不多 before 大学, 远方. */
const DUO = "(?<![很许好众诸更最不太较])多";

export const QUERY_RULES_ZH: readonly QueryRule[] = [
  {
    name: "zh.quantity",
    does: "asksQuantity",
    pattern: new RegExp(
      `${DUOSHAO}|${JI}(?=${COUNTED})|(?<!没)有${JI}|多久|多长时间|${DUO}(?:远|大)|总共|一共|总计|合计|数量`,
    ),
    means:
      "多少, 几 before what it counts (几个, 几只, 几次, 几天 …), 有几, 多久, 多长时间, 多远, 多大, 总共, 一共, 数量",
    why:
      "As en.quantity: a question for a number is answered by a turn that states one. 几 alone is " +
      "no sign: 几乎 is 'almost', 前几天 'the other day', 好几次 'several times' (JI above).",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No Chinese question of the " +
      "sets asks how many (test/memory/query-analysis.test.ts shows what it finds).",
    counterpart: "en.quantity",
  },
  {
    name: "zh.measure",
    does: "asksMeasure",
    pattern: new RegExp(
      `${DUOSHAO}(?:个?(?:${UNITS})|个月|钱|块|分|卡路里)|${JI}(?:个?(?:${UNITS})|个月|岁)|百分之(?:${DUOSHAO}|几)|多久|多长时间|${DUO}(?:远|大)|总共|一共|总计|合计`,
    ),
    means: "多少 / 几 + a unit (多少钱, 几个小时, 几天, 几公里 …), 百分之几, 多久, 多长时间, 多远, 多大, 总共, 一共",
    why: "As en.measure: a measure is a number someone said ('花了七十个小时'), so a turn stating one counts more.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No Chinese question of the " +
      "sets asks for a measure.",
    counterpart: "en.measure",
  },
  {
    name: "zh.time-between",
    does: "asksTimeBetween",
    pattern: new RegExp(
      `多久(?:以|之)?前|(?:过|隔|相隔|间隔|相差|差)了?(?:多久|多长时间|${DUOSHAO}|${JI})|(?:${DUOSHAO}|${JI})个?(?:天|周|星期|礼拜|月|年)(?:以|之)?后|${DUOSHAO}个?(?:天|周|星期|礼拜|月|年)(?:以|之)?前|[前后]的?${DUOSHAO}个?(?:天|周|星期|礼拜|月|年)|(?:多久|多长时间)了`,
    ),
    means: "多久以前, 过了 / 隔了 / 相差多久 (多少天), 多少天以后 / 以前, 之后多少天, 多久了",
    why:
      "As en.time-between: answered from when each thing was said, so a number weighs as for a count. " +
      "几天前 is left to time.ts, which reads it as a span ('a few days ago').",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No Chinese question of the " +
      "sets asks for the time between two things.",
    counterpart: "en.time-between",
  },
  {
    name: "zh.present-state",
    does: "asksPresentState",
    pattern: /现在|目前|如今|最近|还在|这几天|这些天|这段时间|这阵子|眼下|当下|至今|迄今|仍然|依然|仍在|最新/,
    means: "现在, 目前, 如今, 最近, 还在, 这几天, 这段时间, 眼下, 至今, 仍然, 依然, 最新",
    why:
      "As en.present-state: what someone says now replaces what they said before. 最近 reads as " +
      "'these days' here as well as 'recently' (zh.before-now).",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. The chat set's Chinese " +
      "present-state question (…现在做什么运动？) ranks the same without it once 现在 leaves the query " +
      "(zh.present-phrase); before that, turning it off cost chat ZH R@10 .839 → .835.",
    counterpart: "en.present-state",
  },
  {
    name: "zh.to-assistant",
    does: "addressesAssistant",
    reads: "unframed",
    pattern: /你|您/,
    means: "你, 您 (你们 too)",
    why: "As en.to-assistant. Read after framing: 你能推荐 only frames a request (zh.advice-request).",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No speaker in the sets' " +
      "Chinese conversations is named assistant.",
    counterpart: "en.to-assistant",
  },
  {
    name: "zh.assistant-said",
    does: "asksWhatAssistantSaid",
    pattern:
      /(?:你|您)(?:之前|以前|上次|刚才|早些时候)?(?:跟我|给我|对我|帮我)?(?:说|讲|告诉|提到|提|推荐|建议|给|列|列出|分享|介绍|解释|描述)(?:我)?(?:过|了|的)/,
    means: "你说过 / 说的 / 提到过 / 推荐的 / 给我的 / 列出的 …",
    why:
      "As en.assistant-said. Chinese marks the past with 过, 了 or 的 after the verb: 你推荐什么 asks " +
      "for advice now, 你推荐的 what was recommended.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No speaker in the sets' " +
      "Chinese conversations is named assistant.",
    counterpart: "en.assistant-said",
  },
  {
    name: "zh.first-person",
    does: "firstPerson",
    pattern: /我/,
    means: "我 (我们 too)",
    why: "As en.first-person.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No speaker in the sets' " +
      "Chinese conversations is named assistant.",
    counterpart: "en.first-person",
  },
  {
    name: "zh.question",
    does: "isQuestion",
    pattern: new RegExp(`？|什么|哪|谁|${JI}|${DUOSHAO}|多久|怎么|如何|为何|吗`),
    means:
      "a full-width question mark, or a question word anywhere (什么, 哪, 谁, 几 as a question word, 多少, 多久, 怎么, 如何, 吗)",
    why: "As en.question: Chinese question words stay where the answer goes, so anywhere in the question.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No speaker in the sets' " +
      "Chinese conversations is named assistant.",
    counterpart: "en.question",
  },
  {
    name: "zh.present-phrase",
    does: "frame",
    pattern: /现在|这几天|这些天|这段时间|这阵子|如今|眼下|当下|(?:到|迄今|至今)?目前为止|迄今为止|至今为止/g,
    means: "现在, 这几天, 这段时间, 如今, 眼下, 到目前为止, 迄今为止: now",
    why:
      "As en.present-phrase: they place the question in time; 这几天 would otherwise look for turns " +
      "that say 天. 现在 too: its English 'now' is a stop word (src/embed/tokenizer.ts), so an English " +
      "question never looks for it. 目前, 还在 (like 'currently', 'still') stay.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat ZH R@10 = (R@5 .664 → .635). All of it " +
      "from 现在 (the chat set's …现在做什么运动？); LongMemEval and LoCoMo have no Chinese question.",
    counterpart: "en.present-phrase",
  },
  {
    name: "zh.before-now",
    does: "frame",
    pattern:
      /最近(?:一段|这段)时间|最近(?!的|一次|一回|\s*(?:\d+|[一两二三四五六七八九十几])?\s*个?(?:天|周|星期|礼拜|月|年))|近来|先前|此前|早些时候|前几天|前些天|前些日子|前阵子|前段时间|(?<![天日周期拜月年])(?:之|以)前/g,
    means: "最近, 近来, 先前, 此前, 前几天, 前阵子, 之前, 以前: before now",
    why:
      "As en.before-now: it places the question in time, and another turn that happens to say 最近 " +
      "is not what it asks about. 最近的 ('nearest', 'most recent') and 最近一次 name what is asked " +
      "and stay; 最近两个月 and 三天以前 name a span, which time.ts reads and takes out itself. " +
      "之前 / 以前 after a thing (搬家之前) go as 'before' does, an English stop word.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No Chinese question of the " +
      "sets says 最近 or 之前 (test/memory/recall-quality.test.ts shows what it does).",
    counterpart: "en.before-now",
  },
  {
    name: "zh.recalling",
    does: "frame",
    pattern:
      /我(?:之前|以前|上次)?\s*(?:提到|说|告诉你)过|我记得|(?:我们|咱们)\s*(?:之前|以前|上次|上回)?\s*(?:聊|谈|讨论)(?:过|到)了?/g,
    means: "我提到过, 我说过, 我告诉你过, 我记得, 我们聊过 / 谈过 / 讨论过: this was said before",
    why:
      "As en.recalling: the question is about something said before, and every turn was. 你说过 " +
      "stays (zh.assistant-said reads it); 我和小王聊过什么 ('what did I talk about with Xiao Wang') " +
      "keeps its 聊过, which only 我们 / 咱们 before it make framing. Applied after zh.before-now, " +
      "which leaves a space where 之前 was.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No Chinese question of the " +
      "sets says it (test/memory/query-analysis.test.ts shows what it frames).",
    counterpart: "en.recalling",
  },
  {
    name: "zh.advice-request",
    does: "frame",
    alsoFinds: "asksAdvice",
    pattern:
      /(?:(?:你|您)(?:能|可以|能不能|可不可以|能否|可否)?|请|麻烦你|求)(?:给我|帮我|为我|替我)?(?:推荐|建议|介绍)(?![过的了])(?:一下)?|有(?:什么|没有|啥|哪些)(?:好的?)?(?:建议|推荐|窍门|诀窍|技巧|妙招|小贴士|提示|点子|主意)/g,
    means: "你能 / 你可以 (给我) 推荐 / 建议 / 介绍, 请推荐, 求推荐, 有什么建议 / 窍门 / 技巧",
    why:
      "As en.advice-request: how the question is asked, not what it is about; its 你 does not " +
      "address the assistant (zh.to-assistant reads the question without it). 你推荐过 / 你推荐的 " +
      "ask what the assistant recommended (zh.assistant-said) and keep their words, as 汤姆推荐了 does.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No Chinese question of the " +
      "sets asks for advice (test/memory/recall-quality.test.ts shows what it does).",
    counterpart: "en.advice-request",
  },
  {
    name: "zh.hedge",
    does: "frame",
    pattern:
      /我\s*(?:一直|正|也)?\s*在(?:找|考虑|想|琢磨|纠结|犹豫|尝试|努力)|我想知道|(?:我)?(?:有点|有些)?(?:不太?确定|拿不准)|我(?:有点|有些|很|还)?(?:纠结|犹豫)|不知道(?:该|要)?(?:选|挑)哪(?:一)?(?:个|款|家|种)(?:好)?|遇到了?(?:点|些|一些)?(?:麻烦|困难)/g,
    means: "我在找 / 考虑 / 想 / 纠结, 我想知道, 不确定, 拿不准, 不知道选哪个, 遇到了麻烦",
    why:
      "As en.hedge: the person's hedges around what they ask; another message's 不知道选哪个 is not " +
      "what this one is about. The verbs only after 我: 小美在考虑什么 keeps its words.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No Chinese question of the " + "sets hedges.",
    counterpart: "en.hedge",
  },
  {
    name: "zh.kinds-of",
    does: "frame",
    pattern: new RegExp(
      `(?:${JI}|哪|各|${DUOSHAO})(?:种|类)(?:不同的?)?|不同(?:的)?(?:种类|类型|种|类)的?|(?:种类|类型)的?|什么样的?`,
      "g",
    ),
    means: "几种 (不同的), 哪种, 各种, 不同种类的, 类型, 什么样的",
    why:
      "As en.kinds-of: the question asks for members of the kind the next words name (几种不同的奶酪); " +
      "another turn's 各种植物奶 is not one of them.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No Chinese question of the " +
      "sets asks for kinds.",
    counterpart: "en.kinds-of",
  },
  {
    name: "zh.quantity-form",
    does: "frame",
    pattern: new RegExp(`${DUOSHAO}|多久|多长时间|${DUO}(?:远|大)|${JI}(?:${COUNTING})|${JI}(?=${UNITS}|个月|人)`, "g"),
    means: "多少, 多久, 多长时间, 多远, 多大, 几 with a counting word (几个, 几只); a unit stays (几天 → 天)",
    why:
      "As en.quantity-form: the question's form (zh.quantity reads it from the whole question), not " +
      "its topic. What it counts and the unit stay, as 'hours' stays after 'how many'.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No Chinese question of the " +
      "sets asks how many.",
    counterpart: "en.quantity-form",
  },
];
