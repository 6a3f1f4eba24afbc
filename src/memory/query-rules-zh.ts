/**
 * The Chinese rules of query analysis (src/memory/query-analysis.ts), each the counterpart of
 * an English rule in query-rules-en.ts. Framing rules apply in this order, after the English ones.
 */
import type { QueryRule } from "./query-analysis.ts";

/**
 * 几 as a question word ("how many", "which": 几个, 星期几). Not in a word of its own (几乎
 * "almost", 几何 "geometry", 几率, 几近, 几经), not "a few" or "a dozen or so" (前几天 "the
 * other day", 这几天 "these days", 好几次 "several times", 十几, 几十, 没几个, 过几天) and not
 * the "a few" of a request (推荐几本书 "recommend a few books").
 */
const JI = "(?<![前这那好十没头后过])(?<!推荐|建议|介绍|列举|列出)几(?![乎何率近经十百千万])";

/**
 * What 几 counts when it asks how many: a measure word (个, 只, 本, 次, 天, 小时 …). Not 点, 号
 * or 月 alone: 几点, 几号, 几月 ask when, as "what time" does.
 */
const COUNTED =
  "个|位|名|人|口|只|条|头|匹|本|张|件|部|辆|台|家|所|座|栋|间|层|场|次|回|遍|趟|顿|种|样|类|项|道|首|篇|封|杯|瓶|碗|盒|包|双|对|套|副|块|片|颗|粒|支|把|棵|朵|门|节|堂|届|期|集|季|岁|天|周|星期|礼拜|年|小时|钟头|分钟|秒|公里|千米|米|公斤|千克|斤|磅|英里|元|美元|欧元|倍|页|步";

export const QUERY_RULES_ZH: readonly QueryRule[] = [
  {
    name: "zh.quantity",
    does: "asksQuantity",
    pattern: new RegExp(`多少|${JI}(?=${COUNTED})|(?<!没)有${JI}`),
    means: "多少, 几 before what it counts (几个, 几只, 几次, 几天 …), 有几",
    why:
      "As en.quantity: a question for a number is answered by a turn that states one. 几 alone is " +
      "no sign: 几乎 is 'almost', 前几天 'the other day', 好几次 'several times' (JI above).",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No Chinese question in the sets asks for a quantity.",
    counterpart: "en.quantity",
  },
  {
    name: "zh.measure",
    does: "asksMeasure",
    pattern: new RegExp(`多少(?:钱|小时|天|年|公里|分钟)|${JI}(?:天|年|小时|次|个月|公里|分钟)`),
    means: "多少钱, 多少小时 / 天 / 年 …, 几天 / 年 / 次 …",
    why: "As en.measure: a measure is a number someone said.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No Chinese question in the sets asks for a measure.",
    counterpart: "en.measure",
  },
  {
    name: "zh.present-state",
    does: "asksPresentState",
    pattern: /现在|目前|如今|最近|还在/,
    means: "现在, 目前, 如今, 最近, 还在",
    why: "As en.present-state: what someone says now replaces what they said before.",
    measured: "Off: LongMemEval unchanged; LoCoMo unchanged; chat ZH R@10 .839 → .835.",
    counterpart: "en.present-state",
  },
  {
    name: "zh.to-assistant",
    does: "addressesAssistant",
    reads: "unframed",
    pattern: /你|您/,
    means: "你, 您",
    why: "As en.to-assistant.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No speaker in the Chinese chat set is named assistant.",
    counterpart: "en.to-assistant",
  },
  {
    name: "zh.assistant-said",
    does: "asksWhatAssistantSaid",
    pattern: /你(?:说|提到|推荐|建议)过/,
    means: "你说过, 你提到过, 你推荐过, 你建议过",
    why: "As en.assistant-said.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No speaker in the Chinese chat set is named assistant.",
    counterpart: "en.assistant-said",
  },
  {
    name: "zh.first-person",
    does: "firstPerson",
    pattern: /我/,
    means: "我 (我们 too)",
    why: "As en.first-person.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No speaker in the Chinese chat set is named assistant.",
    counterpart: "en.first-person",
  },
  {
    name: "zh.question",
    does: "isQuestion",
    pattern: new RegExp(`？|什么|哪|谁|${JI}|多少|怎么|吗`),
    means:
      "a full-width question mark, or a question word anywhere (什么, 哪, 谁, 几 as a question word, 多少, 怎么, 吗)",
    why: "As en.question: Chinese question words stay where the answer goes, so anywhere in the question.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No speaker in the Chinese chat set is named assistant.",
    counterpart: "en.question",
  },
  {
    name: "zh.before-now",
    does: "frame",
    pattern:
      /最近(?:一段|这段)时间|最近(?!的|一次|一回|\s*(?:\d+|[一两二三四五六七八九十几])?\s*个?(?:天|周|星期|礼拜|月|年))/g,
    means: "最近 (一段时间): recently, lately",
    why:
      "As en.before-now: it places the question in time, and another turn that happens to say 最近 " +
      "is not what it asks about. 最近的 ('nearest', 'most recent') and 最近一次 name what is asked " +
      "and stay; 最近两个月 names a span, which time.ts reads and takes out itself.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No question of the sets says 最近 " +
      "(test/memory/recall-quality.test.ts shows what it does).",
    counterpart: "en.before-now",
  },
  {
    name: "zh.advice-request",
    does: "frame",
    pattern:
      /(?:(?:你|您)(?:能|可以|能不能|可不可以|能否|可否)?|请|麻烦你|求)(?:给我|帮我|为我|替我)?(?:推荐|建议|介绍)(?![过的了])(?:一下)?|有(?:什么|没有|啥|哪些)(?:好的?)?(?:建议|推荐|窍门|诀窍|技巧|妙招|小贴士|提示|点子|主意)/g,
    means: "你能 / 你可以 (给我) 推荐 / 建议 / 介绍, 请推荐, 求推荐, 有什么建议 / 窍门 / 技巧",
    why:
      "As en.advice-request: how the question is asked, not what it is about; its 你 does not " +
      "address the assistant (zh.to-assistant reads the question without it). 你推荐过 / 你推荐的 " +
      "ask what the assistant recommended (zh.assistant-said) and keep their words, as 汤姆推荐了 does.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No question of the sets asks " +
      "for advice in Chinese (test/memory/recall-quality.test.ts shows what it does).",
    counterpart: "en.advice-request",
  },
];
