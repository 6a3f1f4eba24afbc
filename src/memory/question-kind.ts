/**
 * What a question asks for, read from its wording, and the turns that could answer it favoured
 * accordingly (answer-type matching, as passage retrieval for question answering does it):
 *   - a question for a quantity ("How many hours…", "What is the total…", 多少) is answered by a
 *     turn that states a number ("I spent around 70 hours…"), in digits or in words: a turn
 *     stating one counts 1.7 times for a measure (hours, days, money, "how much", "total"), 1.3
 *     times for a count of things ("How many babies …", whose turns need state no number);
 *   - a question in the person's own voice that does not address the assistant ("What did I buy…",
 *     not "What did you recommend…"), or any question that does not ("How many babies were born
 *     to friends …?"; a request such as "Continue the story." is left alone), is answered by what
 *     the person said: the assistant's replies echo the topic at length and rarely hold the
 *     person's facts. "Can you suggest a hotel for my trip?" asks for advice that fits what the
 *     person said: its "you" only frames the request. The other way round, a question about what
 *     the assistant said ("the list you provided", "what did you say") is answered by the
 *     assistant's turns, and the person's count less. Both only act where a speaker is named
 *     "assistant" (LongMemEval's roles, OpenAI's and the recall protocol's); people's names in a
 *     dialogue between people are never touched;
 *   - a question about the present state ("What exercise does she do these days?", "Where do I
 *     currently keep …", "so far", 现在, 目前) is answered by the newest of the turns that match:
 *     what someone says now replaces what they said before ("I do yoga every morning" … months
 *     later "switched to swimming"). A matching turn counts up to 1.2 times, in proportion to
 *     its place in the conversation (oldest × 1, newest × 1.2). Only the question's words
 *     decide: "the current job", "from earliest to latest" ask for no present state; "these days",
 *     "so far", "at the moment" leave the query (see withoutFraming). Without
 *     such words newer turns are not favoured: a recency prior for every question lost a
 *     LongMemEval question from the top 10 (docs/BENCHMARKS.md, 2026-12-02).
 * All only reorder turns that already match; none brings in a turn that shares no word.
 */
import { type ConvIndex, PostingsCursor } from "./conv-index.ts";

/** A question whose answer is a number. */
const QUANTITY_QUESTION = /\bhow\s+(?:many|much|long|often|old|far)\b|\btotal\b|\bnumber\s+of\b|多少|几/i;
/**
 * Of those, a question for a measure ("How many hours …", "how much", "the total amount", 多少钱):
 * its answer is a number someone said. "How many babies were born …" counts what was told, and
 * the turns that tell it ("David had a baby boy") need state no number.
 */
const MEASURE_QUESTION =
  /\bhow\s+(?:much|long|often|old|far)\b|\bhow\s+many\s+(?:[\w-]+\s+)?(?:hours?|days?|weeks?|months?|years?|minutes?|seconds?|times|miles?|kilometers?|km|pounds?|kilos?|kilograms?|dollars?|euros?|percent|pages?|steps?|calories|points?)\b|\btotal\b|多少(?:钱|小时|天|年|公里|分钟)|几(?:天|年|小时|次|个月|公里|分钟)/i;
/**
 * A measure of the time between two things ("How many days before I bought the iPhone did I
 * attend the market?", "how long ago"): answered from when each was said, not from a number
 * said, so it weighs a number as a count does.
 */
const TIME_BETWEEN =
  /\bhow\s+many\s+(?:days|weeks|months|years)\b(?:\s+\w+){0,2}\s+(?:before|after|ago|between|since|passed|earlier|later)\b|\bhow\s+long\s+ago\b|\bhow\s+long\s+(?:had|has)\s+it\s+been\b/i;
/** A question addressed to the assistant ("you", "your"). */
const TO_ASSISTANT = /\byou(?:r|rs|rself)?\b|你|您/i;
/** A question about what the assistant said before. */
const ASSISTANT_SAID =
  /\byou\s+(?:said|told|mentioned|provided|recommended|suggested|gave|listed|shared|described|explained)\b|\bdid\s+you\s+(?:say|tell|mention|recommend|suggest|give|list|provide)\b|你(?:说|提到|推荐|建议)过/i;
/** A question about the present state (see above). */
const PRESENT_STATE =
  /\b(?:currently|now|these\s+days|nowadays|still|at\s+the\s+moment|so\s+far|most\s+recent(?:ly)?)\b|现在|目前|如今|最近|还在/i;
/** The phrases of those that say only "now": they place the question in time, like "two weeks ago". */
const PRESENT_PHRASE = /\b(?:these\s+days|nowadays|at\s+the\s+moment|so\s+far)\b/gi;
/**
 * Words that say only "before now" ("we discussed it earlier", "lately", "recently"): they place
 * the question in time too, and a turn that happens to say "earlier" is not what it asks about.
 */
