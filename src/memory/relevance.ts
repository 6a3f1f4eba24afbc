/**
 * How relevant each remembered event is to the current input: the one scorer the agent's
 * pruning, cold recall and `homed recall` share. Lexical: BM25 over a conversation's own
 * statistics (src/memory/conv-index.ts), with what a turn means beyond its own words — its
 * speaker, its neighbours, its session — at lower weights. With a dense model installed, dense
 * cosine brings its own candidates and half of the score (a first, untuned split: no real model
 * has been measured yet). The weights come from LongMemEval's dev quarter and the generated
 * chat set (bench/recall, docs/BENCHMARKS.md).
 */
import type { ConvIndex, Postings } from "./conv-index.ts";
import type { LexicalIndex, Scored } from "./lexical-index.ts";

/**
 * hybrid: what the agent uses. bm25: plain BM25 over words (the classic baseline).
 * bm25c: BM25 over words and concepts. recent: newest first.
 */
export type ScorerName = "hybrid" | "bm25" | "bm25c" | "recent";

export interface LexicalParams {
  k1: number;
  b: number;
  /** Weight of a query word met by the turn's speaker name, relative to one met in its text. */
  speaker: number;
  /** Weight of a concept bridge (a query word's concept met by a turn's word, or the reverse). */
  concepts: number;
  /** Weight of a concept that the query's words and a turn's words both stand for. */
  sharedConcepts: number;
  /** Share of each adjacent turn's (same session) score a turn receives. */
  neighbours: number;
  /** Weight of the session's own BM25 (the session as one document), normalised, beside the turn's. */
  session: number;
}

/** Textbook BM25 over words (Robertson's k1 and b), nothing else. */
export const PLAIN_BM25: LexicalParams = { k1: 1.2, b: 0.75, speaker: 0, concepts: 0, sharedConcepts: 0, neighbours: 0, session: 0 };

export const DEFAULT_PARAMS: LexicalParams = { k1: 1.2, b: 0.75, speaker: 0, concepts: 0.2, sharedConcepts: 0.1, neighbours: 0, session: 0 };

export interface RankOptions {
  /** Only events with id >= minId (a conversation's current generation). */
  minId?: number;
  scorer?: ScorerName;
  params?: LexicalParams;
  /** Every event id of the conversation in order (for the "recent" scorer). */
  ids: readonly number[];
  /** Dense cosines of events with the query, when a model is installed. */
  dense?: ReadonlyMap<number, number> | null;
}

/** With a dense model, half the score is dense cosine, half the lexical one. */
const DENSE_SHARE = 0.5;
/** Dense candidates considered beside the lexical ones. */
const DENSE_CANDIDATES = 200;

/** Adds `weight` × BM25 term weight of every posting into `into`. */
function accumulate(ci: ConvIndex, p: Postings, idf: number, weight: number, k1: number, b: number, into: Float64Array): void {
  const avg = ci.avgLen;
  const { docs, tfs } = p;
  for (let i = 0; i < docs.length; i++) {
    const d = docs[i] as number;
    const tf = tfs[i] as number;
    into[d] = (into[d] as number) + (weight * idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * (ci.lens[d] as number)) / avg));
  }
}

/** Session-level BM25: each session's turns as one document. */
function sessionScores(ci: ConvIndex, terms: readonly string[], k1: number, b: number): Float64Array {
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
    for (let i = 0; i < p.docs.length; i++) {
      const s = ci.sessions[p.docs[i] as number] as number;
      if (s < 0) continue;
      if (tf[s] === 0) touched.push(s);
      tf[s] = (tf[s] as number) + (p.tfs[i] as number);
    }
    const idf = Math.log(1 + (n - touched.length + 0.5) / (touched.length + 0.5));
    for (const s of touched) {
      const f = tf[s] as number;
      out[s] = (out[s] as number) + (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * (len[s] as number)) / avg));
    }
  }
  return out;
}

