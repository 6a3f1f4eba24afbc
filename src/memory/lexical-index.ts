/**
 * The lexical side of memory: every indexed event's words (jieba, src/embed/tokenizer.ts) go to
 * an FTS5 table for BM25 and to per-event term counts for TF-IDF cosine with an IDF kept
 * incrementally over the whole data dir (jieba's own IDF stands in while the history is small).
 *
 * Scoring reads the term counts of BM25's candidates only, parsed once and kept in a cache of
 * bounded size, so neither a query's cost nor the memory held grows with a conversation's
 * length (a query over 100k events reads at most its few hundred candidates).
 */
import type { Database } from "bun:sqlite";
import type { Tokenizer } from "../embed/tokenizer.ts";

export interface Scored {
  id: number;
  score: number;
}

interface Doc {
  id: number;
  counts: Map<string, number>;
  norm: number;
  normAtDocs: number;
}

/**
 * Term counts kept parsed in memory, counted in (term, count) entries, least recently used event
 * dropped first. An entry costs ~110 bytes of heap (measured: 250k entries held 27.9 MiB), so
 * this is ~16 MiB whatever the events' length — thousands of short messages or hundreds of long
 * ones: several queries' candidates (a query reads at most BM25's 500 plus dense ones), never
 * every event ever scored.
 */
export const MAX_CACHED_TERMS = 150_000;

/** BM25 weight of a match in the concepts column relative to one in the words column. */
const CONCEPT_WEIGHT = 0.5;

/** How many documents the jieba prior is worth when blended with the corpus's own IDF. */
const PRIOR_WEIGHT = 50;

