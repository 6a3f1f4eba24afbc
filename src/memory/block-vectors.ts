/**
 * Vectors of image blocks (issue 15): with a CLIP-style model, each image block of an event gets
 * its own vector in the text space, kept in block_vectors with the embedder's id (migration 12),
 * so dense recall can find a turn by what its picture shows. A block whose image could not be
 * embedded gets a row with no vector: tried once per model, never again. The same bytes
 * (sha256) seen again in another block reuse the vector already made.
 */
import type { Database } from "bun:sqlite";

export interface PendingImage {
  block: number;
  sha256: string;
}

const blob = (vec: Float32Array) => new Uint8Array(vec.buffer, vec.byteOffset, vec.byteLength);
const floats = (b: Uint8Array) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

export class BlockVectors {
  constructor(
    private readonly db: Database,
    private readonly embedder: string,
  ) {}

  /** An event's image blocks that have bytes and no row from this embedder yet. */
  imagesOf(eventId: number): PendingImage[] {
    return this.db
      .query<PendingImage, [string, number]>(
        `SELECT b.id AS block, b.sha256 FROM blocks b
         LEFT JOIN block_vectors v ON v.block_id = b.id AND v.embedder = ?
         WHERE b.event_id = ? AND b.kind = 'image' AND b.sha256 IS NOT NULL AND v.block_id IS NULL
         ORDER BY b.seq`,
      )
      .all(this.embedder, eventId);
  }

  /** Every image block of the log without a row from this embedder, oldest first. */
  backlog(): PendingImage[] {
    return this.db
      .query<PendingImage, [string]>(
        `SELECT b.id AS block, b.sha256 FROM blocks b
         LEFT JOIN block_vectors v ON v.block_id = b.id AND v.embedder = ?
         WHERE b.kind = 'image' AND b.sha256 IS NOT NULL AND v.block_id IS NULL
         ORDER BY b.id`,
      )
      .all(this.embedder);
  }

  /** The vector this embedder already made for the same bytes in another block, if any. */
  known(sha256: string): Float32Array | null {
    const r = this.db
      .query<{ vec: Uint8Array }, [string, string]>(
        `SELECT v.vec FROM block_vectors v JOIN blocks b ON b.id = v.block_id
         WHERE b.sha256 = ? AND v.embedder = ? AND v.vec IS NOT NULL LIMIT 1`,
      )
      .get(sha256, this.embedder);
    return r ? floats(r.vec) : null;
  }

  /** Record a block's vector, or (null) that its image could not be embedded. */
  put(block: number, vec: Float32Array | null): void {
    this.db
      .query("INSERT OR REPLACE INTO block_vectors (block_id, embedder, dim, vec) VALUES (?, ?, ?, ?)")
      .run(block, this.embedder, vec ? vec.length : 0, vec ? blob(vec) : null);
  }

  /**
   * The image vectors of a conversation's events made since block `after`, by event, with the
   * highest block id read (for an incremental cache: vectors are made in block order).
   */
  ofConversation(conv: string, after: number): { byEvent: Map<number, Float32Array[]>; last: number } {
    const rows = this.db
      .query<{ block_id: number; event_id: number; vec: Uint8Array }, [string, string, number]>(
        `SELECT v.block_id, b.event_id, v.vec FROM block_vectors v
         JOIN blocks b ON b.id = v.block_id JOIN events e ON e.id = b.event_id
         WHERE e.conv = ? AND v.embedder = ? AND v.block_id > ? AND v.vec IS NOT NULL
         ORDER BY v.block_id`,
      )
      .all(conv, this.embedder, after);
    const byEvent = new Map<number, Float32Array[]>();
    let last = after;
    for (const r of rows) {
      const list = byEvent.get(r.event_id) ?? [];
      list.push(floats(r.vec));
      byEvent.set(r.event_id, list);
      last = Math.max(last, r.block_id);
    }
    return { byEvent, last };
  }
}
