/**
 * Files a person attaches (POST /api/uploads, and image_url data: URLs on /v1), made ready to
 * store: held to the size limit, typed by their own magic bytes (never the name's extension nor
 * the Content-Type a client sent), and — for images — decoded by sharp with a pixel limit (an
 * image bomb is refused before it is decoded), turned upright by its EXIF orientation, shrunk to
 * MAX_IMAGE_SIDE and written again without its metadata (a phone photo's GPS position stays on
 * the phone). Audio, video and documents are kept as sent. Then the kernel stores the bytes as a
 * block (blocks/put, which sniffs them once more) and the answer names it. Any refusal is an
 * HTTPException with a 4xx status a person can act on, and nothing is stored.
 */
import * as v from "valibot";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  type AttachmentMime,
  kindOfMime,
  MAX_ATTACHMENT_BYTES,
  MAX_ATTACHMENT_NAME_CHARS,
  MAX_IMAGE_PIXELS,
  MAX_IMAGE_SIDE,
  sniffAttachmentMime,
  type UploadResult,
} from "../../src/protocol/attachments.ts";
import { BlockHash } from "../../src/protocol/images.ts";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import { sharpModule } from "../../src/ipc/sharp-module.ts";
import type { Plugin } from "../sdk/index.ts";

const refuse = (status: ContentfulStatusCode, message: string) => new HTTPException(status, { message });

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
/** The refusal of a file over the limit, in bytes too: 16 MiB and one byte both round to "16.0 MiB". */
const tooLarge = (what: string) =>
  refuse(413, `${what}; at most ${MAX_ATTACHMENT_BYTES} bytes (${mib(MAX_ATTACHMENT_BYTES)}) are taken`);

/** What homed takes, for the message that refuses anything else. */
const TAKEN =
  "images (PNG, JPEG, WebP, GIF), audio (Ogg, WebM, MP3, WAV, FLAC, M4A), video (MP4) and documents (PDF, DOCX, text, Markdown, HTML)";

/** A name a person may read: the last path part, no control characters, at most 200 characters. */
export function cleanName(raw: string | undefined, fallback: string): string {
  const base = (raw ?? "").split(/[\\/]/).pop() ?? "";
  const clean = [...base]
    .filter((ch) => ch.charCodeAt(0) >= 0x20 && ch.charCodeAt(0) !== 0x7f)
    .join("")
    .trim();
  return (clean || fallback).slice(0, MAX_ATTACHMENT_NAME_CHARS);
}

export interface PreparedUpload {
  bytes: Uint8Array;
  mime: AttachmentMime;
  width?: number;
  height?: number;
}

/** An image decoded within the limits, upright, at most MAX_IMAGE_SIDE, without metadata. */
async function prepareImage(bytes: Uint8Array, mime: AttachmentMime): Promise<PreparedUpload> {
  const sharp = sharpModule();
  let meta: Awaited<ReturnType<ReturnType<typeof sharp>["metadata"]>>;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw refuse(422, `the image cannot be read: ${(err as Error).message}`);
  }
  const w = meta.width ?? 0;
  const h = meta.pageHeight ?? meta.height ?? 0;
  if (w * h > MAX_IMAGE_PIXELS)
    throw refuse(413, `the image is ${w}×${h} pixels; at most ${MAX_IMAGE_PIXELS / 1_000_000} megapixels are taken`);
  // An animated GIF keeps its frames: checked (above and by a full decode), stored as sent.
  const animated = (meta.pages ?? 1) > 1;
  try {
    const img = sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: "error", animated });
    if (animated) {
      await img.raw().toBuffer();
      return { bytes, mime, width: w, height: h };
    }
    const shaped = img
      .rotate()
      .resize({ width: MAX_IMAGE_SIDE, height: MAX_IMAGE_SIDE, fit: "inside", withoutEnlargement: true });
    const out =
      mime === "image/png"
        ? shaped.png()
        : mime === "image/webp"
          ? shaped.webp({ quality: 85 })
          : mime === "image/gif"
            ? shaped.gif()
            : shaped.jpeg({ quality: 85 });
    const { data, info } = await out.toBuffer({ resolveWithObject: true });
    return { bytes: new Uint8Array(data), mime, width: info.width, height: info.height };
  } catch (err) {
    throw refuse(422, `the image cannot be decoded: ${(err as Error).message}`);
  }
}

/** Check and shape one upload; throws a 4xx HTTPException for anything homed does not take. */
export async function prepareUpload(bytes: Uint8Array, name: string): Promise<PreparedUpload> {
  if (bytes.length === 0) throw refuse(400, "the file is empty");
  if (bytes.length > MAX_ATTACHMENT_BYTES) throw tooLarge(`the file is ${bytes.length} bytes`);
  const mime = sniffAttachmentMime(bytes, name);
  if (!mime) throw refuse(415, `the file's bytes are none of the types homed takes: ${TAKEN}`);
  return kindOfMime(mime) === "image" ? prepareImage(bytes, mime) : { bytes, mime };
}

const PutAnswer = v.object({ sha256: BlockHash, mime: v.string(), bytes: v.number() });

/** Store a prepared upload through the kernel (blocks/put) and name it. */
export async function storeUpload(plugin: Plugin, p: PreparedUpload, name: string): Promise<UploadResult> {
  const ref = await plugin.sendBulk(p.bytes);
  const r = await plugin.call(PluginMethod.BlocksPut, { data: ref, as: "attachment" }, PutAnswer);
  const dims = p.width && p.height ? { width: p.width, height: p.height } : {};
  return { sha256: r.sha256, mime: p.mime, bytes: r.bytes, kind: kindOfMime(p.mime), name, ...dims };
}

/** Read a request body of at most MAX_ATTACHMENT_BYTES (413 past it, whatever Content-Length said). */
export async function readUploadBody(req: Request): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > MAX_ATTACHMENT_BYTES) throw tooLarge(`the file is ${declared} bytes`);
  if (!req.body) return new Uint8Array();
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of req.body) {
    total += chunk.length;
    if (total > MAX_ATTACHMENT_BYTES) throw tooLarge(`the file is over ${MAX_ATTACHMENT_BYTES} bytes`);
    parts.push(chunk);
  }
  return new Uint8Array(Buffer.concat(parts));
}

/** `data:<type>;base64,<bytes>` decoded; a 400 for any other URL (homed fetches nothing for a client). */
export function dataUrlBytes(url: string): Uint8Array {
  const m = /^data:[^;,]*(;[^,]*)?,/.exec(url);
  if (!m) throw refuse(400, "an image_url must be a data: URL (homed does not fetch URLs for a client)");
  if (!m[1]?.includes(";base64")) throw refuse(400, "an image_url data: URL must be base64");
  const b64 = url.slice(m[0].length);
  if (b64.length > Math.ceil((MAX_ATTACHMENT_BYTES * 4) / 3) + 4)
    throw refuse(413, `an image is at most ${mib(MAX_ATTACHMENT_BYTES)}`);
  return new Uint8Array(Buffer.from(b64, "base64"));
}
