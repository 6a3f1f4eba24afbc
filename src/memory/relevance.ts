/**
 * How relevant each remembered event is to the current input: the one scorer the agent's
 * pruning, cold recall and `homed recall` share. Lexical: BM25 over a conversation's own
 * statistics (src/memory/conv-index.ts), plus what a turn means beyond its own words, each at a
 * lower weight and each kept only because it gained on the sets without losing on any (the
 * measurements, and what was tried and rejected: docs/BENCHMARKS.md, "How the lexical scorer's
 * signals were chosen"):
 *   - its neighbours (src/memory/neighbours.ts): a short reply ("Yes! We went last week.") takes
 *     part of the score of the turn it answers, a long self-contained turn almost none; between
 *     people, the turn after a question takes the question's whole score (not for an assistant's
 *     reply, which would rise above the turns that told the facts);
 *   - its session as one document, fused at a tenth of the turn's weight, up to a fifth when the
 *     conversation's turns are long and self-contained;
 *   - the speakers: the turns of a person the question names count 1.3 times
 *     (src/memory/named-speakers.ts); a name in a turn's text weighs nothing, since said there it
 *     mostly addresses that person;
 *   - concept bridges (WordNet, CC-CEDICT) at a fifth of a shared word, a tenth when only the
 *     concepts meet;
 *   - a Chinese query word no turn uses, which jieba made by joining a name or a character to its
 *     neighbour, stands for the words that make it up at half weight (src/memory/han-parts.ts);
 *   - the span the question names ("two weeks ago", a calendar date; src/memory/time.ts): turns
 *     said then count double and gain a share of the best score, and the phrase's own words
 *     leave the query;
 *   - what the question asks for (src/memory/query-analysis.ts): a turn stating a number for a
 *     measure or a count, the person's or the assistant's turns as the question addresses them,
 *     the newer of the matching turns for the present state;
 *   - a question that adds things up takes its turns from several sessions
 *     (src/memory/session-spread.ts);
 *   - words that only frame the question ("these days", "Can you suggest …") leave it;
 *   - past questions are not answers (src/memory/past-askings.ts): a turn that asks what the
 *     query asks and was not answered counts a hundredth.
 * With a dense model installed, dense cosine brings its own candidates and half of the score
 * (a first, untuned split: no real model has been measured yet).
 */
import { type ConvIndex, type Postings, PostingsCursor } from "./conv-index.ts";
import type { LexicalIndex, Scored } from "./lexical-index.ts";
import { hanParts } from "./han-parts.ts";
import { lendToNeighbours } from "./neighbours.ts";
import { favourAnswers } from "./favour-answers.ts";
import { favourNamedSpeakers } from "./named-speakers.ts";
import { analyseQuery } from "./query-analysis.ts";
import { dateWindow, timeWindow, withoutTimePhrases } from "./time.ts";
import { cutPastAskings } from "./past-askings.ts";
import { spreadSessions } from "./session-spread.ts";
import { DEFAULT_PARAMS, type LexicalParams, PLAIN_BM25, type ScorerName } from "./lexical-params.ts";

export { DEFAULT_PARAMS, type LexicalParams, PLAIN_BM25, type ScorerName };

/** Membership of event ids (a Set, or a lookup in sorted ids that allocates nothing). */
export interface IdSet {
  has(id: number): boolean;
}

export interface RankOptions {
  /** Only events with id >= minId (a conversation's current generation). */
  minId?: number;
  scorer?: ScorerName;
  params?: LexicalParams;
  /** Event ids of the conversation in order (the "recent" scorer; empty: all the index holds). */
  ids: readonly number[];
  /** Only the best `limit` (all when absent): a cold query needs a few, pruning needs every score. */
  limit?: number;
  /** Only these event ids compete (cold recall ranks the events in L2; cross-conversation recall, other conversations'). */
  among?: IdSet;
  /** Rank this index instead of `conv`'s own (a person-wide index: src/memory/person-index.ts). */
  index?: ConvIndex;
  /** When the query is asked, epoch milliseconds (for "last week"); unknown: no time-awareness. */
  time?: number | null;
  /**
   * The first event id of the turn asking, when it is logged already: its events still count in
   * the normalisation (a match as good as the question itself scores 1), but lend nothing to
   * the turns around them.
   */
  askedFrom?: number;
  /** Dense cosines of events with the query, when a model is installed. */
  dense?: ReadonlyMap<number, number> | null;
}

