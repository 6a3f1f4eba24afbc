/**
 * Past questions are not answers. A person who asks "What colour is my bicycle?" in one chat and
 * again in another would otherwise be shown the first asking — it holds every word of the
 * question — and the assistant's reply that only echoed it ("I don't know what colour your
 * bicycle is"), not the turn that says "my bike is a red Gazelle". A turn that asks and holds
 * little besides the query's own words asks what the query asks; an assistant's turn made of the
 * query's words echoes it. Either counts a hundredth, so the statement comes first; an asking
 * that someone answered with something of their own stays, as half of that exchange. An
 * assistant's reply that only says back the person's turn before it ("Nice bike!") ranks after
 * that turn, never above it. A turn that asks
 * and also tells ("I bought a scarf for my sister, can you suggest wrapping?") holds words of its
 * own and is left alone. Every asking counted less for a question (× 0.8, × 0.6) lost LongMemEval
 * user turns 0.8–1.0 points of R@5: a person's questions to an assistant carry their facts.
 */
import { type ConvIndex, PostingsCursor } from "./conv-index.ts";

/** A question: ends with a question mark, or in Chinese with 吗 / 呢. */
const ASKS = /[?？]\s*["'”’)）]*\s*$|[吗呢][。.!！]?\s*$/u;

/** Whether a text asks (indexed per event). */
export function asks(text: string): boolean {
  return ASKS.test(text.trim());
}

/**
 * Whether every sentence of a text asks ("Which relative is coming to live with us? And when?"):
 * such a turn tells nothing, though it holds the words of what it asked about. A turn that also
 * tells ("I bought a scarf for my sister. Can you suggest wrapping?") does not only ask.
 */
export function onlyAsks(text: string): boolean {
  const sentences = text
    .split(/(?<=[.!?。！？])\s*|\n+/u)
    .map((s) => s.trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s));
  return sentences.length > 0 && sentences.every((s) => ASKS.test(s));
}

/**
 * An assistant's reply that says it does not know ("I don't know what colour your bicycle is",
 * "you haven't told me", 我不知道, 你没有告诉过我): it answers nothing, and the question it
 * replied to went unanswered.
 */
const ABSTAINS =
  /\b(?:i\s+(?:do\s+not|don['’]t)\s+(?:know|have\s+(?:any\s+)?(?:information|details|a\s+record))|i\s+have\s+no\s+(?:idea|information|record)|i['’]m\s+not\s+sure\s+(?:what|which|where|when|who|how)|you\s+(?:have\s+not|haven['’]t|did\s+not|didn['’]t)\s+(?:told|tell|mentioned|mention|said|say|shared|share)|i\s+(?:can(?:not|['’]t)|do\s+not|don['’]t)\s+(?:recall|remember))\b|我(?:并)?不(?:知道|清楚|记得)|你(?:还)?没(?:有)?(?:告诉|提到|说)过?/i;

/** Whether an assistant's text says it does not know (indexed per event). */
export function abstains(text: string): boolean {
  return ABSTAINS.test(text);
}

/**
 * A reply made only of an acknowledgement ("ok, noted.", "Got it!", "Thanks for telling me.", 好的，
 * 记下了。, 明白了): it adds nothing of its own, so the question it followed went unanswered.
 */
const ACKNOWLEDGES =
  /^(?:(?:ok(?:ay)?|sure|alright|all right|noted|got it|understood|i see|will do|thanks?(?: you)?(?: for (?:telling|letting) me(?: know)?)?|good to know|nice|great|cool|好的?|好吧|嗯+|哦+|明白了?|收到了?|记下了?|记住了?|知道了|了解了?|谢谢(?:你)?(?:告诉我)?|没问题)[\s,.!~。，！、…]*)+$/iu;

/** Whether an assistant's text tells nothing: it says it does not know, or it only acknowledges (indexed per event). */
export function tellsNothing(text: string): boolean {
  const t = text.trim();
  return ABSTAINS.test(t) || (t.length <= 60 && ACKNOWLEDGES.test(t));
}

/** What a reply that says back the turn before scores at most, as a share of that turn's score. */
const ECHO_SHARE = 0.9;

/** The assistant's speaker name as the index holds it (stemmed). */
const ASSISTANT_TERM = "assist";

/** Weights: see LexicalParams.pastAsking, .echo and .restates. */
export interface PastAskingWeights {
  pastAsking: number;
  echo: number;
  restates: number;
}

/** Cut, in `scores`, the turns that only restate the query `words` (distinct index terms). */
export function cutPastAskings(
  ci: ConvIndex,
  words: readonly string[],
  w: PastAskingWeights,
  scores: Float64Array,
): void {
  if (w.pastAsking <= 0 || words.length === 0) return;
  const [shared, assistant] = ci.docScratch();
  for (const t of new Set(words)) {
    const p = ci.words.get(t);
    if (!p) continue;
    const c = new PostingsCursor(p);
    while (c.next()) shared[c.doc] = (shared[c.doc] as number) + 1;
  }
  const a = ci.speakers.get(ASSISTANT_TERM);
  if (a) {
    const c = new PostingsCursor(a);
    while (c.next()) assistant[c.doc] = 1;
  }
  const f = 1 - w.pastAsking;
  const asked = new Set(words).size;
  // Mostly the query's words, and most of the query's words: the same question again, or its echo.
  const restates = (d: number) => {
    const n = ci.distinct[d] as number;
    const s = shared[d] as number;
    return n > 0 && s / n >= w.echo && s / asked >= w.restates;
  };
  for (let d = 0; d < ci.size; d++) {
    if ((scores[d] as number) <= 0) continue;
    // A reply that says back the turn before ("Nice bike!") ranks after it, never above.
    if (ci.echoesBefore[d] === 1 && d > 0 && ci.adjacent(d - 1, d)) {
      const before = scores[d - 1] as number;
      if (before > 0 && (scores[d] as number) > ECHO_SHARE * before) scores[d] = ECHO_SHARE * before;
    }
    // A reply that says it does not know tells nothing.
    if (ci.abstains[d] === 1) {
      scores[d] = (scores[d] as number) * f;
      continue;
    }
    if ((ci.asks[d] !== 1 && assistant[d] !== 1) || !restates(d)) continue;
    // An asking answered by someone who told something ("Did you try that gym?" — "Yes! We went
    // last Saturday.") is half of an exchange that holds the answer: it stays.
    const answered = ci.adjacent(d, d + 1) && !restates(d + 1) && ci.abstains[d + 1] !== 1;
    if (ci.asks[d] === 1 && answered) continue;
    scores[d] = (scores[d] as number) * f;
  }
}
