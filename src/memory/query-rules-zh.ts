/**
 * The Chinese rules of query analysis (src/memory/query-analysis.ts), each the counterpart of
 * an English rule in query-rules-en.ts. Framing rules apply in this order, after the English ones.
 */
import type { QueryRule } from "./query-analysis.ts";

export const QUERY_RULES_ZH: readonly QueryRule[] = [
  {
    name: "zh.quantity",
    does: "asksQuantity",
    pattern: /多少|几/,
    means: "多少, 几",
    why: "As en.quantity: a question for a number is answered by a turn that states one.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No Chinese question in the sets asks for a quantity.",
    counterpart: "en.quantity",
  },
  {
    name: "zh.measure",
    does: "asksMeasure",
    pattern: /多少(?:钱|小时|天|年|公里|分钟)|几(?:天|年|小时|次|个月|公里|分钟)/,
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
    pattern: /？|什么|哪|谁|几|多少|怎么|吗/,
    means: "a full-width question mark, or a question word anywhere (什么, 哪, 谁, 几, 多少, 怎么, 吗)",
    why: "As en.question: Chinese question words stay where the answer goes, so anywhere in the question.",
    measured:
      "Off: LongMemEval unchanged; LoCoMo unchanged; chat unchanged. No speaker in the Chinese chat set is named assistant.",
    counterpart: "en.question",
  },
];
