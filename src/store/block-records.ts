/**
 * Reading block records (src/store/event-blocks.ts makes them): by id, by event, by the layer
 * that holds them. A block's holder is not stored beside it: it is its event's layer in
 * `event_state` (one row per event; an event without one is in L1, as Store reads it), the one
 * source of truth a prune or a recall already changes — so a pruned event takes its blocks to L2,
 * a recalled one brings them back, and there is no second place that could disagree.
 */
import type { Database } from "bun:sqlite";
import type { BlockHolder, BlockKind, BlockRecord } from "../protocol/blocks.ts";

interface Row {
  id: number;
  event_id: number;
  conv: string;
  seq: number;
  kind: string;
  sha256: string | null;
  mime: string;
  size: number;
  text: string;
  layer: number;
}

const SELECT = `SELECT b.id, b.event_id, e.conv, b.seq, b.kind, b.sha256, b.mime, b.size, b.text,
                       COALESCE(s.layer, 1) AS layer
                FROM blocks b JOIN events e ON e.id = b.event_id
                LEFT JOIN event_state s ON s.event_id = b.event_id`;

const fromRow = (r: Row): BlockRecord => ({
  id: r.id,
  eventId: r.event_id,
  conv: r.conv,
  seq: r.seq,
  kind: r.kind as BlockKind,
  sha256: r.sha256,
  mime: r.mime,
  size: r.size,
  text: r.text,
  holder: `L${r.layer}` as BlockHolder,
});

export class BlockRecords {
  constructor(private readonly db: Database) {}

  /** One block record with its holder; null when there is none with that id. */
  get(id: number): BlockRecord | null {
    const r = this.db.query<Row, [number]>(`${SELECT} WHERE b.id = ?`).get(id);
    return r ? fromRow(r) : null;
  }

  /**
   * Whether a block's event was forgotten with its conversation (Store.forgetConversation): its
   * record and bytes stay, as every event does, but nothing hands them out any more.
   */
  forgotten(b: Pick<BlockRecord, "eventId" | "conv">): boolean {
    const r = this.db
      .query<{ upto: number | null }, [string]>("SELECT forgotten_upto AS upto FROM conversations WHERE id = ?")
      .get(b.conv);
    return r?.upto != null && b.eventId <= r.upto;
  }

  /** The blocks of `eventIds`, by event, each event's in order. */
  ofEvents(eventIds: readonly number[]): Map<number, BlockRecord[]> {
    const out = new Map<number, BlockRecord[]>();
    if (eventIds.length === 0) return out;
    const rows = this.db
      .query<Row, [string]>(`${SELECT} WHERE b.event_id IN (SELECT value FROM json_each(?)) ORDER BY b.event_id, b.seq`)
      .all(JSON.stringify(eventIds));
    for (const r of rows) {
      const list = out.get(r.event_id) ?? [];
      list.push(fromRow(r));
      out.set(r.event_id, list);
    }
    return out;
  }

  /** The blocks a layer holds, in one conversation or (null) in all, oldest first. */
  heldBy(conv: string | null, holder: BlockHolder): BlockRecord[] {
    const layer = Number(holder.slice(1));
    const rows =
      conv === null
        ? this.db.query<Row, [number]>(`${SELECT} WHERE COALESCE(s.layer, 1) = ? ORDER BY b.id`).all(layer)
        : this.db
            .query<Row, [string, number]>(`${SELECT} WHERE e.conv = ? AND COALESCE(s.layer, 1) = ? ORDER BY b.id`)
            .all(conv, layer);
    return rows.map(fromRow);
  }

  /** Every block record, oldest first (audits and the property test). */
  all(): BlockRecord[] {
    return this.db.query<Row, []>(`${SELECT} ORDER BY b.id`).all().map(fromRow);
  }

  count(): number {
    return this.db.query<{ n: number }, []>("SELECT count(*) AS n FROM blocks").get()?.n ?? 0;
  }
}

/** The texts an event's blocks carry (captions, file names, alt text), for the lexical index. */
export function blockTexts(db: Database, eventId: number): string[] {
  return db
    .query<{ text: string }, [number]>("SELECT text FROM blocks WHERE event_id = ? AND text != '' ORDER BY seq")
    .all(eventId)
    .map((r) => r.text);
}

/** An event's indexed text with what its blocks carry that the text does not already say. */
export function withBlockTexts(text: string, texts: readonly string[]): string {
  const extra = [...new Set(texts)].filter((t) => !text.includes(t));
  return extra.length ? [text, ...extra].filter(Boolean).join("\n") : text;
}
