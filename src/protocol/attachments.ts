/**
 * Attachments to a person's message: images, audio, video and documents uploaded to
 * a channel (the web UI, the /v1 API). The bytes are content-addressed blocks (DATA/blocks); the
 * user message's event body names them with the type sniffed from their own bytes (never the
 * file name's extension nor a client's Content-Type) and, once the media plugin read them, the
 * text they carry (a document's text, OCR, a transcript) — or a note saying why there is none.
 * The same text is what the model reads beside the message and what memory indexes, so a later
 * search finds the attachment by what it says.
 */
import * as v from "valibot";
import { BlockHash, sniffImageMime } from "./images.ts";

/** What an attachment is, as its block record's kind says it. */
export const ATTACHMENT_KINDS = ["image", "audio", "video", "file"] as const;
export type AttachmentKind = (typeof ATTACHMENT_KINDS)[number];

/** Bytes of one upload: what one block may be when it crosses the plugin's arena (~half of 32 MiB). */
export const MAX_ATTACHMENT_BYTES = 16 * 1024 * 1024;
/** Attachments of one message. */
export const MAX_ATTACHMENTS = 8;
/** Pixels an uploaded image may decode to (a 50 MP phone photo fits; a decompression bomb does not). */
export const MAX_IMAGE_PIXELS = 60_000_000;
/** The long side of a stored image: what a vision model reads well, far smaller than a phone photo. */
export const MAX_IMAGE_SIDE = 2048;
/** Characters of text kept from one attachment (a long document's first 100k). */
export const MAX_ATTACHMENT_TEXT_CHARS = 100_000;
/** Characters of an attachment's name. */
export const MAX_ATTACHMENT_NAME_CHARS = 200;

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/** The types an attachment may be, by kind. Anything else is refused. */
export const ATTACHMENT_MIMES = {
  "image/png": "image",
  "image/jpeg": "image",
  "image/webp": "image",
  "image/gif": "image",
  "audio/ogg": "audio",
  "audio/webm": "audio",
  "audio/mpeg": "audio",
  "audio/wav": "audio",
  "audio/flac": "audio",
  "audio/mp4": "audio",
  "audio/amr": "audio",
  "video/mp4": "video",
  "application/pdf": "file",
  [DOCX]: "file",
  "text/plain": "file",
  "text/markdown": "file",
  "text/html": "file",
} as const satisfies Record<string, AttachmentKind>;
export type AttachmentMime = keyof typeof ATTACHMENT_MIMES;

/** The kind of a sniffed type. */
export const kindOfMime = (mime: AttachmentMime): AttachmentKind => ATTACHMENT_MIMES[mime];

const ascii = (b: Uint8Array, at: number, s: string) =>
  b.length >= at + s.length && [...s].every((ch, i) => b[at + i] === ch.charCodeAt(0));

/**
 * Whether the ASCII text `s` occurs anywhere in `b`. A plain byte search rather than Node's
 * Buffer: src/protocol is also type-checked for the browser (the web UI imports its types).
 */
function containsAscii(b: Uint8Array, s: string): boolean {
  const first = s.charCodeAt(0);
  for (let at = b.indexOf(first); at !== -1; at = b.indexOf(first, at + 1)) if (ascii(b, at, s)) return true;
  return false;
}

/** The text `bytes` are, when they are UTF-8 without control bytes other than whitespace. */
function isText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 64 * 1024);
  for (const b of head) if (b === 0 || (b < 0x20 && b !== 9 && b !== 10 && b !== 13 && b !== 12)) return false;
  try {
    // A cut multi-byte character at the end of the sample is not an error of the file.
    new TextDecoder("utf-8", { fatal: true }).decode(head.length < bytes.length ? head.subarray(0, -4) : head);
    return true;
  } catch {
    return false;
  }
}

/**
 * The type `bytes` really are, from their magic numbers; null when none we take. `name` only
 * narrows a text file to Markdown (both are text: the bytes decide that it is text at all).
 */
