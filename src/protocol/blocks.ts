/**
 * Block records: a per-event record with its own stable id — kind, the sha256 of its
 * bytes in DATA/blocks when it has bytes, type, size, and the text it carries (caption, file
 * name, alt text) — whose one holder is its event's memory layer. The shapes `blocks/get`
 * answers with, and the image tag a channel writes into a message's text for a stored image
 * (`[image block <sha256> <mime> <n> bytes]`), which is how a QQ picture becomes a block record.
 */
import * as v from "valibot";
import { BulkRefSchema } from "./plugin.ts";

export const BLOCK_KINDS = ["text", "image", "audio", "video", "page", "file"] as const;
export type BlockKind = (typeof BLOCK_KINDS)[number];

/** Characters of text one block carries (a caption, a file name, alt text); the rest is cut. */
export const MAX_BLOCK_TEXT_CHARS = 500;

/** The layer holding a block: its event's (L1 context, L2 cold, L3 distilled). */
export type BlockHolder = "L1" | "L2" | "L3";

export const BlockRecordSchema = v.object({
  id: v.number(),
  eventId: v.number(),
  conv: v.string(),
  /** Position among its event's blocks. */
  seq: v.number(),
  kind: v.picklist(BLOCK_KINDS),
  /** The bytes' hash (DATA/blocks/<sha256[0:2]>/<sha256>); null for a block without bytes. */
  sha256: v.nullable(v.string()),
  mime: v.string(),
  size: v.number(),
  text: v.string(),
  holder: v.picklist(["L1", "L2", "L3"]),
});
export type BlockRecord = v.InferOutput<typeof BlockRecordSchema>;

/** blocks/get: a block record by id, with its bytes (bulk: the shm arena, or base64 on stdio). */
export const BlocksGetParams = v.strictObject({
  id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /** false: the record only (default true). */
  bytes: v.optional(v.boolean(), true),
});
export const BlocksGetResult = v.object({
  block: BlockRecordSchema,
  /** Absent for a block without bytes or when `bytes: false`. Release it once read. */
  data: v.optional(BulkRefSchema),
});
export type BlocksGetResult = v.InferOutput<typeof BlocksGetResult>;

const TAG = /\[image block ([0-9a-f]{64}) (image\/(?:png|jpeg|webp|gif)) (\d+) bytes\]/g;

/** How a channel names a stored image in a message's text. */
export function imageTag(img: { sha256: string; mime: string; bytes: number }): string {
  return `[image block ${img.sha256} ${img.mime} ${img.bytes} bytes]`;
}

/** The image tags of a text, in order, and the text without them (the images' caption). */
export function parseImageTags(text: string): {
  images: { sha256: string; mime: string; bytes: number }[];
  rest: string;
} {
  const images: { sha256: string; mime: string; bytes: number }[] = [];
  if (!text.includes("[image block ")) return { images, rest: text };
  for (const m of text.matchAll(TAG))
    images.push({ sha256: m[1] as string, mime: m[2] as string, bytes: Number(m[3]) });
  return { images, rest: text.replace(TAG, " ").replace(/\s+/g, " ").trim() };
}