export class LexicalIndex {
  private readonly docs = new Map<number, Doc>();
  private terms = 0;
  private docsCount: number;
  private readonly dfCache = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly tokenizer: Tokenizer,
    private readonly maxCachedTerms = MAX_CACHED_TERMS,
  ) {
    this.docsCount = Number(db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'lexical_docs'").get()?.value ?? 0);
  }

  get documents(): number {
    return this.docsCount;
  }

  /** (term, count) entries held parsed in memory: at most the cache's size. */
  get cachedTerms(): number {
    return this.terms;
  }

  /** The words of a text and the concepts they stand for (see Tokenizer). */
  analyse(text: string): { words: string[]; concepts: string[] } {
    const words = this.tokenizer.tokens(text);
    const concepts: string[] = [];
    for (const w of new Set(words)) concepts.push(...this.tokenizer.concepts(w));
    return { words, concepts };
  }

  /** Index one event's text. Call inside the transaction that appended the event, or after it. */
  add(eventId: number, conv: string, text: string): void {
    const { words, concepts } = this.analyse(text);
    const terms = [...words, ...concepts];
    const counts = new Map<string, number>();
    for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
    this.db.query("INSERT INTO event_terms (event_id, conv, tokens, terms) VALUES (?, ?, ?, ?)").run(eventId, conv, terms.length, JSON.stringify(Object.fromEntries(counts)));
    this.db.query("INSERT INTO event_fts (rowid, words, concepts, conv) VALUES (?, ?, ?, ?)").run(eventId, [...new Set(words)].join(" "), [...new Set(concepts)].join(" "), conv);
    const bump = this.db.query("INSERT INTO term_df (term, df) VALUES (?, 1) ON CONFLICT(term) DO UPDATE SET df = df + 1");
    for (const t of counts.keys()) {
      bump.run(t);
      this.dfCache.delete(t);
    }
    this.docsCount++;
    this.db.query("UPDATE meta SET value = ? WHERE key = 'lexical_docs'").run(String(this.docsCount));
  }

  private df(term: string): number {
    let n = this.dfCache.get(term);
    if (n === undefined) {
      n = this.db.query<{ df: number }, [string]>("SELECT df FROM term_df WHERE term = ?").get(term)?.df ?? 0;
      if (this.dfCache.size > 200_000) this.dfCache.clear();
      this.dfCache.set(term, n);
    }
    return n;
  }

  /** Inverse document frequency: the corpus's own, blended with jieba's while the corpus is small. */
  idf(term: string): number {
    const n = this.docsCount;
    const df = this.df(term);
    const corpus = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    const prior = this.tokenizer.priorIdf(term);
    if (prior === undefined) return corpus;
    return (n * corpus + PRIOR_WEIGHT * prior) / (n + PRIOR_WEIGHT);
  }

  private weight(count: number, term: string): number {
    return (1 + Math.log(count)) * this.idf(term);
  }

  private static parse(r: { event_id: number; terms: string }): Doc {
    return { id: r.event_id, counts: new Map(Object.entries(JSON.parse(r.terms) as Record<string, number>)), norm: 0, normAtDocs: -1 };
  }

  /** The docs of `ids` in `conv`, from the cache or read (one query for all that are missing). */
  private docsFor(conv: string, ids: readonly number[]): Doc[] {
    const out: Doc[] = [];
    const missing: number[] = [];
    for (const id of ids) {
      const d = this.docs.get(id);
      if (!d) {
        missing.push(id);
        continue;
      }
      this.docs.delete(id); // most recently used last
      this.docs.set(id, d);
      out.push(d);
    }
    if (missing.length) {
      const rows = this.db
        .query<{ event_id: number; terms: string }, [string, string]>("SELECT event_id, terms FROM event_terms WHERE event_id IN (SELECT value FROM json_each(?)) AND conv = ?")
        .all(JSON.stringify(missing), conv);
      for (const r of rows) {
        const d = LexicalIndex.parse(r);
        this.docs.set(d.id, d);
        this.terms += d.counts.size;
        out.push(d);
      }
      for (const [id, d] of this.docs) {
        if (this.terms <= this.maxCachedTerms) break;
        this.docs.delete(id);
        this.terms -= d.counts.size;
      }
    }
    return out;
  }

  /** Every doc of `conv` from `minId` on, read afresh and not cached (a full scan). */
  private *allDocs(conv: string, minId: number): Generator<Doc> {
    const q = this.db.query<{ event_id: number; terms: string }, [string, number]>("SELECT event_id, terms FROM event_terms WHERE conv = ? AND event_id >= ? ORDER BY event_id");
    for (const r of q.iterate(conv, minId)) yield LexicalIndex.parse(r);
  }

  /**
   * TF-IDF cosine against the query terms of `conv`'s events with id >= minId (only those in
   * `candidates`, when given); zeros left out.
   */
  tfidf(conv: string, queryTerms: readonly string[], minId = 0, candidates?: ReadonlySet<number>): Scored[] {
    const q = new Map<string, number>();
    for (const t of queryTerms) q.set(t, (q.get(t) ?? 0) + 1);
    const qw = new Map<string, number>();
    let qnorm = 0;
    for (const [t, c] of q) {
      const w = this.weight(c, t);
      qw.set(t, w);
      qnorm += w * w;
    }
    qnorm = Math.sqrt(qnorm);
    if (qnorm === 0) return [];
    const out: Scored[] = [];
    const n = this.docsCount;
    const docs = candidates ? this.docsFor(conv, [...candidates].filter((id) => id >= minId)) : this.allDocs(conv, minId);
    for (const d of docs) {
      let dot = 0;
      for (const [t, w] of qw) {
        const c = d.counts.get(t);
        if (c) dot += w * this.weight(c, t);
      }
      if (dot === 0) continue;
      // A document's norm moves with the IDF; recompute when the corpus grew by more than 5 %.
      if (d.normAtDocs < 0 || n > d.normAtDocs * 1.05 + 10) {
        let s = 0;
        for (const [t, c] of d.counts) s += this.weight(c, t) ** 2;
        d.norm = Math.sqrt(s);
        d.normAtDocs = n;
      }
      out.push({ id: d.id, score: dot / (qnorm * d.norm) });
    }
    return out;
  }

  /**
   * BM25 (FTS5) of `conv`'s events with id >= minId; higher is better. With `concepts`, a query
   * term may also meet an event's concepts (and a query concept its words or concepts), weighted
   * below a shared word; without, it is plain BM25 over words.
   */
  bm25(conv: string, words: readonly string[], concepts: readonly string[] | null, limit: number, minId = 0): Scored[] {
    const quote = (ts: Iterable<string>) => [...new Set(ts)].map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ");
    const w = [...new Set(words)];
    if (w.length === 0 && !concepts?.length) return [];
    const match = concepts === null ? `words : (${quote(w)})` : `{words concepts} : (${quote([...w, ...concepts])})`;
    return this.db
      .query<{ id: number; score: number }, [string, string, number, number]>(
        `SELECT rowid AS id, -bm25(event_fts, 1.0, ${CONCEPT_WEIGHT}, 0) AS score FROM event_fts WHERE event_fts MATCH ? AND conv = ? AND rowid >= ? ORDER BY bm25(event_fts, 1.0, ${CONCEPT_WEIGHT}, 0) LIMIT ?`,
      )
      .all(match, conv, minId, limit);
  }
}
