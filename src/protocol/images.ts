/**
 * Images in tool results: the types a tool may return, the limits the kernel holds them to, and
 * the one sniffer that decides an image's type from its first bytes (a plugin's claim is never
 * trusted: a file served with the wrong Content-Type is how a browser gets tricked into running
 * it). Stored images are content-addressed blocks, `DATA/blocks/<sha256[0:2]>/<sha256>`.
 */
import * as v from "valibot";

export const IMAGE_MIMES = ["image/png", "image/jpeg", "image/webp", "image/gif"] as const;
export type ImageMime = (typeof IMAGE_MIMES)[number];
export const ImageMimeSchema = v.picklist(IMAGE_MIMES, `an image type is one of ${IMAGE_MIMES.join(", ")}`);

/** Images one tool result may carry. More would cost the model thousands of tokens each. */
export const MAX_TOOL_IMAGES = 4;
/** Bytes of one image: a full-page screenshot of a large page fits; a photo library does not. */
export const MAX_TOOL_IMAGE_BYTES = 5 * 1024 * 1024;
/**
 * Bytes of all images of one result. Every image of a result is in the plugin's bulk arena at
 * once until the kernel reads the reply, and an arena is about half the segment (default 32 MiB);
 * it is also within the stdio transport's default inline limit (8 MiB).
 */
export const MAX_TOOL_IMAGES_TOTAL_BYTES = 8 * 1024 * 1024;

/** A block's name: the lower-case hex SHA-256 of its bytes. */
export const BlockHash = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, "a block hash is 64 lower-case hex digits"));

/** Characters of an image's alt text (what it shows, as the tool that made it says). */
export const MAX_IMAGE_ALT_CHARS = 300;

/**
 * An image a tool returned, as the log records it: its block, its sniffed type, and the alt
 * text the tool gave (indexed with its block record, src/store/event-blocks.ts).
 */
export const StoredImage = v.object({
  sha256: BlockHash,
  mime: ImageMimeSchema,
  bytes: v.number(),
  alt: v.optional(v.string()),
});
export type StoredImage = v.InferOutput<typeof StoredImage>;

/** `blocks/ab/ab12…`: where a block lives under the data dir (POSIX separators). */
export function blockRelPath(sha256: string): string {
  return `blocks/${sha256.slice(0, 2)}/${sha256}`;
}

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0) =>
  b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x);

/** The image type `bytes` really are, from their magic numbers; null when none of ours. */
export function sniffImageMime(bytes: Uint8Array): ImageMime | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61)
    return "image/gif";
  // RIFF <size> WEBP
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8))
    return "image/webp";
  return null;
}