/** With a dense model, half the score is dense cosine, half the lexical one. */
const DENSE_SHARE = 0.5;
/** Dense candidates considered beside the lexical ones. */
const DENSE_CANDIDATES = 200;

/**
 * The largest of `a` (0 for none above it). An indexed loop: `for (const x of a)` over a typed
 * array goes through the iterator protocol, and over a person-wide index's million documents
 * those loops were a quarter of a query's time (docs/BENCHMARKS.md, make bench-scale).
 */
function maxOf(a: Float64Array): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) if ((a[i] as number) > max) max = a[i] as number;
  return max;
}

/** Adds `weight` × BM25 term weight of every posting into `into`. */
function accumulate(
  ci: ConvIndex,
  p: Postings,
  idf: number,
  weight: number,
  k1: number,
  b: number,
  into: Float64Array,
): void {
  const avg = ci.avgLen;
  const c = new PostingsCursor(p);
  while (c.next()) {
    const d = c.doc;
    const tf = c.tf;
    into[d] =
      (into[d] as number) + (weight * idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * (ci.lens[d] as number)) / avg));
  }
}

/** Session-level BM25: each session's turns as one document. */
function sessionScores(
  ci: ConvIndex,
  terms: readonly string[],
  k1: number,
  b: number,
  nameInText: number,
): Float64Array {
  const n = ci.sessionCount;
  const out = new Float64Array(n);
  if (n === 0) return out;
  const len = new Float64Array(n);
  for (let d = 0; d < ci.size; d++) {
    const s = ci.sessions[d] as number;
    if (s >= 0) len[s] = (len[s] as number) + (ci.lens[d] as number);
  }
  let total = 0;
  for (let i = 0; i < n; i++) total += len[i] as number;
  const avg = Math.max(total / n, 1);
  const tf = new Float64Array(n);
  for (const t of terms) {
    const p = ci.words.get(t);
    if (!p) continue;
    tf.fill(0);
    const touched: number[] = [];
    const c = new PostingsCursor(p);
    while (c.next()) {
      const s = ci.sessions[c.doc] as number;
      if (s < 0) continue;
      if (tf[s] === 0) touched.push(s);
      tf[s] = (tf[s] as number) + c.tf;
    }
    // A speaker's name weighs in a session's text as in a turn's (LexicalParams.nameInText).
    const idf = Math.log(1 + (n - touched.length + 0.5) / (touched.length + 0.5)) * (ci.names.has(t) ? nameInText : 1);
    for (const s of touched) {
      const f = tf[s] as number;
      out[s] = (out[s] as number) + (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * (len[s] as number)) / avg));
    }
  }
  return out;
}

/**
 * Lexical scores of every document of `ci` (0 for those that share nothing with the query), in
 * one of `ci`'s score buffers: valid until the next query on `ci`.
 */
