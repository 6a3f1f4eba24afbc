/**
 * Vectors of image and audio blocks: with a CLIP-style model each image block of an
 * event gets its own vector in the text space, with a CLAP-style model each audio block does,
 * kept in block_vectors with the embedder's id (migration 12), so dense recall can find a turn by
 * what its picture shows or its sound is. A block that could not be embedded gets a row with no
 * vector: tried once per model, never again. The same bytes (sha256) seen again in another
 * block reuse the vector already made.
 */
import type { Database } from "bun:sqlite";

/** The kinds of block an encoder may embed. */
export type VectorKind = "image" | "audio";

export interface PendingBlock {
  block: number;
  sha256: string;
  kind: VectorKind;
}

const blob = (vec: Float32Array) => new Uint8Array(vec.buffer, vec.byteOffset, vec.byteLength);
const floats = (b: Uint8Array) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

export class BlockVectors {
  /** `kinds`: what the model embeds (never empty). */
  constructor(
    private readonly db: Database,
    private readonly embedder: string,
    private readonly kinds: readonly VectorKind[] = ["image"],
  ) {}

  /** `b.kind IN (…)` for the kinds this model embeds (fixed literals, never input). */
  private get kindIn(): string {
    return `b.kind IN (${this.kinds.map((k) => `'${k}'`).join(", ")})`;
  }

  /** An event's blocks of those kinds that have bytes and no row from this embedder yet. */
  pendingOf(eventId: number): PendingBlock[] {
    return this.db
      .query<PendingBlock, [string, number]>(
        `SELECT b.id AS block, b.sha256, b.kind FROM blocks b
         LEFT JOIN block_vectors v ON v.block_id = b.id AND v.embedder = ?
         WHERE b.event_id = ? AND ${this.kindIn} AND b.sha256 IS NOT NULL AND v.block_id IS NULL
         ORDER BY b.seq`,
      )
      .all(this.embedder, eventId);
  }

  /** Every block of those kinds in the log without a row from this embedder, oldest first. */
  backlog(): PendingBlock[] {
    return this.db
      .query<PendingBlock, [string]>(
        `SELECT b.id AS block, b.sha256, b.kind FROM blocks b
         LEFT JOIN block_vectors v ON v.block_id = b.id AND v.embedder = ?
         WHERE ${this.kindIn} AND b.sha256 IS NOT NULL AND v.block_id IS NULL
         ORDER BY b.id`,
      )
      .all(this.embedder);
  }

  /** The vector this embedder already made for the same bytes in another block, if any. */
  known(sha256: string, kind: VectorKind): Float32Array | null {
    const r = this.db
      .query<{ vec: Uint8Array }, [string, string, string]>(
        `SELECT v.vec FROM block_vectors v JOIN blocks b ON b.id = v.block_id
         WHERE b.sha256 = ? AND b.kind = ? AND v.embedder = ? AND v.vec IS NOT NULL LIMIT 1`,
      )
      .get(sha256, kind, this.embedder);
    return r ? floats(r.vec) : null;
  }

  /** Record a block's vector, or (null) that it could not be embedded. */
  put(block: number, vec: Float32Array | null): void {
    this.db
      .query("INSERT OR REPLACE INTO block_vectors (block_id, embedder, dim, vec) VALUES (?, ?, ?, ?)")
      .run(block, this.embedder, vec ? vec.length : 0, vec ? blob(vec) : null);
  }

  /**
   * The block vectors of a conversation's events made since block `after`, by event, with the
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