const BEFORE_WORD = /\b(?:earlier|lately|recently|previously)\b/gi;
/** A question in the first person. */
const FIRST_PERSON = /\b(?:i|me|my|mine|myself)\b|我/i;
/**
 * A question, whoever it is about ("How many babies were born to friends …?"), as opposed to a
 * request ("Continue the story."), which is about the assistant's own turns without naming them.
 */
const QUESTION = /[?？]|^\s*(?:what|when|where|which|who|whose|why|how)\b|什么|哪|谁|几|多少|怎么|吗/i;
/** The assistant's speaker name as the index holds it (stemmed, like every name's terms). */
const ASSISTANT_TERM = "assist";

/** Weights of the three (see LexicalParams.quantity, .measure, .assistant and .current). */
export interface AnswerWeights {
  quantity: number;
  measure: number;
  assistant: number;
  current: number;
}

/**
 * A request for advice addressed to the assistant ("Can you suggest …", "Any tips?"): it says how
 * the question is asked, not what it is about, and a person's messages to an assistant are full
 * of it. "Which book did Tom recommend?" asks about a recommendation and keeps its word.
 */
const ADVICE_REQUEST =
  /\b(?:can|could|would)\s+you\s+(?:suggest|recommend)\b|\bany\s+(?:tips|suggestions|recommendations|ideas|advice)\b/gi;

/** Whether a question asks for advice ("Can you suggest …", "Any tips?"). */
export function asksAdvice(question: string): boolean {
  ADVICE_REQUEST.lastIndex = 0;
  return ADVICE_REQUEST.test(question);
}

/**
 * The person's hedges around what they ask ("I've been thinking about …", "I'm looking for …",
 * "but I'm not sure which one to choose"): a person's messages to an assistant are full of them,
 * and another message's "I'm not sure which one to choose" is not what this one is about. The
 * verbs only after "I": "What is Caroline thinking about doing next?" keeps its words; "not sure"
 * and "which one to choose" go whoever says them.
 */
const HEDGE =
  /\b(?:i[’']?m|i\s+am|i[’']?ve\s+been|i\s+was)\s+(?:looking\s+for|trying\s+to|thinking\s+(?:of|about)|wondering|not\s+sure|having\s+trouble(?:\s+with)?)\b|\bnot\s+sure\b|\bwhich\s+one\s+to\s+choose\b/gi;

/**
 * "different types of", "kinds of": the question asks for the members of a kind the next words
 * name ("How many different types of citrus fruits …"); another turn's "different types of
 * plant-based milk" is not one of them.
 */
const KINDS_OF = /\b(?:different\s+)?(?:types|kinds|sorts)\s+of\b/gi;

/** "How many", "how much", "how long" …: the question's form (QUANTITY_QUESTION reads it from the whole text), not its topic. */
const QUANTITY_FORM = /\bhow\s+(?:many|much|long|often|old|far)\b/gi;

/**
 * The question without the words that only frame it: those that place it in time, as a named
 * span's phrase leaves it (time.ts withoutTimePhrases) — "now" ("these days" would otherwise look
 * for turns that say "day") and "before now" ("earlier", "lately") — a request for advice, the
 * person's hedges, "types of" and "how many". Words that also name what is asked ("currently
 * keep", "still") stay.
 */
export function withoutFraming(question: string): string {
  return question
    .replace(PRESENT_PHRASE, " ")
    .replace(BEFORE_WORD, " ")
    .replace(ADVICE_REQUEST, " ")
    .replace(HEDGE, " ")
    .replace(KINDS_OF, " ")
    .replace(QUANTITY_FORM, " ");
}

/** Scale `scores` (one per document of `ci`) by what `question` asks for; in place. */
export function favourAnswers(ci: ConvIndex, question: string, w: AnswerWeights, scores: Float64Array): void {
  if (QUANTITY_QUESTION.test(question)) {
    const f = 1 + (MEASURE_QUESTION.test(question) && !TIME_BETWEEN.test(question) ? w.measure : w.quantity);
    if (f !== 1) for (let d = 0; d < ci.size; d++) if (ci.numeric[d] === 1) scores[d] = (scores[d] as number) * f;
  }
  if (w.current > 0 && ci.size > 1 && PRESENT_STATE.test(question)) {
    // Documents are in the order they were said: the newest gains the whole weight.
    const step = w.current / (ci.size - 1);
    for (let d = 0; d < ci.size; d++) scores[d] = (scores[d] as number) * (1 + step * d);
  }
  if (w.assistant <= 0) return;
  const theirs = ASSISTANT_SAID.test(question);
  // "Can you suggest a hotel for my trip?" asks for advice that fits what the person said: its
  // "you" only frames the request (ADVICE_REQUEST), it does not ask what the assistant said.
  const toAssistant = TO_ASSISTANT.test(question.replace(ADVICE_REQUEST, " "));
  if (!theirs && !((FIRST_PERSON.test(question) || QUESTION.test(question)) && !toAssistant)) return;
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
