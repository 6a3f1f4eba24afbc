/**
 * How relevant each remembered event is to the current input: the one scorer the agent's
 * pruning, cold recall and `homed recall` share. Both signals work on jieba's words plus the
 * concepts they stand for (WordNet, CC-CEDICT), each normalised to [0, 1] by the best candidate:
 * TF-IDF cosine (incremental IDF) and BM25 (FTS5, a shared concept weighted half a shared word).
 * With a dense model installed, dense cosine brings its own candidates and half of the score
 * (a first, untuned split: the evaluation set needs a real model to tune it, which this
 * machine cannot download). The lexical weights are chosen on the evaluation set
 * (bench/recall, docs/BENCHMARKS.md): the concepts carry the gain; a recency prior measured no
 * gain there and was left out.
 */
import type { LexicalIndex, Scored } from "./lexical-index.ts";

/**
 * hybrid: what the agent uses. bm25: plain BM25 over words (the classic baseline).
 * bm25c: BM25 over words and concepts. tfidf: TF-IDF cosine over words and concepts.
 * recent: newest first.
 */
export type ScorerName = "hybrid" | "bm25" | "bm25c" | "tfidf" | "recent";

export interface HybridWeights {
  tfidf: number;
  bm25: number;
}

export const DEFAULT_WEIGHTS: HybridWeights = { tfidf: 0.3, bm25: 0.7 };

/** BM25 candidates the hybrid re-scores. */
const BM25_CANDIDATES = 500;

function normalise(xs: readonly Scored[]): Map<number, number> {
  let max = 0;
  for (const x of xs) if (x.score > max) max = x.score;
  const out = new Map<number, number>();
  if (max <= 0) return out;
  for (const x of xs) out.set(x.id, x.score / max);
  return out;
}

export interface RankOptions {
  /** Only events with id >= minId (a conversation's current generation). */
  minId?: number;
  scorer?: ScorerName;
  weights?: HybridWeights;
  /** Every event id of the conversation in order (for the "recent" scorer). */
  ids: readonly number[];
  /** Dense cosines of events with the query, when a model is installed. */
  dense?: ReadonlyMap<number, number> | null;
}

/** With a dense model, half the score is dense cosine, half the lexical fusion. */
const DENSE_SHARE = 0.5;
/** Dense candidates considered beside BM25's. */
const DENSE_CANDIDATES = 200;

/** Event ids of `conv` ranked by relevance to `text`, best first, with their fused scores. */
export function rankEvents(index: LexicalIndex, conv: string, text: string, opts: RankOptions): Scored[] {
  const minId = opts.minId ?? 0;
  const ids = opts.ids.filter((id) => id >= minId);
  const scorer = opts.scorer ?? "hybrid";
  if (scorer === "recent") return [...ids].reverse().map((id, i) => ({ id, score: 1 / (i + 1) }));
  const { words, concepts } = index.analyse(text);
  if (scorer === "bm25") return index.bm25(conv, words, null, Math.max(ids.length, 1), minId);
  if (scorer === "bm25c") return index.bm25(conv, words, concepts, Math.max(ids.length, 1), minId);
  if (scorer === "tfidf") return index.tfidf(conv, [...words, ...concepts], minId).sort((a, b) => b.score - a.score);
  const w = opts.weights ?? DEFAULT_WEIGHTS;
  // BM25 picks the candidates (FTS5's index makes that cheap at any history length); TF-IDF
  // re-scores only those, so the cost of a query does not grow with the conversation.
  const bm = index.bm25(conv, words, concepts, BM25_CANDIDATES, minId);
  const denseTop = opts.dense
    ? [...opts.dense].filter(([id, c]) => id >= minId && c > 0).map(([id, c]) => ({ id, score: c })).sort((a, b) => b.score - a.score).slice(0, DENSE_CANDIDATES)
    : [];
  const candidates = new Set([...bm.map((x) => x.id), ...denseTop.map((x) => x.id)]);
  const b = normalise(bm);
  const t = normalise(index.tfidf(conv, [...words, ...concepts], minId, candidates));
  const d = normalise(denseTop);
  const out: Scored[] = [];
  for (const id of candidates) {
    const lexical = w.tfidf * (t.get(id) ?? 0) + w.bm25 * (b.get(id) ?? 0);
    out.push({ id, score: opts.dense ? DENSE_SHARE * (d.get(id) ?? 0) + (1 - DENSE_SHARE) * lexical : lexical });
  }
  return out.sort((a, b2) => b2.score - a.score || b2.id - a.id);
}
