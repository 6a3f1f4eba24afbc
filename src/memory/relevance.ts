/**
 * How relevant each remembered event is to the current input: the one scorer the agent's
 * pruning, cold recall and `homed recall` share. Lexical: BM25 over a conversation's own
 * statistics (src/memory/conv-index.ts), plus what a turn means beyond its own words, each at a
 * lower weight and each kept because it measured a gain (docs/BENCHMARKS.md, 2026-12-01):
 *   - its neighbours (src/memory/neighbours.ts): a short reply ("Yes! We went last week.") takes
 *     part of the score of the turn it answers, a long self-contained turn almost none; the turn
 *     two away takes a fifth of that through a short turn between ("Where to?"): chat R@10 EN
 *     .790 → .819, ZH .803 → .839, LongMemEval unchanged (0.15–0.25 the same; at 0.3 all turns
 *     lose a question, and without the short turn between, 0.1 already did);
 *     between people, the turn after a question (a turn ending with "?") answers it: it takes
 *     the question's whole score, not a neighbour's half, scaled by a length of 100 words, not
 *     10 ("How often do you swim these days?" — a 30-word "Most mornings before work. It clears
 *     my head …"): LoCoMo R@10 .706 → .804 (conv-26 .726 → .801, conv-41 .687 → .807; R@5 .624
 *     → .714, MRR .481 → .598; single-hop .74 → .90, open-domain .37 → .34), chat R@10 EN .857
 *     → .926, ZH .854 → .971, LongMemEval unchanged (measured in two steps: the length first,
 *     .706 → .758, 50–200 words .749–.760; then the whole score, .791 → .804, three quarters
 *     .801). Not for an assistant's reply to a person's question: given it, after any turn that
 *     asks, LongMemEval all turns lost R@5 .864 → .857 (R@10 .931 → .918; a question limit of
 *     30 words avoided that), and on the memory page the assistant's "?" and its answer quoting
 *     a recalled turn rose above the turns that told the facts;
 *   - its session as one document (BM25), fused at a tenth of the turn's weight, up to a fifth
 *     when the conversation's turns are long and self-contained (sessions that work one task
 *     through): at a fifth for every kind of conversation, the chat sets lost 4–7 points;
 *   - its speaker's name ("When did Caroline ..."); a speaker's name in a turn's text counts
 *     nothing (LexicalParams.nameInText): said there, it mostly addresses that person ("Hey
 *     Caroline!", said by the other; in LoCoMo dev 611 of 612 turns that name a speaker are the
 *     other's), so the question's name pointed at the wrong person's turns. LoCoMo R@10 .697 →
 *     .706 (conv-26 .713 → .726, conv-41 .682 → .687), chat R@10 EN .819 → .857, ZH .839 →
 *     .854, LongMemEval unchanged (roles, "user" and "assistant", are words as before); the
 *     turns of a person the question names count 1.3 times (src/memory/named-speakers.ts), in
 *     place of the added speaker weight, which lifted every turn of theirs alike, matching or
 *     not: LoCoMo R@10 .779 → .789 (conv-26 .780 → .793, conv-41 .778 → .785; R@5 .665 → .694,
 *     MRR .533 → .561; adversarial questions, which name the wrong person, .85 → .83), chat R@10
 *     EN .865 → .860, ZH .887 → .904, LongMemEval unchanged; 1.2–1.4 measured .788–.792;
 *     such a name weighs nothing in a session's text either (chat R@10 EN .860 → .864, ZH .904
 *     → .908, LoCoMo the same), and stands for no concept (Maya is no illusion, John no toilet;
 *     src/memory/lexical-index.ts analyse): LoCoMo .789 → .791 (conv-41 .785 → .789), chat R@10
 *     EN .864 → .889 (R@5 .761 → .788), ZH the same, LongMemEval unchanged;
 *   - concept bridges (WordNet, CC-CEDICT) at a fifth of a shared word, a tenth when only the
 *     concepts meet: at half weight they cost LongMemEval 4–5 points;
 *   - a Chinese query word no turn uses, which jieba made by joining a name or a character to
 *     its neighbour (王芳订, 狗叫), stands for the turns' words that make it up (王芳, 订; 小狗) at
 *     half a word's weight (src/memory/han-parts.ts): chat ZH R@10 .640 → .803, facts ZH hit@10
 *     .483 → .650, 0.3–1 measured alike;
 *   - the span the query names ("two weeks ago", 上周六): turns said then count double, and gain
 *     0.3 of the best score even when they share no word with the question (0.25–0.5 measured
 *     the same, 0.2 a question less); the phrase's own words ("weeks", "ago") are left out of the
 *     query; of those turns, one that says "today" ("I planted tomatoes today"), or that it
 *     "just" happened ("I just got back from …", 刚买了; LongMemEval user turns .879 → .883, R@10
 *     .931 → .946, all turns .864 → .874, LoCoMo and chat unchanged, 2026-12-05), tells what
 *     happened then, and counts double again; a calendar date the question names ("on 13 October
 *     2023", "in May 2023", 2023年5月; time.ts dateWindow) is such a span whether or not the time
 *     of asking is known, and its words leave the query too: LoCoMo R@10 .758 → .779 (conv-26
 *     .770 → .780, conv-41 .746 → .778; 8 questions up, none down; single-hop .83 → .88; 34 of
 *     its 392 questions name a date), LongMemEval and chat unchanged (no question names one);
 *   - what the question asks for (src/memory/query-analysis.ts): a turn stating a number counts
 *     1.7 times for a measure ("how many hours", "how much", "total"; LongMemEval user turns
 *     .868 → .881, all turns .857 → .864, R@10 of all turns .934 → .931), 1.3 times for a count
 *     of things ("how many babies") and for the time between two things ("how many days
 *     before …"); the assistant's turns count half for a question in the person's own voice, or
 *     any question, that does not address the assistant ("Can you suggest …" only frames a
 *     request for advice: its "you" does not count; LongMemEval all turns .842 → .848 for any
 *     question, → .857 for the request, R@10 .915 → .934), the person's half for one about what
 *     the assistant said; a question about the present state ("these days", "currently", 现在) favours
 *     the newer of the turns that match, up to 1.2 times for the newest (one chat question of two
 *     conversations gained, LongMemEval unchanged; 0.1–0.5 measured the same);
 *   - a question that adds things up (it asks how many or how much, not what the assistant
 *     said) takes its turns from several sessions (src/memory/session-spread.ts): among the best
 *     50, each further turn of a session already ranked counts 0.8 times less, as maximal
 *     marginal relevance picks them: LongMemEval user turns .883 → .888 (R@10 .946 → .947), all
 *     turns .874 → .880 (R@10 .941 → .936), LoCoMo R@10 .804 (R@5 .714 → .716), chat unchanged
 *     (0.1–0.3 measured .888–.891 on user turns; for every question, at 0.15–0.3, LongMemEval
 *     user turns lost 2.4–4.8 points and LoCoMo 4.6–7.7);
 *   - words that only frame the question leave it, as a span's phrase does: "these days", "so
 *     far" (they say now), "earlier", "lately" (before now), "Can you suggest …", "Any tips?" (a
 *     request for advice), "I've been thinking about …, but I'm not sure which one to choose" (the
 *     person's hedges; a person's messages to an assistant are full of both), "different types
 *     of", "how many": LongMemEval all turns .829 → .842, user turns .853 → .868 (R@10 .924 →
 *     .931), chat EN .811 → .819; "I mentioned …", "we talked about" (said before, as every turn
 *     was; 2026-12-05: user turns .888 → .898, one question, the other sets unchanged).
 *   - past questions are not answers (src/memory/past-askings.ts): a turn that asks what the query
 *     asks (half its words or more are the query's, and it holds two thirds of the query's) and
 *     was not answered with something of its own, an assistant's turn made that way (an echo),
 *     and an assistant's reply that says it does not know count a hundredth, below any turn that
 *     tells something; not for a request for advice, whose earlier askings say what the person
 *     cares about (with them: LongMemEval user turns −0.5, dev 2026-12-05). LongMemEval, LoCoMo
 *     and the chat sets unchanged; at a half or a tenth the earlier asking still came first over
 *     a statement met only through concept bridges; every question left unanswered cut, not only
 *     those that restate the query, cost LongMemEval all turns R@10 .931 → .927; an assistant's
 *     reply that says back the person's turn before it ("Nice bike!") scores at most 0.9 of that
 *     turn (a short echo outranked the statement on the memory page; the sets unchanged).
 * Tried and rejected on the same measurements: pseudo-relevance feedback (RM3-like, +1 on
 * LongMemEval, −1 to −10 on the chat sets), session diversification of the top (−2 to −4 on
 * LongMemEval), b = 0.5 (+0.5 on LongMemEval user turns, −4 with all turns); and (2026-12-02)
 * query-term coverage, BM25+ and BM25L, term proximity in the top 30–50, the noun phrase after
 * "how many / which" weighed up, session-level idf, a number before the unit "how many" names,
 * proper names weighed up, newer turns favoured for every question: none raised every set.
 * And (2026-12-05, LoCoMo): the added speaker weight raised to 0.6–2 before the name became a
 * factor (LoCoMo R@10 +.003 to +.021, chat EN −.008 to −.036); neighbours 0.6–0.7, neighbourLen
 * 15–20, twoHop 0.4, session 0.15–0.2 (LoCoMo +.005 to +.017, but on one conversation only or
 * at a cost of 1–2 points to chat EN); "would", "might", "likely", "probably", "considered"
 * leaving a question as framing of a hypothetical ("likely" is stemmed to "like"): LoCoMo .789
 * → .791, one question of one conversation, LongMemEval and chat unchanged, not worth a rule in
 * each language; k1 0.9 / 1.6 and concepts 0.1 / 0.3 on LongMemEval user turns (±1 question);
 * the other's turns that say "you" to the named person (next to a turn of theirs) × 1.15 or
 * × 1.3: LoCoMo .804 → .803 / .793, only the generated chat set gained (EN .926 → .956), where
 * the asker's "Did you …?" is part of the evidence by construction.
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
  for (const l of len) total += l;
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
    let maxS = 0;
    for (const x of sess) if (x > maxS) maxS = x;
    let maxT = 0;
    for (const x of out) if (x > maxT) maxT = x;
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
    let top = 0;
    for (const x of scores) if (x > top) top = x;
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
  let max = 0;
  // Normalised by the best of the whole conversation, `among` or not: a cold event scores 1 only
  // when nothing in the conversation matches better (cold recall's threshold relies on that).
  for (const x of scores) if (x > max) max = x;
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