export function lexicalScores(
  ci: ConvIndex,
  words: readonly string[],
  concepts: readonly string[],
  p: LexicalParams,
  /** The asking turn's first event id: its events lend nothing to their neighbours. */
  askedFrom?: number,
): Float64Array {
  const n = ci.size;
  const [turn, spare] = ci.scoreBuffers();
  const terms = [...new Set(words)];
  for (const t of terms) {
    const w = ci.words.get(t);
    // A speaker's name said in a turn mostly addresses them ("Hey Caroline!"): the turn is
    // theirs when they say it (the speaker weight below), not when it names them.
    if (w) accumulate(ci, w, ci.idf(w.n), ci.names.has(t) ? p.nameInText : 1, p.k1, p.b, turn);
    // A person's name weighs as a factor instead (src/memory/named-speakers.ts); a role here.
    if (p.speaker > 0 && !(p.named > 0 && ci.names.has(t))) {
      const s = ci.speakers.get(t);
      if (s) accumulate(ci, s, ci.idf(s.n), p.speaker, p.k1, 0, turn);
    }
    if (p.concepts > 0) {
      // A turn that says what the query word stands for ("surgeon" for "doctor").
      const c = ci.concepts.get(t);
      if (c) accumulate(ci, c, ci.idf(c.n), p.concepts, p.k1, p.b, turn);
    }
  }
  if (p.hanParts > 0)
    for (const part of hanParts(ci, terms)) {
      const w = ci.words.get(part);
      if (w) accumulate(ci, w, ci.idf(w.n), p.hanParts, p.k1, p.b, turn);
      const s = p.speaker > 0 && !(p.named > 0 && ci.names.has(part)) ? ci.speakers.get(part) : undefined;
      if (s) accumulate(ci, s, ci.idf(s.n), p.hanParts * p.speaker, p.k1, 0, turn);
    }
  if (p.concepts > 0) {
    // A turn whose word is one of the query's concepts ("physician" for "doctor").
    for (const c of new Set(concepts)) {
      const w = ci.words.get(c);
      if (w) accumulate(ci, w, ci.idf(w.n), p.concepts, p.k1, p.b, turn);
      // Both sides stand for the same concept (城市 and 杭州 both for "city").
      const cc = p.sharedConcepts > 0 ? ci.concepts.get(c) : undefined;
      if (cc) accumulate(ci, cc, ci.idf(cc.n), p.sharedConcepts, p.k1, p.b, turn);
    }
  }
  let out = turn;
  if (p.neighbours > 0) {
    // Each matching turn lends a share of its score to the turns around it (src/memory/neighbours.ts).
    out = spare;
    lendToNeighbours(ci, turn, out, p, askedFrom);
  }
  if (p.session > 0 && ci.sessionCount > 0) {
    const sess = sessionScores(ci, terms, p.k1, p.b, p.nameInText);
    // Sessions of long, self-contained turns (a person working one task through with an
    // assistant) are about one thing; sessions of short chat turns wander. The session's weight
    // grows from `session` to twice that as the average turn grows from sessionLen words to twice.
    const weight = p.sessionLen > 0 ? p.session * Math.min(2, Math.max(1, ci.avgLen / p.sessionLen)) : p.session;
    const maxS = maxOf(sess);
    const maxT = maxOf(out);
    if (maxS > 0 && maxT > 0) {
      for (let d = 0; d < n; d++) {
        const g = ci.sessions[d] as number;
        if (g >= 0 && (out[d] as number) > 0)
          out[d] = (out[d] as number) / maxT + (weight * (sess[g] as number)) / maxS;
        else out[d] = (out[d] as number) / maxT;
      }
    }
  }
  return out;
}

function byScore(a: Scored, b: Scored): number {
  return b.score - a.score || b.id - a.id;
}

/**
 * What of a question is matched against memory: its words less the phrases that only frame it
 * ("Can you remind me …", "these days") and, when it names a span, less the span's own phrase
 * ("two weeks ago"); the span itself, and what the question asks for.
 */
export function askedOf(
  text: string,
  params: LexicalParams,
  time: number | null | undefined,
): { span: ReturnType<typeof timeWindow>; query: ReturnType<typeof analyseQuery>; matched: string } {
  // A calendar date needs no "now" ("on 13 October 2023"); a relative span does ("last week").
  const span =
    params.time <= 0
      ? null
      : ((params.dates > 0 ? dateWindow(text) : null) ?? (typeof time === "number" ? timeWindow(text, time) : null));
  const query = analyseQuery(text, params.rulesOff);
  const asked = params.framing > 0 ? query.unframed : text;
  return { span, query, matched: span ? withoutTimePhrases(asked) : asked };
}

