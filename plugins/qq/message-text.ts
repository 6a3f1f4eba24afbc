/**
 * A QQ message as the text of the user message homed logs and the model reads: text as is,
 * @-mentions as @name, a quoted reply, faces, voice, and images — each image fetched, stored as a
 * block (blocks/put: DATA/blocks/<sha256[0:2]>/<sha256>) and named by its block in the text. A
 * voice message (`record`) is fetched (a SILK clip, QQ's own format, decoded to WAV: silk.ts) and
 * stored as an attachment (blocks/put as "attachment": typed by its bytes) that chat/send names,
 * so the kernel has it transcribed like the web UI's.
 */
import * as v from "valibot";
import type { AttachmentRef } from "../../src/protocol/attachments.ts";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import { StoredImage } from "../../src/protocol/images.ts";
import { imageTag } from "../../src/protocol/blocks.ts";
import type { Plugin } from "../sdk/index.ts";
import type { Segment } from "./onebot.ts";
import { playableVoice } from "./silk.ts";

const str = (x: unknown) => (x === undefined || x === null ? "" : String(x));

/** Whether the message @-mentions `selfId`. */
export function mentions(segments: readonly Segment[], selfId: number): boolean {
  return segments.some((s) => s.type === "at" && str(s.data.qq) === String(selfId));
}

/** The message's plain text only (for keyword rules and y/n answers). */
export function plainText(segments: readonly Segment[]): string {
  return segments
    .filter((s) => s.type === "text")
    .map((s) => str(s.data.text))
    .join("")
    .trim();
}

/** Read at most `max` bytes of an image or a voice message, or say why not. */
async function fetchImage(seg: Segment, maxBytes: number): Promise<Uint8Array> {
  const file = str(seg.data.file);
  if (file.startsWith("base64://")) {
    const bytes = Buffer.from(file.slice("base64://".length), "base64");
    if (bytes.length > maxBytes) throw new Error(`over the ${maxBytes}-byte limit`);
    return new Uint8Array(bytes);
  }
  const url = /^https?:\/\//.test(str(seg.data.url)) ? str(seg.data.url) : /^https?:\/\//.test(file) ? file : "";
  if (!url) throw new Error("no URL to fetch it from");
  const res = await fetch(url, { signal: AbortSignal.timeout(20_000), redirect: "follow" });
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new Error(`over the ${maxBytes}-byte limit`);
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of res.body) {
    total += chunk.length;
    if (total > maxBytes) throw new Error(`over the ${maxBytes}-byte limit`);
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

/** Store an image's bytes as a block through the kernel. */
async function storeImage(plugin: Plugin, bytes: Uint8Array): Promise<v.InferOutput<typeof StoredImage>> {
  const ref = await plugin.sendBulk(bytes);
  return await plugin.call(PluginMethod.BlocksPut, { data: ref }, StoredImage);
}

export interface TextOptions {
  plugin: Plugin;
  selfId: number;
  maxImageBytes: number;
  /** Where a voice message's stored block is named for chat/send; absent: voice stays "[voice message]". */
  attachments?: AttachmentRef[];
}

const PutAnswer = v.object({ sha256: v.string(), mime: v.string(), bytes: v.number() });

/** Store a voice message's bytes as an attachment block (the kernel sniffs the type). */
async function storeVoice(plugin: Plugin, bytes: Uint8Array): Promise<v.InferOutput<typeof PutAnswer>> {
  const ref = await plugin.sendBulk(bytes);
  return await plugin.call(PluginMethod.BlocksPut, { data: ref, as: "attachment" }, PutAnswer);
}

/** The message as text; images are stored on the way. A failed image becomes a note, not a failure. */
export async function messageText(segments: readonly Segment[], o: TextOptions): Promise<string> {
  const out: string[] = [];
  for (const s of segments) {
    const d = s.data;
    switch (s.type) {
      case "text":
        // Typed text cannot pose as a stored picture: only an image segment names a block.
        out.push(str(d.text).replaceAll("[image block ", "[image-block "));
        break;
      case "at":
        // homed's own mention is how the group calls it, not part of what is said.
        if (str(d.qq) !== String(o.selfId))
          out.push(str(d.qq) === "all" ? "@everyone" : `@${str(d.name) || str(d.qq)}`);
        break;
      case "reply":
        out.push(`[reply to message ${str(d.id)}] `);
        break;
      case "face":
        out.push(`[face ${str(d.id)}]`);
        break;
      case "record":
        // Nothing to fetch (an implementation that gives no file): just say there was one.
        if (!o.attachments || ![d.url, d.file].some((x) => /^(base64|https?):\/\//.test(str(x)))) {
          out.push("[voice message]");
          break;
        }
        try {
          const voice = await storeVoice(o.plugin, await playableVoice(await fetchImage(s, o.maxImageBytes)));
          // A base64:// file has no name (its last "/" is inside the base64).
          const file = str(d.file);
          const name = file.startsWith("base64://") ? "" : file.split("/").pop();
          o.attachments.push({ sha256: voice.sha256, name: name || "voice" });
          out.push("[voice message]");
        } catch (err) {
          o.plugin.log.warn("qq voice not stored", { err: (err as Error).message });
          out.push(`[voice message not stored: ${(err as Error).message}]`);
        }
        break;
      case "image":
        try {
          const img = await storeImage(o.plugin, await fetchImage(s, o.maxImageBytes));
          out.push(imageTag(img));
        } catch (err) {
          o.plugin.log.warn("qq image not stored", { err: (err as Error).message });
          out.push(`[image not stored: ${(err as Error).message}]`);
        }
        break;
      default:
        out.push(`[${s.type}]`);
    }
  }
  return out.join("").trim();
}

/** Split a reply into messages of at most `max` characters, at a line or space when one is near. */
export function splitReply(text: string, max: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let cut = rest.lastIndexOf("\n", max);
    if (cut < max / 2) cut = rest.lastIndexOf(" ", max);
    if (cut < max / 2) cut = max;
    out.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest) out.push(rest);
  return out;
}
