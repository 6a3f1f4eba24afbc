/**
 * The images of one tool answer, from the plugin's bulk to the block store: each is copied out
 * of the plugin's arena (and its block released, whatever happens next), held to the size
 * limits, typed by its own magic bytes, and stored content-addressed. An image that fails is
 * dropped with a note the model and the person read in the result text; the rest are kept.
 */
import type * as v from "valibot";
import type { ToolImageFrame } from "../protocol/agent.ts";
import {
  MAX_TOOL_IMAGE_BYTES,
  MAX_TOOL_IMAGES,
  MAX_TOOL_IMAGES_TOTAL_BYTES,
  sniffImageMime,
  type StoredImage,
} from "../protocol/images.ts";
import type { PluginCaller } from "./plugin-caller.ts";

/** Where images are kept: put returns the block's hash. */
export interface BlockSink {
  put(bytes: Uint8Array): string;
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** Read, check and store `frames`; `notes` say what was dropped and why. */
export function storeToolImages(
  caller: PluginCaller,
  blocks: BlockSink | undefined,
  plugin: string,
  frames: readonly v.InferOutput<typeof ToolImageFrame>[],
): { images: StoredImage[]; notes: string[] } {
  const images: StoredImage[] = [];
  const notes: string[] = [];
  let total = 0;
  for (const [i, frame] of frames.entries()) {
    const note = storeOne(i, frame);
    if (note) notes.push(note);
  }
  return { images, notes };

  /** One image stored, or the note saying why not (and a note of a false claim). */
  function storeOne(i: number, frame: (typeof frames)[number]): string | null {
    const n = i + 1;
    if (!caller.takeBulk || !blocks) {
      caller.releaseBulk?.(plugin, frame.data);
      return `[image ${n} dropped: this daemon cannot receive images from plugins]`;
    }
    let bytes: Uint8Array;
    try {
      bytes = caller.takeBulk(plugin, frame.data);
    } catch (err) {
      return `[image ${n} dropped: ${(err as Error).message}]`;
    }
    if (i >= MAX_TOOL_IMAGES) return `[image ${n} dropped: at most ${MAX_TOOL_IMAGES} images per result]`;
    if (bytes.length > MAX_TOOL_IMAGE_BYTES)
      return `[image ${n} dropped: ${mib(bytes.length)} is over the ${mib(MAX_TOOL_IMAGE_BYTES)} limit]`;
    if (total + bytes.length > MAX_TOOL_IMAGES_TOTAL_BYTES)
      return `[image ${n} dropped: the result's images exceed ${mib(MAX_TOOL_IMAGES_TOTAL_BYTES)} together]`;
    const mime = sniffImageMime(bytes);
    if (!mime) return `[image ${n} dropped: its bytes are not a PNG, JPEG, WebP or GIF image]`;
    total += bytes.length;
    const alt = frame.alt?.trim() ? { alt: frame.alt.trim() } : {};
    images.push({ sha256: (blocks as BlockSink).put(bytes), mime, bytes: bytes.length, ...alt });
    // The sniffed type is what is stored and served; a wrong claim is only worth a note.
    return mime !== frame.mime ? `[image ${n}: claimed ${frame.mime}, but its bytes are ${mime}]` : null;
  }
}

/**
 * Release the bulk blocks of an answer nobody will read (the turn was cancelled, the answer was
 * malformed): an unreleased block would hold the plugin's arena, which is reclaimed oldest-first.
 */
export function releaseToolImages(caller: PluginCaller, plugin: string, raw: unknown): void {
  if (!caller.releaseBulk || typeof raw !== "object" || raw === null) return;
  const images = (raw as { images?: unknown }).images;
  if (!Array.isArray(images)) return;
  for (const img of images.slice(0, 64)) {
    try {
      caller.releaseBulk(plugin, (img as { data?: unknown })?.data);
    } catch {
      // not a reference of this plugin's: nothing to release
    }
  }
}