/** Event ids of `conv` ranked by relevance to `text`, best first, scores normalised to the best = 1. */
export function rankEvents(index: LexicalIndex, conv: string, text: string, opts: RankOptions): Scored[] {
  const minId = opts.minId ?? 0;
  const scorer = opts.scorer ?? "hybrid";
  const ci = opts.index ?? index.conv(conv, minId);
  if (scorer === "recent") {
    const all = opts.ids.length ? opts.ids : Array.from(ci.ids.subarray(0, ci.size));
    const ids = all.filter((id) => id >= minId && (!opts.among || opts.among.has(id))).reverse();
    return ids.slice(0, opts.limit ?? ids.length).map((id, i) => ({ id, score: 1 / (i + 1) }));
  }
  const params =
    scorer === "bm25"
      ? PLAIN_BM25
      : scorer === "bm25c"
        ? { ...PLAIN_BM25, concepts: 0.5, sharedConcepts: 0.5 }
        : (opts.params ?? DEFAULT_PARAMS);
  const { span, query, matched } = askedOf(text, params, opts.time);
  const { words, concepts } = index.analyse(matched, params.nameInText < 1 ? ci.names : undefined);
  const scores = lexicalScores(ci, words, concepts, params, opts.askedFrom);
  favourAnswers(ci, query, params, scores);
  favourNamedSpeakers(ci, words, params.named, params.hanParts > 0, scores);
  // A request for advice is answered by what the person said about it, asking included.
  if (!query.asksAdvice) cutPastAskings(ci, words, params, scores);
  if (span) {
    // A turn said then counts even when it shares no word with the question ("What did I do in
    // the garden two weeks ago?" — "I planted tomatoes today"): a floor of a share of the best,
    // or the whole score when no word matched at all.
    const top = maxOf(scores);
    const add = params.timeFloor * (top > 0 ? top : 1);
    for (let d = 0; d < ci.size; d++) {
      const at = ci.times[d] as number;
      if (!(at >= span.from && at <= span.to)) continue; // NaN (unknown time) too
      const s = (scores[d] as number) * (1 + params.time) + add;
      scores[d] = ci.today[d] === 1 ? s * (1 + params.today) : s;
    }
  }
  // A count or a total is made of things told in several sessions; one reply of the assistant's
  // ("how many eggs did you say?") is not.
  if (query.asksQuantity && !query.asksWhatAssistantSaid) spreadSessions(ci, scores, params.spread);
  const among = opts.among;
  // Normalised by the best of the whole conversation, `among` or not: a cold event scores 1 only
  // when nothing in the conversation matches better (cold recall's threshold relies on that).
  const max = maxOf(scores);
  const dense = opts.dense && scorer === "hybrid" ? opts.dense : null;
  const limit = dense ? undefined : opts.limit;
  const lexical = max > 0 ? best(ci, scores, max, among, limit) : [];
  if (!dense) return lexical;
  const denseTop = [...dense]
    .filter(([id, c]) => id >= minId && c > 0 && (!among || among.has(id)))
    .map(([id, c]) => ({ id, score: c }))
    .sort(byScore)
    .slice(0, DENSE_CANDIDATES);
  const denseMax = denseTop[0]?.score ?? 0;
  const fused = new Map<number, number>();
  for (const x of lexical) fused.set(x.id, (1 - DENSE_SHARE) * x.score);
  if (denseMax > 0)
    for (const x of denseTop) fused.set(x.id, (fused.get(x.id) ?? 0) + (DENSE_SHARE * x.score) / denseMax);
  const out = [...fused].map(([id, score]) => ({ id, score })).sort(byScore);
  return opts.limit === undefined ? out : out.slice(0, opts.limit);
}

/**
 * Documents with a positive score (among `among`, when given), scores divided by `max`, best
 * first; with `limit`, only that many, picked in one pass instead of sorting them all (at 100k
 * events the sort was most of a query's time).
 */
function best(
  ci: ConvIndex,
  scores: Float64Array,
  max: number,
  among: IdSet | undefined,
  limit: number | undefined,
): Scored[] {
  const out: Scored[] = [];
  let floor = 0;
  for (let d = 0; d < ci.size; d++) {
    const s = scores[d] as number;
    if (s <= 0 || (limit !== undefined && out.length >= limit && s < floor)) continue;
    const id = ci.ids[d] as number;
    if (among && !among.has(id)) continue;
    out.push({ id, score: s / max });
    if (limit !== undefined && out.length > limit * 4) {
      out.sort(byScore).length = limit;
      floor = (out[limit - 1] as Scored).score * max;
    }
  }
  out.sort(byScore);
  if (limit !== undefined && out.length > limit) out.length = limit;
  return out;
}
