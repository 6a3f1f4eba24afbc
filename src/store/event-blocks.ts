/**
 * The block records an event carries, made from its body when it is appended (Store.append, in
 * the same transaction) and — for events logged before block records existed — by migration 10,
 * which adopts them from the same bodies. Today's blocks are images: a tool result's images
 * (`images`, with the alt text the tool gave) and the images a channel stored and named in a
 * user message (`[image block …]`, src/protocol/blocks.ts; only from the channels whose plugins
 * declare `image_tags`, src/protocol/manifest.ts), captioned by the message's other words; and the attachments a user message names
 * (`attachments`, src/protocol/attachments.ts: images, audio, video, documents uploaded to the
 * web UI or the /v1 API), each carrying its name, the message's words and the start of the
 * text read from it. The bytes are already in DATA/blocks (src/store/blocks.ts); a record
 * only points at them. Records are never changed or deleted (triggers, migrations.ts), so a
 * block's id, event and bytes are fixed for good; its holder is its event's layer.
 */
import type { Database } from "bun:sqlite";
import { readEventBody } from "../protocol/event-bodies.ts";
import { type BlockKind, MAX_BLOCK_TEXT_CHARS, parseImageTags } from "../protocol/blocks.ts";

export interface NewBlock {
  kind: BlockKind;
  sha256: string | null;
  mime: string;
  size: number;
  text: string;
}

const cut = (s: string) => (s.length > MAX_BLOCK_TEXT_CHARS ? s.slice(0, MAX_BLOCK_TEXT_CHARS) : s);

/**
 * The blocks of an event by its kind and stored body (JSON); none for kinds that carry none.
 * Cheap for every other event: the body is only parsed when it can hold a block. A user message's
 * image tags are believed from `tagChannels` alone: elsewhere a tag is just text someone wrote.
 */
export function blocksOfEvent(kind: string, body: string, tagChannels: readonly string[] = []): NewBlock[] {
  if (kind === "tool-result" && body.includes('"images"')) {
    const r = readEventBody(kind, body);
    if (r?.kind !== "tool-result" || !r.body.images) return [];
    return r.body.images.map((i) => ({
      kind: "image",
      sha256: i.sha256,
      mime: i.mime,
      size: i.bytes,
      text: cut(i.alt ?? ""),
    }));
  }
  if (kind === "user-message" && body.includes('"attachments"')) {
    const r = readEventBody(kind, body);
    if (r?.kind !== "user-message" || !r.body.attachments?.length) return [];
    const words = r.body.text.trim();
    return r.body.attachments.map((a) => ({
      kind: a.kind,
      sha256: a.sha256,
      mime: a.mime,
      size: a.bytes,
      text: cut([a.name, words, a.text].filter(Boolean).join("\n")),
    }));
  }
  if (kind === "user-message" && body.includes("[image block ")) {
    const r = readEventBody(kind, body);
    if (r?.kind !== "user-message" || !tagChannels.includes(r.body.channel ?? "")) return [];
    const { images, rest } = parseImageTags(r.body.text);
    return images.map((i) => ({ kind: "image", sha256: i.sha256, mime: i.mime, size: i.bytes, text: cut(rest) }));
  }
  return [];
}

/** Record `blocks` as event `eventId`'s, in order (call inside the transaction that appended it). */
export function insertBlocks(db: Database, eventId: number, blocks: readonly NewBlock[]): void {
  if (blocks.length === 0) return;
  const q = db.query("INSERT INTO blocks (event_id, seq, kind, sha256, mime, size, text) VALUES (?, ?, ?, ?, ?, ?, ?)");
  blocks.forEach((b, seq) => {
    q.run(eventId, seq, b.kind, b.sha256, b.mime, b.size, b.text);
  });
}

/**
 * Adopt the blocks of events logged before block records existed (migration 10): every tool
 * result with images and every user message naming a stored image gets its records, once.
 * Returns how many records were made.
 */
export function adoptBlocks(db: Database, tagChannels: readonly string[]): number {
  const rows = db
    .query<{ id: number; kind: string; body: string }, []>(
      `SELECT e.id, e.kind, e.body FROM events e
       WHERE (e.kind = 'tool-result' OR e.kind = 'user-message')
         AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.event_id = e.id)
       ORDER BY e.id`,
    )
    .all();
  let n = 0;
  for (const r of rows) {
    const blocks = blocksOfEvent(r.kind, r.body, tagChannels);
    insertBlocks(db, r.id, blocks);
    n += blocks.length;
  }
  return n;
}
