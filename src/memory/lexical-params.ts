/**
 * The lexical scorer's parameters (src/memory/relevance.ts): textbook BM25, and the default
 * scorer with what each signal weighs (docs/BENCHMARKS.md says what each gained).
 */

/**
 * hybrid: what the agent uses. bm25: plain BM25 over words (the classic baseline).
 * bm25c: BM25 over words and concepts. recent: newest first.
 */
export type ScorerName = "hybrid" | "bm25" | "bm25c" | "recent";

export interface LexicalParams {
  k1: number;
  b: number;
  /**
   * Weight of a query word met by the turn's speaker name, relative to one met in its text. 0 by
   * default: a person's name weighs as a factor (`named`), and a role said in the question
   * ("user", "assistant") moved nothing at 0.3 on any set (LongMemEval dev user and all turns,
   * LoCoMo dev, chat, facts; docs/BENCHMARKS.md 2026-12-05, query analysis), where the question-form
   * rules (query-rules-en.ts en.assistant-said, en.to-assistant) say whose turns a question wants.
   */
  speaker: number;
  /**
   * Weight, relative to another word, of a query word that is the name of a person who speaks in
   * the conversation ("What did Caroline paint?"), met in a turn's text: there it mostly
   * addresses that person ("Hey Caroline!", said by the other), and says nothing of what the
   * turn is about. Roles ("user", "assistant") are words like any other.
   */
  nameInText: number;
  /**
   * Boost (× 1 + this) of the turns said by a person the query names ("What did Caroline …"):
   * in place of the speaker weight for a person's name (src/memory/named-speakers.ts). 0: a name
   * takes the speaker weight as a role does.
   */
  named: number;
  /** Weight of a concept bridge (a query word's concept met by a turn's word, or the reverse). */
  concepts: number;
  /** Weight of a concept that the query's words and a turn's words both stand for. */
  sharedConcepts: number;
  /** Share of each adjacent turn's (same session) score a turn receives. */
  neighbours: number;
  /**
   * Turn length (words) at which a turn takes half the neighbours' share: a short turn ("Yes! We
   * went last week.") means what its neighbours say, a long one stands on its own. 0: every turn
   * takes the full share.
   */
  neighbourLen: number;
  /**
   * Share (× the neighbours' share) a turn takes from the turn two away, through a short turn
   * between that links both ("Where to?"), scaled like a neighbour's share by that turn's length.
   */
  twoHop: number;
  /**
   * Turn length (words) at which a person's turn after a question (in a dialogue between people)
   * takes half of answerShare: an answer means what the question asks however long it runs, so
   * this is far longer than neighbourLen. 0: it takes the share any neighbour takes.
   */
  answerLen: number;
  /**
   * Share of a question's score its answer takes (scaled by answerLen): the answer means
   * what the question asks, so the whole of it, where another neighbour takes `neighbours`.
   */
  answerShare: number;
  /** Weight of the session's own BM25 (the session as one document), normalised, beside the turn's. */
  session: number;
  /**
   * Average turn length (indexed words) above which the session weighs more, up to twice at
   * twice this length; 0: always `session`.
   */
  sessionLen: number;
  /** Boost (× 1 + this) of a turn said within the span the query names ("two weeks ago"). */
  time: number;
  /**
   * 1: a calendar date the query names ("on 13 October 2023", "in May 2023", 2023年5月) is such a
   * span too, with or without the time the query is asked (src/memory/time.ts dateWindow); 0: only
   * spans relative to that time.
   */
  dates: number;
  /** What a turn said within that span gains regardless of its words, as a share of the best score. */
  timeFloor: number;
  /** Further boost (× 1 + this) of a turn said within that span that says "today" (time.ts saysToday). */
  today: number;
  /** Boost (× 1 + this) of a turn stating a number when the query asks how many ("How many babies …"). */
  quantity: number;
  /**
   * The same boost when the query asks for a measure, which is answered by a number said
   * ("How many hours …", "how much", "the total amount"; src/memory/query-analysis.ts).
   */
  measure: number;
  /**
   * Cut (× 1 − this) of the assistant's turns when the query, a question or in the first person,
   * does not address the assistant ("Can you suggest …" does not count), and of the other turns
   * when it asks what the assistant said (src/memory/query-analysis.ts).
   */
  assistant: number;
  /**
   * Boost of the newest matching turn (× 1 + this, the oldest × 1, in between by position) when
   * the query asks for the present state ("these days", "currently", 现在).
   */
  current: number;
  /**
   * Weight (relative to a whole word) of the conversation's words that stand in for a Chinese
   * query word it never uses (src/memory/han-parts.ts: 王芳订 → 王芳, 订; 狗 → 小狗).
   */
  hanParts: number;
  /**
   * 1: the words that only frame the query leave it ("these days", "earlier", "can you suggest";
   * src/memory/query-analysis.ts); 0: every word counts.
   */
  framing: number;
  /**
   * Cut (× 1 − this) of a turn that asks what the query asks, or of an assistant's turn that only
   * echoes it: past questions are not answers (src/memory/past-askings.ts).
   */
  pastAsking: number;
  /** Share of a turn's distinct words that the query holds, from which the turn only restates it. */
  echo: number;
  /** Share of the query's distinct words the turn must hold too (it asks the same thing). */
  restates: number;
  /**
   * For a question that adds things up (it asks how many or how much, and not what the assistant
   * said), a session's further turns among the best count (1 − this) times less for each of its
   * turns ranked before them (src/memory/session-spread.ts); 0: ranked by score alone.
   */
  spread: number;
  /**
   * Query-analysis rules to skip, by name ("en.hedge"; src/memory/query-rules-en.ts,
   * query-rules-zh.ts): how a benchmark measures what one rule adds. None by default.
   */
  rulesOff: readonly string[];
}

/** Textbook BM25 over words (Robertson's k1 and b), nothing else. */
export const PLAIN_BM25: LexicalParams = {
  k1: 1.2,
  b: 0.75,
  speaker: 0,
  nameInText: 1,
  named: 0,
  concepts: 0,
  sharedConcepts: 0,
  neighbours: 0,
  neighbourLen: 0,
  twoHop: 0,
  answerLen: 0,
  answerShare: 0,
  session: 0,
  sessionLen: 0,
  time: 0,
  dates: 0,
  timeFloor: 0,
  today: 0,
  quantity: 0,
  measure: 0,
  assistant: 0,
  current: 0,
  hanParts: 0,
  framing: 0,
  pastAsking: 0,
  echo: 1,
  restates: 1,
  spread: 0,
  rulesOff: [],
};

export const DEFAULT_PARAMS: LexicalParams = {
  k1: 1.2,
  b: 0.75,
  speaker: 0,
  nameInText: 0,
  named: 0.3,
  concepts: 0.2,
  sharedConcepts: 0.1,
  neighbours: 0.5,
  neighbourLen: 10,
  twoHop: 0.2,
  answerLen: 100,
  answerShare: 1,
  session: 0.1,
  sessionLen: 12,
  time: 1,
  dates: 1,
  timeFloor: 0.3,
  today: 1,
  quantity: 0.3,
  measure: 0.7,
  assistant: 0.5,
  current: 0.2,
  hanParts: 0.5,
  framing: 1,
  pastAsking: 0.99,
  echo: 0.5,
  restates: 0.67,
  spread: 0.2,
  rulesOff: [],
};
