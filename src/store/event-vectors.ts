/**
 * `event_vectors`: one embedder's dense vector of each event's text (src/memory/dense-index.ts
 * makes them in the background and scores with them; this file only reads and writes). A vector
 * is stored as the bytes of its Float32Array.
 */
import type { Database } from "bun:sqlite";

export class EventVectors {
  constructor(
    private readonly db: Database,
    /** The embedder whose vectors these are (Embedder.id). */
    private readonly embedder: string,
  ) {}

  /** Record (or replace) an event's vector. */
  save(eventId: number, vec: Float32Array): void {
    this.db
      .query("INSERT OR REPLACE INTO event_vectors (event_id, embedder, dim, vec) VALUES (?, ?, ?, ?)")
      .run(eventId, this.embedder, vec.length, new Uint8Array(vec.buffer, vec.byteOffset, vec.byteLength));
  }

  /** The vectors of a conversation's events after event `after`, in id order (an incremental cache). */
  ofConversation(conv: string, after: number): { event_id: number; vec: Uint8Array }[] {
    return this.db
      .query<{ event_id: number; vec: Uint8Array }, [string, string, number]>(
        "SELECT v.event_id, v.vec FROM event_vectors v JOIN events e ON e.id = v.event_id WHERE e.conv = ? AND v.embedder = ? AND v.event_id > ? ORDER BY v.event_id",
      )
      .all(conv, this.embedder, after);
  }

  /** Every event of the log without a vector from this embedder, oldest first. */
  missing(): { id: number; conv: string; kind: string; body: string }[] {
    return this.db
      .query<{ id: number; conv: string; kind: string; body: string }, [string]>(
        "SELECT e.id, e.conv, e.kind, e.body FROM events e LEFT JOIN event_vectors v ON v.event_id = e.id AND v.embedder = ? WHERE v.event_id IS NULL ORDER BY e.id",
      )
      .all(this.embedder);
  }
}
