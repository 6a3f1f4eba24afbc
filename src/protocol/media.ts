/**
 * The media plugin's contract with the kernel (its [tools.media] settings are
 * plugins/media/settings.ts): the `media/extract` method the kernel calls to turn a stored file (an attachment's block) into
 * text with anchors for memory. The plugin provides the facility `media.extract`.
 */
import * as v from "valibot";
import { TEXT_KINDS } from "./attachments.ts";

export const MediaMethod = { Extract: "media/extract" } as const;
export const MEDIA_EXTRACT_FACILITY = "media.extract";

export const MediaExtractParams = v.strictObject({
  /** An absolute path inside the data dir (the kernel passes a file under DATA/blocks). */
  path: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(4096),
    v.check((p) => p.startsWith("/"), "path must be absolute"),
  ),
  /** What the sender said it is; the plugin sniffs the bytes and trusts this only for text types. */
  mime: v.pipe(v.string(), v.maxLength(255)),
  /** The file's name as given (its extension helps tell Markdown from plain text). */
  name: v.optional(v.pipe(v.string(), v.maxLength(1024))),
});
export type MediaExtractParams = v.InferOutput<typeof MediaExtractParams>;

export const MediaAnchor = v.object({ label: v.string(), offset: v.number() });
export type MediaAnchor = v.InferOutput<typeof MediaAnchor>;

export const MediaExtractResult = v.object({
  kind: v.picklist(TEXT_KINDS),
  text: v.string(),
  /** Where pages or headings start in `text` (character offsets). */
  anchors: v.array(MediaAnchor),
  /** What was left out or how the text was made (e.g. "pages 1–500 of 812"). */
  note: v.optional(v.string()),
});
export type MediaExtractResult = v.InferOutput<typeof MediaExtractResult>;
