/**
 * The lexical side of memory: every indexed event's words (jieba, src/embed/tokenizer.ts) go to
 * an FTS5 table for BM25 and to per-event term counts for TF-IDF cosine with an IDF kept
 * incrementally over the whole data dir (jieba's own IDF stands in while the history is small).
 *
 * Scoring reads per-conversation term counts from memory: a conversation's counts are loaded
 * once and extended with events appended since, so a query over 10k events does not re-read or
 * re-parse them.
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

interface ConvDocs {
  lastId: number;
  docs: Doc[];
}

/** BM25 weight of a match in the concepts column relative to one in the words column. */
const CONCEPT_WEIGHT = 0.5;

/** How many documents the jieba prior is worth when blended with the corpus's own IDF. */
const PRIOR_WEIGHT = 50;

export class LexicalIndex {
  private readonly convs = new Map<string, ConvDocs>();
  private docsCount: number;
  private readonly dfCache = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly tokenizer: Tokenizer,
  ) {
    this.docsCount = Number(db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'lexical_docs'").get()?.value ?? 0);
  }

  get documents(): number {
    return this.docsCount;
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

  private docsOf(conv: string): ConvDocs {
    let c = this.convs.get(conv);
    if (c) this.convs.delete(conv);
    c ??= { lastId: 0, docs: [] };
    this.convs.set(conv, c);
    if (this.convs.size > 64) this.convs.delete(this.convs.keys().next().value as string);
    const rows = this.db.query<{ event_id: number; terms: string }, [string, number]>("SELECT event_id, terms FROM event_terms WHERE conv = ? AND event_id > ? ORDER BY event_id").all(conv, c.lastId);
    for (const r of rows) {
      c.docs.push({ id: r.event_id, counts: new Map(Object.entries(JSON.parse(r.terms) as Record<string, number>)), norm: 0, normAtDocs: -1 });
      c.lastId = r.event_id;
    }
    return c;
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
    for (const d of this.docsOf(conv).docs) {
      if (d.id < minId || (candidates && !candidates.has(d.id))) continue;
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
