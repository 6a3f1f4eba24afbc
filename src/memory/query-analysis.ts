/**
 * What a question's wording says about what it asks, read once per query by rankEvents
 * (src/memory/relevance.ts): whether it asks for a quantity, a measure, the time between two
 * things or the present state, whether it addresses the assistant or asks what the assistant
 * said, whether it is a question and in the first person, and the question without the words
 * that only frame it. The rules are data, one table per language (query-rules-en.ts,
 * query-rules-zh.ts), each rule with what its words mean, why it exists and what it measured;
 * this file only applies them. favour-answers.ts turns the findings into weights.
 */
import { QUERY_RULES_EN } from "./query-rules-en.ts";
import { QUERY_RULES_ZH } from "./query-rules-zh.ts";

/** What the rules find in a question. */
export interface QueryAnalysis {
  /** It asks for a number ("How many babies …", "What is the total …", 多少, 几个). */
  asksQuantity: boolean;
  /** It asks for a measure someone said ("How many hours …", "how much", 多少钱, 几天). */
  asksMeasure: boolean;
  /** It asks for the time between two things ("How many days before …", "how long ago"). */
  asksTimeBetween: boolean;
  /** It asks about the present state ("these days", "currently", 现在, 目前). */
  asksPresentState: boolean;
  /** It addresses the assistant ("you", 你), beyond a request for advice's "you". */
  addressesAssistant: boolean;
  /** It asks what the assistant said ("the list you provided", 你说过). */
  asksWhatAssistantSaid: boolean;
  /** It is a question, not a request ("Continue the story."). */
  isQuestion: boolean;
  /** It is in the person's own voice ("I", "my", 我). */
  firstPerson: boolean;
  /** It asks for advice ("Can you suggest …", 你能推荐): its earlier askings say what the person cares about. */
  asksAdvice: boolean;
  /** The question without the words that only frame it (each removed rule's words become a space). */
  unframed: string;
}

/** A finding a rule can make: one of QueryAnalysis's flags. */
export type Finding = Exclude<keyof QueryAnalysis, "unframed">;

/** One rule of a language's table. */
export interface QueryRule {
  /** Unique over both tables, prefixed by the language ("en.quantity"): what a benchmark turns off by. */
  name: string;
  /** What the rule does when its pattern matches: sets a finding, or removes the words it matched. */
  does: Finding | "frame";
  /**
   * A finding reads the whole question, unless `unframed`: then the question as the framing
   * rules left it (a request for advice's "you" does not address the assistant).
   */
  reads?: "unframed";
  /** A framing rule may also find something: a request for advice is framing, and says what is asked. */
  alsoFinds?: Finding;
  /** For "frame", global (every occurrence leaves); the language's words only. */
  pattern: RegExp;
  /** What the words mean, as a person would say it. */
  means: string;
  /** Why the rule exists: what a question that has these words wants. */
  why: string;
  /**
   * What it measured on the development sets, read by turning it off (bench/recall/tune.ts
   * with `{"rulesOff":["<name>"]}`; docs/BENCHMARKS.md, 2026-12-05): "Off: with → without" for
   * LongMemEval dev R@5 (R@10 where it moved) of user turns and of all turns, LoCoMo dev R@10
   * and the generated chat set's R@10 in English and Chinese.
   */
  measured: string;
  /** The other table's rule that does the same, or why there is none. */
  counterpart: string | { none: string };
}

/** Both tables, English first; framing rules apply in table order. */
export const QUERY_RULES: readonly QueryRule[] = [...QUERY_RULES_EN, ...QUERY_RULES_ZH];

const NO_RULES_OFF: readonly string[] = [];

/**
 * What `text` asks, by the rules of both tables. `rulesOff` names rules to skip: a benchmark's
 * way to measure what one rule adds (LexicalParams.rulesOff); the daemon passes none.
 */
export function analyseQuery(text: string, rulesOff: readonly string[] = NO_RULES_OFF): QueryAnalysis {
  const rules = rulesOff.length === 0 ? QUERY_RULES : QUERY_RULES.filter((r) => !rulesOff.includes(r.name));
  let unframed = text;
  for (const r of rules) if (r.does === "frame") unframed = unframed.replace(r.pattern, " ");
  const found: QueryAnalysis = {
    asksQuantity: false,
    asksMeasure: false,
    asksTimeBetween: false,
    asksPresentState: false,
    addressesAssistant: false,
    asksWhatAssistantSaid: false,
    isQuestion: false,
    firstPerson: false,
    asksAdvice: false,
    unframed,
  };
  for (const r of rules) {
    if (r.does === "frame") {
      if (r.alsoFinds && text.search(r.pattern) >= 0) found[r.alsoFinds] = true;
      continue;
    }
    if (found[r.does]) continue;
    // search, not test: it ignores a global pattern's lastIndex.
    if ((r.reads === "unframed" ? unframed : text).search(r.pattern) >= 0) found[r.does] = true;
  }
  return found;
}
