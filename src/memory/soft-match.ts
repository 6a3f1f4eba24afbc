/**
 * Soft matching by word vectors (src/embed/word-vectors.ts): a query word also meets the
 * conversation's words nearest to it in meaning ("citrus" → lime, "battery" → charger), each at
 * a low weight times their cosine, as BM25 of that word. Only the conversation's own vocabulary is
 * searched, so what is found is always there to score.
 */
import { WordVectors } from "../embed/word-vectors.ts";
import { type ConvIndex, type Postings, PostingsCursor } from "./conv-index.ts";

export interface SoftParams {
  /** Weight of a neighbour's BM25 relative to the word's own (× cosine); 0: off. */
  vectors: number;
  /** Least cosine for a neighbour. */
  vectorMin: number;
  /** Most neighbours per query word. */
  vectorK: number;
  /** Only query words held by at most this share of the conversation's events (rare ones). */
  vectorRare: number;
  /** Only query words with at least this many neighbours at vectorMin in the conversation (category words). */
  vectorHub: number;
  /** 1: a turn takes only its best neighbour's share per query word (else the sum). */
  vectorMax: number;
  /** 1: a neighbour weighs with the query word's idf (else its own). */
  vectorQidf: number;
  /** Weight of the turn's mean-vector cosine with the query's, as a share of the best lexical score. */
  turnVec: number;
  /** Cosine below which a turn gains nothing from turnVec (the gain is cos − this). */
  turnVecFloor: number;
  /** 1: only turns with a lexical score gain from turnVec. */
  turnVecOnly: number;
  /** Exponent of the common-word cut (0: off): a query word weighs (log rank / log prior rank)^this. */
  prior: number;
  /** Frequency rank from which a word weighs fully. */
  priorRank: number;
}

export type Accumulate = (p: Postings | null, idf: number, weight: number, into?: Float64Array) => void;

/** Adds the neighbours' share of every query term in `terms` through `add`. */
export function softMatch(ci: ConvIndex, terms: readonly string[], p: SoftParams, add: Accumulate): void {
  if (p.vectors <= 0) return;
  const wv = WordVectors.load();
  const own = new Set(terms);
  const rows: number[] = [];
  const qidf: number[] = [];
  for (const t of terms) {
    const r = wv.row(t);
    if (r < 0) continue;
    const df = ci.words.get(t)?.n ?? 0;
    if (df > p.vectorRare * ci.size) continue;
    rows.push(r);
    qidf.push(ci.idf(df));
  }
  if (rows.length === 0) return;
  const found: { p: Postings; cos: number }[][] = rows.map(() => []);
  for (const [term, postings] of ci.words) {
    if (own.has(term)) continue;
    const r = wv.row(term);
    if (r < 0) continue;
    for (let i = 0; i < rows.length; i++) {
      const cos = wv.cosine(rows[i] as number, r);
      if (cos >= p.vectorMin) (found[i] as { p: Postings; cos: number }[]).push({ p: postings, cos });
    }
  }
  const tmp = p.vectorMax ? new Float64Array(ci.size) : null;
  const best = p.vectorMax ? new Float64Array(ci.size) : null;
  found.forEach((near, i) => {
    if (near.length === 0 || near.length < p.vectorHub) return;
    near.sort((a, b) => b.cos - a.cos);
    if (best) best.fill(0);
    for (const x of near.slice(0, p.vectorK)) {
      const idf = p.vectorQidf ? (qidf[i] as number) : ci.idf(x.p.n);
      if (!tmp || !best) add(x.p, idf, p.vectors * x.cos);
      else {
        tmp.fill(0);
        add(x.p, idf, p.vectors * x.cos, tmp);
        for (let d = 0; d < tmp.length; d++) if ((tmp[d] as number) > (best[d] as number)) best[d] = tmp[d] as number;
      }
    }
    if (best) add(null, 0, 0, best);
  });
}

const docVectors = new WeakMap<ConvIndex, { size: number; v: Float32Array; inv: Float32Array }>();

/** Each turn's idf-weighted mean word vector (built from the postings; cached per index size). */
function turnVectors(ci: ConvIndex): { v: Float32Array; inv: Float32Array } {
  const had = docVectors.get(ci);
  if (had && had.size === ci.size) return had;
  const wv = WordVectors.load();
  const D = 100;
  const v = new Float32Array(ci.size * D);
  const row = new Float32Array(D);
  for (const [term, p] of ci.words) {
    const r = wv.row(term);
    if (r < 0) continue;
    wv.unit(r, row);
    const idf = ci.idf(p.n);
    const c = new PostingsCursor(p);
    while (c.next()) {
      const at = c.doc * D;
      const w = idf * c.tf;
      for (let k = 0; k < D; k++) v[at + k] = (v[at + k] as number) + w * (row[k] as number);
    }
  }
  const inv = new Float32Array(ci.size);
  for (let d = 0; d < ci.size; d++) {
    let n = 0;
    for (let k = d * D; k < (d + 1) * D; k++) n += (v[k] as number) ** 2;
    inv[d] = n > 0 ? 1 / Math.sqrt(n) : 0;
  }
  const out = { size: ci.size, v, inv };
  docVectors.set(ci, out);
  return out;
}

/** Cosine of the query's idf-weighted mean word vector with each turn's (0 when either has none). */
export function turnCosines(ci: ConvIndex, terms: readonly string[]): Float64Array | null {
  const wv = WordVectors.load();
  const D = 100;
  const q = new Float32Array(D);
  const row = new Float32Array(D);
  let any = false;
  for (const t of terms) {
    const r = wv.row(t);
    if (r < 0) continue;
    wv.unit(r, row);
    const idf = ci.idf(ci.words.get(t)?.n ?? 0);
    for (let k = 0; k < D; k++) q[k] = (q[k] as number) + idf * (row[k] as number);
    any = true;
  }
  if (!any) return null;
  let qn = 0;
  for (const x of q) qn += x * x;
  const qi = 1 / Math.sqrt(qn);
  const { v, inv } = turnVectors(ci);
  const out = new Float64Array(ci.size);
  for (let d = 0; d < ci.size; d++) {
    let x = 0;
    for (let k = 0, at = d * D; k < D; k++, at++) x += (q[k] as number) * (v[at] as number);
    out[d] = x * qi * (inv[d] as number);
  }
  return out;
}

/** What a query word weighs for how common it is in English at large (1 for rare or unknown words). */
export function priorWeight(term: string, p: SoftParams): number {
  if (p.prior <= 0) return 1;
  const r = WordVectors.load().row(term);
  if (r < 0 || r >= p.priorRank) return 1;
  return (Math.log(2 + r) / Math.log(2 + p.priorRank)) ** p.prior;
}
