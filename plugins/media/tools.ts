/**
 * The media plugin's tool specs: names, words for the model, argument schemas and risk classes.
 * The build imports this file to list the tools in the manifest, so it imports nothing but
 * valibot and the spec type (main.ts attaches the code).
 *
 * Risk: reading and converting files inside the roots is `read`. media_transcribe and
 * media_video_frames may send audio to [tools.media] speech_url — an endpoint the owner configured,
 * trusted like the model provider that sees every turn anyway — so they stay `read`.
 * media_say writes a file (`write`). media_screenshot shows the model whatever is on the owner's
 * screen (open mail, passwords being typed), so it is `secret`: asked about each time.
 */
import * as v from "valibot";
import type { ToolSpec } from "../sdk/tool-spec.ts";

const Path = (what: string) =>
  v.pipe(
    v.string("path must be a string"),
    v.minLength(1, "path must not be empty"),
    v.maxLength(4096, "path must be at most 4096 characters"),
    v.description(`${what}: relative to the workspace, or absolute inside an allowed [tools.files] root.`),
  );
const Int = (what: string, min: number, max: number) =>
  v.pipe(
    v.number(`${what} must be a number`),
    v.integer(`${what} must be a whole number`),
    v.minValue(min),
    v.maxValue(max),
  );

export const TOOLS = {
  media_read_doc: {
    name: "media_read_doc",
    examples: ["read this pdf", "what does the document say", "summarise the attached word file", "读一下这个PDF"],
    description:
      "Read a document as text: PDF (page anchors; first_page/last_page for a range), DOCX, Markdown, HTML (heading anchors) or plain text. Long documents come 20,000 characters at a time: the answer lists the anchors it covers and the `from` to ask for next.",
    input: v.strictObject({
      path: Path("The document"),
      from: v.optional(
        v.pipe(
          Int("from", 0, 1_000_000_000),
          v.description("Character offset to start at (from a previous answer). Default 0."),
        ),
      ),
      first_page: v.optional(v.pipe(Int("first_page", 1, 1_000_000), v.description("PDF only: first page to read."))),
      last_page: v.optional(v.pipe(Int("last_page", 1, 1_000_000), v.description("PDF only: last page to read."))),
    }),
    risk: "read",
    untrustedOutput: true,
  },
  media_pdf_page: {
    name: "media_pdf_page",
    examples: ["look at the chart on page 3 of the pdf", "show me the table in the paper"],
    description:
      "Render one page of a PDF as a PNG image you can look at (when your model reads images): for figures, tables and scanned pages that have no text.",
    input: v.strictObject({
      path: Path("The PDF"),
      page: v.pipe(Int("page", 1, 1_000_000), v.description("The page number, from 1.")),
      size: v.optional(v.pipe(Int("size", 200, 3000), v.description("Longer side in pixels. Default 1400."))),
    }),
    risk: "read",
    untrustedOutput: true,
  },
  media_ocr: {
    name: "media_ocr",
    examples: ["what's written in this photo", "read the text in the picture", "scan this receipt", "识别图片里的文字"],
    description:
      "Read the text in an image (a screenshot, a photo of a page) with tesseract OCR. Languages default to English and Simplified Chinese.",
    input: v.strictObject({
      path: Path("The image (PNG, JPEG, GIF, WebP, TIFF, BMP)"),
      languages: v.optional(
        v.pipe(
          v.string(),
          v.regex(/^[A-Za-z_]+(\+[A-Za-z_]+)*$/, "languages must be tesseract codes joined with +, e.g. eng+chi_sim"),
          v.description("tesseract language codes joined with +, e.g. eng, chi_sim, eng+deu."),
        ),
      ),
    }),
    risk: "read",
    untrustedOutput: true,
  },
  media_say: {
    name: "media_say",
    examples: ["read this aloud", "turn this text into speech", "make an audio file of it", "朗读这段话"],
    description:
      "Speak text into an audio file in the workspace (offline with espeak-ng as WAV, or with the configured speech API as MP3). Returns the file's path.",
    input: v.strictObject({
      text: v.pipe(
        v.string(),
        v.minLength(1, "text must not be empty"),
        v.maxLength(20_000, "text must be at most 20000 characters"),
      ),
      path: v.optional(Path("Where to write the audio (default media/speech-<time>.wav or .mp3)")),
      voice: v.optional(
        v.pipe(
          v.string(),
          v.regex(/^[A-Za-z0-9][A-Za-z0-9_+-]{0,39}$/, "voice must be a voice name like en-us, zh or alloy"),
          v.description("An espeak-ng voice (en-us, en, zh, de...) offline, or the speech API's voice name."),
        ),
      ),
      overwrite: v.optional(v.pipe(v.boolean(), v.description("Replace an existing file at path. Default false."))),
    }),
    risk: "write",
    ownOutput: "says whether the speech was made and where the audio is",
  },
  media_transcribe: {
    name: "media_transcribe",
    examples: ["transcribe this voice memo", "what is said in the recording", "把录音转成文字"],
    description:
      "Turn speech in an audio file (WAV, MP3, OGG, M4A, WebM...) into text: through the configured speech API, or offline with pocketsphinx (English only, rough).",
    input: v.strictObject({ path: Path("The audio file") }),
    risk: "read",
    untrustedOutput: true,
  },
  media_video_frames: {
    name: "media_video_frames",
    examples: ["what happens in this video", "watch the clip and tell me", "看看这个视频"],
    description:
      "Look at a video: up to 4 frames at evenly spaced times as images, its length, and a transcript of its audio track (set transcribe false to skip).",
    input: v.strictObject({
      path: Path("The video file"),
      count: v.optional(v.pipe(Int("count", 1, 4), v.description("How many frames (1 to 4). Default 4."))),
      transcribe: v.optional(v.pipe(v.boolean(), v.description("Transcribe the audio track. Default true."))),
    }),
    risk: "read",
    untrustedOutput: true,
  },
  media_screenshot: {
    name: "media_screenshot",
    examples: ["screenshot of my desktop", "what's on my screen right now"],
    description:
      "A screenshot of the owner's X display (where one is configured), as an image. For a web page use browser_screenshot instead.",
    input: v.strictObject({}),
    risk: "secret",
    untrustedOutput: true,
  },
} satisfies Record<string, ToolSpec>;
