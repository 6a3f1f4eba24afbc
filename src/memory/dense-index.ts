/**
 * Dense vectors of events, made in the background by an embedder (src/embed) and kept in
 * event_vectors with the embedder's id. Appending an event never waits for its vector: the
 * event is queued and embedded in order; until then it is found by the lexical signals alone.
 * On start, events without a vector for the current embedder are queued too — which is how a
 * changed model re-embeds the past.
 */
import type { Database } from "bun:sqlite";
import type { Embedder } from "../embed/embedder.ts";
import { cosine } from "../embed/embedder.ts";
import { MAX_INDEXED_TEXT_CHARS } from "../protocol/event-bodies.ts";

export interface DenseLog {
  warn(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
}

interface Pending {
  id: number;
  conv: string;
  text: string;
}

export class DenseIndex {
  private readonly queue: Pending[] = [];
  private draining = false;
  private readonly cache = new Map<string, { lastId: number; vecs: Map<number, Float32Array> }>();
  private readonly queryCache = new Map<string, Float32Array>();
  /** Vectors made since start (for status and tests). */
  made = 0;

  constructor(
    private readonly db: Database,
    readonly embedder: Embedder,
    private readonly log: DenseLog,
  ) {}

  /** Queue an event's text for embedding. */
  enqueue(id: number, conv: string, text: string): void {
    if (!text.trim()) return;
    this.queue.push({ id, conv, text });
    void this.drain();
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Resolves when everything queued so far has been embedded (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.queue.length > 0 || this.draining) await Bun.sleep(5);
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      const insert = this.db.query(
        "INSERT OR REPLACE INTO event_vectors (event_id, embedder, dim, vec) VALUES (?, ?, ?, ?)",
      );
      while (this.queue.length > 0) {
        const p = this.queue.shift() as Pending;
        try {
          const [vec] = await this.embedder.embedTexts([p.text.slice(0, MAX_INDEXED_TEXT_CHARS)]);
          if (!vec) continue;
          insert.run(p.id, this.embedder.id, vec.length, new Uint8Array(vec.buffer, vec.byteOffset, vec.byteLength));
          this.made++;
        } catch (err) {
          this.log.warn("embedding failed; the event stays lexical-only", { event: p.id, err });
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /** Compute (and remember) the vector of a query, so the synchronous scoring that follows can use it. */
  async prepareQuery(text: string): Promise<void> {
    if (this.queryCache.has(text)) return;
    try {
      const [vec] = await this.embedder.embedTexts([text]);
      if (vec) {
        this.queryCache.set(text, vec);
        if (this.queryCache.size > 64) this.queryCache.delete(this.queryCache.keys().next().value as string);
      }
    } catch (err) {
      this.log.warn("query embedding failed; scoring lexically", { err });
    }
  }

  private vectorsOf(conv: string): Map<number, Float32Array> {
    let c = this.cache.get(conv);
    if (!c) {
      c = { lastId: -1, vecs: new Map() };
      this.cache.set(conv, c);
      if (this.cache.size > 32) this.cache.delete(this.cache.keys().next().value as string);
    }
    const rows = this.db
      .query<{ event_id: number; vec: Uint8Array }, [string, string, number]>(
        "SELECT v.event_id, v.vec FROM event_vectors v JOIN events e ON e.id = v.event_id WHERE e.conv = ? AND v.embedder = ? AND v.event_id > ? ORDER BY v.event_id",
      )
      .all(conv, this.embedder.id, c.lastId);
    for (const r of rows) {
      c.vecs.set(
        r.event_id,
        new Float32Array(r.vec.buffer.slice(r.vec.byteOffset, r.vec.byteOffset + r.vec.byteLength)),
      );
      c.lastId = Math.max(c.lastId, r.event_id);
    }
    return c.vecs;
  }

  /**
   * Cosine of the (prepared) query with each of `ids` that has a vector; null when the query was
   * not prepared (then scoring is lexical only).
   */
  cosines(conv: string, text: string, ids: readonly number[]): Map<number, number> | null {
    const q = this.queryCache.get(text);
    if (!q) return null;
    const vecs = this.vectorsOf(conv);
    const out = new Map<number, number>();
    for (const id of ids) {
      const v = vecs.get(id);
      if (v && v.length === q.length) out.set(id, cosine(q, v));
    }
    return out;
  }

  /** Queue every event of the log that has text but no vector from this embedder. */
  backfill(textOf: (kind: string, body: string) => string | null): number {
    const rows = this.db
      .query<{ id: number; conv: string; kind: string; body: string }, [string]>(
        "SELECT e.id, e.conv, e.kind, e.body FROM events e LEFT JOIN event_vectors v ON v.event_id = e.id AND v.embedder = ? WHERE v.event_id IS NULL ORDER BY e.id",
      )
      .all(this.embedder.id);
    let n = 0;
    for (const r of rows) {
      const text = textOf(r.kind, r.body);
      if (text) {
        this.enqueue(r.id, r.conv, text);
        n++;
      }
    }
    if (n > 0)
      this.log.info("embedding events that have no vector from this model", { embedder: this.embedder.id, events: n });
    return n;
  }
}