/** Lexical scores of every document of `ci` (0 for those that share nothing with the query). */
export function lexicalScores(ci: ConvIndex, words: readonly string[], concepts: readonly string[], p: LexicalParams): Float64Array {
  const n = ci.size;
  const turn = new Float64Array(n);
  const terms = [...new Set(words)];
  for (const t of terms) {
    const w = ci.words.get(t);
    if (w) accumulate(ci, w, ci.idf(w.docs.length), 1, p.k1, p.b, turn);
    if (p.speaker > 0) {
      const s = ci.speakers.get(t);
      if (s) accumulate(ci, s, ci.idf(s.docs.length), p.speaker, p.k1, 0, turn);
    }
    if (p.concepts > 0) {
      // A turn that says what the query word stands for ("surgeon" for "doctor").
      const c = ci.concepts.get(t);
      if (c) accumulate(ci, c, ci.idf(c.docs.length), p.concepts, p.k1, p.b, turn);
    }
  }
  if (p.concepts > 0) {
    // A turn whose word is one of the query's concepts ("physician" for "doctor").
    for (const c of new Set(concepts)) {
      const w = ci.words.get(c);
      if (w) accumulate(ci, w, ci.idf(w.docs.length), p.concepts, p.k1, p.b, turn);
      // Both sides stand for the same concept (城市 and 杭州 both for "city").
      const cc = p.sharedConcepts > 0 ? ci.concepts.get(c) : undefined;
      if (cc) accumulate(ci, cc, ci.idf(cc.docs.length), p.sharedConcepts, p.k1, p.b, turn);
    }
  }
  let out = turn;
  if (p.neighbours > 0) {
    out = new Float64Array(n);
    for (let d = 0; d < n; d++) {
      let s = turn[d] as number;
      const g = ci.sessions[d];
      if (d > 0 && ci.sessions[d - 1] === g) s += p.neighbours * (turn[d - 1] as number);
      if (d + 1 < n && ci.sessions[d + 1] === g) s += p.neighbours * (turn[d + 1] as number);
      out[d] = s;
    }
  }
  if (p.session > 0 && ci.sessionCount > 0) {
    const sess = sessionScores(ci, terms, p.k1, p.b);
    let maxS = 0;
    for (const x of sess) if (x > maxS) maxS = x;
    let maxT = 0;
    for (const x of out) if (x > maxT) maxT = x;
    if (maxS > 0 && maxT > 0) {
      for (let d = 0; d < n; d++) {
        const g = ci.sessions[d] as number;
        if (g >= 0 && (out[d] as number) > 0) out[d] = (out[d] as number) / maxT + (p.session * (sess[g] as number)) / maxS;
        else out[d] = (out[d] as number) / maxT;
      }
    }
  }
  return out;
}

function byScore(a: Scored, b: Scored): number {
  return b.score - a.score || b.id - a.id;
}

/** Event ids of `conv` ranked by relevance to `text`, best first, scores normalised to the best = 1. */
export function rankEvents(index: LexicalIndex, conv: string, text: string, opts: RankOptions): Scored[] {
  const minId = opts.minId ?? 0;
  const scorer = opts.scorer ?? "hybrid";
  if (scorer === "recent") {
    const ids = opts.ids.filter((id) => id >= minId);
    return [...ids].reverse().map((id, i) => ({ id, score: 1 / (i + 1) }));
  }
  const ci = index.conv(conv, minId);
  const { words, concepts } = index.analyse(text);
  const params = scorer === "bm25" ? PLAIN_BM25 : scorer === "bm25c" ? { ...PLAIN_BM25, concepts: 0.5, sharedConcepts: 0.5 } : (opts.params ?? DEFAULT_PARAMS);
  const scores = lexicalScores(ci, words, concepts, params);
  let max = 0;
  for (const x of scores) if (x > max) max = x;
  const lexical: Scored[] = [];
  if (max > 0) for (let d = 0; d < ci.size; d++) if ((scores[d] as number) > 0) lexical.push({ id: ci.ids[d] as number, score: (scores[d] as number) / max });
  if (!opts.dense || scorer !== "hybrid") return lexical.sort(byScore);
  const denseTop = [...opts.dense]
    .filter(([id, c]) => id >= minId && c > 0)
    .map(([id, c]) => ({ id, score: c }))
    .sort(byScore)
    .slice(0, DENSE_CANDIDATES);
  const denseMax = denseTop[0]?.score ?? 0;
  const fused = new Map<number, number>();
  for (const x of lexical) fused.set(x.id, (1 - DENSE_SHARE) * x.score);
  if (denseMax > 0) for (const x of denseTop) fused.set(x.id, (fused.get(x.id) ?? 0) + (DENSE_SHARE * x.score) / denseMax);
  return [...fused].map(([id, score]) => ({ id, score })).sort(byScore);
}
