/**
 * How relevant each remembered event is to the current input: the one scorer the agent's
 * pruning, cold recall and `homed recall` share. Signals, each normalised to [0, 1] by the best
 * candidate: TF-IDF cosine over jieba's words (with an incremental IDF), BM25 over the same
 * words (FTS5), and a small recency prior so that, between two equally relevant mentions, the
 * newer one (a fact that changed) comes first. Dense cosine joins when a model is installed.
 * The weights are chosen on the evaluation set (bench/recall), see docs/BENCHMARKS.md.
 */
import type { LexicalIndex, Scored } from "./lexical-index.ts";

export type ScorerName = "hybrid" | "bm25" | "tfidf" | "recent";

export interface HybridWeights {
  tfidf: number;
  bm25: number;
  recency: number;
}

export const DEFAULT_WEIGHTS: HybridWeights = { tfidf: 0.5, bm25: 0.5, recency: 0.08 };

/** BM25 candidates considered beside the full TF-IDF pass. */
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
  /** Every event id of the conversation in order (for recency and the "recent" scorer). */
  ids: readonly number[];
}

/** Event ids of `conv` ranked by relevance to `text`, best first, with their fused scores. */
export function rankEvents(index: LexicalIndex, conv: string, text: string, opts: RankOptions): Scored[] {
  const minId = opts.minId ?? 0;
  const ids = opts.ids.filter((id) => id >= minId);
  const scorer = opts.scorer ?? "hybrid";
  if (scorer === "recent") return [...ids].reverse().map((id, i) => ({ id, score: 1 / (i + 1) }));
  const terms = index.terms(text);
  if (scorer === "bm25") return index.bm25(conv, terms, Math.max(ids.length, 1), minId);
  const tf = index.tfidf(conv, terms, minId);
  if (scorer === "tfidf") return tf.sort((a, b) => b.score - a.score);
  const w = opts.weights ?? DEFAULT_WEIGHTS;
  const t = normalise(tf);
  const b = normalise(index.bm25(conv, terms, BM25_CANDIDATES, minId));
  const position = new Map<number, number>();
  ids.forEach((id, i) => position.set(id, ids.length > 1 ? i / (ids.length - 1) : 1));
  const out: Scored[] = [];
  for (const id of new Set([...t.keys(), ...b.keys()])) {
    const lexical = w.tfidf * (t.get(id) ?? 0) + w.bm25 * (b.get(id) ?? 0);
    out.push({ id, score: lexical + w.recency * lexical * (position.get(id) ?? 0) });
  }
  return out.sort((a, b2) => b2.score - a.score || b2.id - a.id);
}
