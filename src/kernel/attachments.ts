/**
 * The attachments a channel names in chat/send, made into what the user message's event keeps
 * (src/protocol/attachments.ts). The channel stored the bytes first (blocks/put); here each is
 * read back from DATA/blocks and typed by its own bytes — a plugin's word for the type is never
 * taken — and its text is read by whichever plugin provides the facility "media.extract" (the
 * media plugin: a document's text, OCR of an image, a transcript of audio), with a time limit.
 * No such plugin, a failure or a timeout loses nothing: the attachment is kept with a note
 * ("text not extracted: …") and the turn goes on.
 */
import * as v from "valibot";
import {
  type Attachment,
  type AttachmentRef,
  kindOfMime,
  MAX_ATTACHMENT_TEXT_CHARS,
  sniffAttachmentMime,
} from "../protocol/attachments.ts";
import { HomedError } from "../protocol/errors.ts";
import { MEDIA_EXTRACT_FACILITY, MediaExtractResult, MediaMethod } from "../protocol/media.ts";
import type { ClientMessage } from "../protocol/channel.ts";
import { sniffImageMime } from "../protocol/images.ts";
import type { KernelServices } from "./kernel-services.ts";

/**
 * How long the media plugin may read one attachment (OCR of a photo, a few minutes of speech):
 * the media plugin's own default limit for one program run ([tools.media] timeout_ms).
 */
export const EXTRACT_TIMEOUT_MS = 120_000;
/** Anchors kept per attachment (a long PDF's pages). */
const MAX_ANCHORS = 500;

type Deps = Pick<KernelServices, "blocks"> & { plugins: Pick<KernelServices["plugins"], "provider" | "request"> };

/** The text of one stored attachment, or the note saying why there is none. */
async function extract(
  k: Deps,
  a: Omit<Attachment, "text" | "note">,
  timeoutMs: number,
): Promise<Pick<Attachment, "text" | "textKind" | "anchors" | "note">> {
  const provider = k.plugins.provider(MEDIA_EXTRACT_FACILITY);
  if (!provider) return { note: `text not extracted: no plugin provides ${MEDIA_EXTRACT_FACILITY}` };
  let raw: unknown;
  try {
    const params = { path: k.blocks.path(a.sha256), mime: a.mime, ...(a.name ? { name: a.name } : {}) };
    raw = await k.plugins.request(provider, MediaMethod.Extract, params, timeoutMs);
  } catch (err) {
    return { note: `text not extracted: ${(err as Error).message}` };
  }
  const r = v.safeParse(MediaExtractResult, raw);
  if (!r.success) return { note: `text not extracted: ${provider} answered media/extract with a malformed result` };
  const text = r.output.text.trim().slice(0, MAX_ATTACHMENT_TEXT_CHARS);
  const anchors = r.output.anchors.filter((x) => x.offset <= text.length).slice(0, MAX_ANCHORS);
  return {
    ...(text ? { text, textKind: r.output.kind } : {}),
    ...(anchors.length && text ? { anchors } : {}),
    ...(r.output.note ? { note: r.output.note } : !text ? { note: "no text found in it" } : {}),
  };
}

/**
 * The attachments `refs` name, each checked against its stored bytes and with its text read.
 * A block that is not stored, or whose bytes are no type an attachment may be, is an
 * invalid_params error before anything is logged.
 */
export async function resolveAttachments(
  k: Deps,
  refs: readonly AttachmentRef[],
  timeoutMs = EXTRACT_TIMEOUT_MS,
): Promise<Attachment[]> {
  const stored = refs.map((ref): Omit<Attachment, "text" | "note"> => {
    const bytes = k.blocks.read(ref.sha256);
    if (!bytes) throw new HomedError("invalid_params", `no stored block ${ref.sha256}: upload the file first`);
    const mime = sniffAttachmentMime(bytes, ref.name);
    if (!mime) throw new HomedError("invalid_params", `block ${ref.sha256} is no image, audio, video or document`);
    const name = ref.name?.trim() ? { name: ref.name.trim() } : {};
    return { sha256: ref.sha256, mime, bytes: bytes.length, kind: kindOfMime(mime), ...name };
  });
  return Promise.all(stored.map(async (a) => ({ ...a, ...(await extract(k, a, timeoutMs)) })));
}

/**
 * The images of a stateless client's history (the /v1 API stores them as blocks first): each must
 * be stored and be the image type it claims, or the request is refused before the turn.
 */
export function checkHistoryImages(k: Pick<KernelServices, "blocks">, history: readonly ClientMessage[]): void {
  for (const m of history) {
    if (m.role !== "user") continue;
    for (const img of m.images ?? []) {
      const bytes = k.blocks.read(img.sha256);
      if (!bytes) throw new HomedError("invalid_params", `no stored block ${img.sha256}: upload the image first`);
      if (sniffImageMime(bytes) !== img.mime)
        throw new HomedError("invalid_params", `block ${img.sha256} is not the ${img.mime} image it is said to be`);
    }
  }
}