export function sniffAttachmentMime(bytes: Uint8Array, name = ""): AttachmentMime | null {
  if (bytes.length === 0) return null;
  const image = sniffImageMime(bytes);
  if (image) return image;
  if (ascii(bytes, 0, "OggS")) return "audio/ogg";
  if (bytes.length >= 4 && bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3)
    return "audio/webm";
  if (ascii(bytes, 0, "ID3") || (bytes.length > 2 && bytes[0] === 0xff && ((bytes[1] as number) & 0xe6) === 0xe2))
    return "audio/mpeg";
  if (ascii(bytes, 0, "RIFF") && ascii(bytes, 8, "WAVE")) return "audio/wav";
  if (ascii(bytes, 0, "fLaC")) return "audio/flac";
  // AMR-NB, what QQ and older phones record voice in.
  if (ascii(bytes, 0, "#!AMR\n")) return "audio/amr";
  if (ascii(bytes, 4, "ftyp")) return ascii(bytes, 8, "M4A ") ? "audio/mp4" : "video/mp4";
  if (ascii(bytes, 0, "%PDF-")) return "application/pdf";
  // A zip is taken only as a Word document: one whose entries name word/document.xml.
  if (ascii(bytes, 0, "PK\x03\x04")) return containsAscii(bytes, "word/document.xml") ? DOCX : null;
  if (!isText(bytes)) return null;
  const start = new TextDecoder().decode(bytes.subarray(0, 512)).trimStart().toLowerCase();
  if (start.startsWith("<!doctype html") || start.startsWith("<html")) return "text/html";
  return /\.(md|markdown)$/i.test(name) ? "text/markdown" : "text/plain";
}

export const AttachmentMimeSchema = v.picklist(
  Object.keys(ATTACHMENT_MIMES) as AttachmentMime[],
  "not a type an attachment may be",
);

const Name = v.pipe(v.string(), v.maxLength(MAX_ATTACHMENT_NAME_CHARS));

/** What a channel names when it sends a message with attachments it stored (blocks/put). */
export const AttachmentRef = v.strictObject({ sha256: BlockHash, name: v.optional(Name) });
export type AttachmentRef = v.InferOutput<typeof AttachmentRef>;

/** How the text of an attachment was read (media/extract's kind). */
export const TEXT_KINDS = ["document", "ocr", "transcript", "video"] as const;

/** An attachment as the user message's event body keeps it. */
export const Attachment = v.object({
  sha256: BlockHash,
  mime: AttachmentMimeSchema,
  bytes: v.number(),
  kind: v.picklist(ATTACHMENT_KINDS),
  name: v.optional(v.string()),
  /** The text the media plugin read from it, cut to MAX_ATTACHMENT_TEXT_CHARS. */
  text: v.optional(v.string()),
  textKind: v.optional(v.picklist(TEXT_KINDS)),
  /** Where pages or headings start in `text`. */
  anchors: v.optional(v.array(v.object({ label: v.string(), offset: v.number() }))),
  /** Why there is no text, or what to know of it ("text not extracted: …"). */
  note: v.optional(v.string()),
});
export type Attachment = v.InferOutput<typeof Attachment>;

/** What POST /api/uploads answers for one stored file. */
export const UploadResult = v.object({
  sha256: BlockHash,
  mime: AttachmentMimeSchema,
  bytes: v.number(),
  kind: v.picklist(ATTACHMENT_KINDS),
  name: v.string(),
  width: v.optional(v.number()),
  height: v.optional(v.number()),
});
export type UploadResult = v.InferOutput<typeof UploadResult>;

const size = (n: number) =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(0)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;

const TEXT_LABEL: Record<(typeof TEXT_KINDS)[number], string> = {
  document: "its text",
  ocr: "text read from it (OCR)",
  transcript: "transcript",
  video: "what it shows and says",
};

/** "[attached image "cat.jpg" (image/jpeg, 220 KB)]" and what it says, for the model and memory. */
export function attachmentLine(a: Attachment): string {
  const head = `[attached ${a.kind === "file" ? "document" : a.kind}${a.name ? ` "${a.name}"` : ""} (${a.mime}, ${size(a.bytes)})]`;
  // A note beside text says how it was made or what was left out ("pages 1–500 of 812").
  if (a.text) return `${head}\n${TEXT_LABEL[a.textKind ?? "document"]}${a.note ? ` (${a.note})` : ""}:\n${a.text}`;
  return a.note ? `${head} (${a.note})` : head;
}

/** A user message's text as the model reads it and memory indexes it: the words, then each attachment. */
export function userMessageText(text: string, attachments: readonly Attachment[] | undefined): string {
  if (!attachments?.length) return text;
  return [text, ...attachments.map(attachmentLine)].filter(Boolean).join("\n\n");
}
