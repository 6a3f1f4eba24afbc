/**
 * The turns that could answer a question favoured by what it asks (answer-type matching, as
 * passage retrieval for question answering does it), from the findings of query analysis
 * (src/memory/query-analysis.ts; the rules, with why each exists, in query-rules-en.ts and
 * query-rules-zh.ts):
 *   - a question for a quantity is answered by a turn that states a number, in digits or in
 *     words: such a turn counts 1.7 times for a measure ("How many hours …", "how much"), 1.3
 *     times for a count of things ("How many babies …", whose turns need state no number) and
 *     for the time between two things (told by when each was said, not by a number said);
 *   - a question in the person's own voice that does not address the assistant, or any question
 *     that does not (a request such as "Continue the story." is left alone), is answered by what
 *     the person said: the assistant's replies echo the topic at length and rarely hold the
 *     person's facts, so they count half. The other way round, a question about what the
 *     assistant said is answered by the assistant's turns, and the person's count half. Both only
 *     act where a speaker is named "assistant" (LongMemEval's roles, OpenAI's and the recall
 *     protocol's); people's names in a dialogue between people are never touched;
 *   - a question about the present state is answered by the newest of the turns that match: a
 *     matching turn counts up to 1.2 times, in proportion to its place in the conversation
 *     (oldest × 1, newest × 1.2). Without such words newer turns are not favoured: a recency
 *     prior for every question lost a LongMemEval question from the top 10 (docs/BENCHMARKS.md,
 *     2026-12-02).
 * All only reorder turns that already match; none brings in a turn that shares no word.
 */
import { type ConvIndex, PostingsCursor } from "./conv-index.ts";
import type { QueryAnalysis } from "./query-analysis.ts";

/** The assistant's speaker name as the index holds it (stemmed, like every name's terms). */
const ASSISTANT_TERM = "assist";

/** Weights of the three (see LexicalParams.quantity, .measure, .assistant and .current). */
export interface AnswerWeights {
  quantity: number;
  measure: number;
  assistant: number;
  current: number;
}

/** Scale `scores` (one per document of `ci`) by what the analysed question `q` asks for; in place. */
export function favourAnswers(ci: ConvIndex, q: QueryAnalysis, w: AnswerWeights, scores: Float64Array): void {
  if (q.asksQuantity) {
    const f = 1 + (q.asksMeasure && !q.asksTimeBetween ? w.measure : w.quantity);
    if (f !== 1) for (let d = 0; d < ci.size; d++) if (ci.numeric[d] === 1) scores[d] = (scores[d] as number) * f;
  }
  if (w.current > 0 && ci.size > 1 && q.asksPresentState) {
    // Documents are in the order they were said: the newest gains the whole weight.
    const step = w.current / (ci.size - 1);
    for (let d = 0; d < ci.size; d++) scores[d] = (scores[d] as number) * (1 + step * d);
  }
  if (w.assistant <= 0) return;
  const theirs = q.asksWhatAssistantSaid;
  if (!theirs && !((q.firstPerson || q.isQuestion) && !q.addressesAssistant)) return;
  const p = ci.speakers.get(ASSISTANT_TERM);
  if (!p) return;
  const f = 1 - w.assistant;
  const c = new PostingsCursor(p);
  if (!theirs) {
    while (c.next()) scores[c.doc] = (scores[c.doc] as number) * f;
    return;
  }
  // Every turn but the assistant's: walk its (ascending) postings beside the documents.
  let next = c.next() ? c.doc : ci.size;
  for (let d = 0; d < ci.size; d++) {
    if (d === next) next = c.next() ? c.doc : ci.size;
    else scores[d] = (scores[d] as number) * f;
  }
}
