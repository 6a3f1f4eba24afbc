/**
 * The media plugin's contract with the kernel: its [tools.media] settings (config.toml) and the
 * `media/extract` method the kernel calls to turn a stored file (an attachment's block) into
 * text with anchors for memory. The plugin provides the facility `media.extract`.
 */
import * as v from "valibot";
import { TEXT_KINDS } from "./attachments.ts";

const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(v.number("must be a number"), v.integer("must be an integer"), v.minValue(min), v.maxValue(max));
const HttpUrlOrEmpty = v.pipe(
  v.string(),
  v.check((s) => s === "" || /^https?:\/\/\S+$/.test(s), "must be an http(s) URL or empty"),
);

/** [tools.media]: every default works offline with Debian's binaries and sends nothing anywhere. */
export const MediaConfig = v.strictObject({
  /**
   * Base URL of an OpenAI-compatible speech API (…/v1): /audio/speech for media_say and
   * /audio/transcriptions for media_transcribe. Empty: espeak-ng and pocketsphinx, offline.
   */
  speech_url: v.optional(HttpUrlOrEmpty, ""),
  /** The name of the API key's entry in DATA/secrets.json's "values" (empty: no key sent). */
  speech_key_secret: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]{0,64}$/, "must be a secret name")), ""),
  tts_model: v.optional(v.pipe(v.string(), v.minLength(1, "must not be empty")), "tts-1"),
  tts_voice: v.optional(v.pipe(v.string(), v.minLength(1, "must not be empty")), "alloy"),
  stt_model: v.optional(v.pipe(v.string(), v.minLength(1, "must not be empty")), "whisper-1"),
  /** tesseract languages, joined with +, e.g. "eng+chi_sim". */
  ocr_languages: v.optional(
    v.pipe(v.string(), v.regex(/^[A-Za-z_]+(\+[A-Za-z_]+)*$/, "must be tesseract languages like eng+chi_sim")),
    "eng+chi_sim",
  ),
  /** Largest input file any media tool reads (MiB). */
  max_file_mb: v.optional(int(1, 4096), 200),
  /** Pages of one PDF read or extracted at most; a longer one is refused past its first pages. */
  max_pdf_pages: v.optional(int(1, 100_000), 500),
  /** Longest run of one external program (pdftotext, tesseract, ffmpeg…), in milliseconds. */
  timeout_ms: v.optional(int(1000, 3_600_000), 120_000),
  /** The X display media_screenshot grabs (e.g. ":0"); empty: none, the tool says so. */
  display: v.optional(v.pipe(v.string(), v.regex(/^([A-Za-z0-9.-]*:\d+(\.\d+)?)?$/, "must be like :0 or empty")), ""),
});
export type MediaConfig = v.InferOutput<typeof MediaConfig>;

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
