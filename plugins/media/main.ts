/**
 * The `media` plugin: documents (media_read_doc, media_pdf_page), OCR (media_ocr), voice (media_say,
 * media_transcribe), video (media_video_frames) and the X screen (media_screenshot), on Debian's
 * programs, confined to the [tools.files] roots; and `media/extract` for the kernel (facility
 * media.extract). Lazy: the kernel starts it on the first call and stops it when idle. Every
 * failure — a missing program, a damaged file, a zip bomb — is an answer that says what to do;
 * the plugin keeps running.
 */
import * as v from "valibot";
import { connectPlugin, MAX_TOOL_IMAGE_BYTES, type ToolReturn, withRun } from "../sdk/index.ts";
import { Confinement, FilesError } from "../sdk/confine.ts";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import { MEDIA_EXTRACT_FACILITY, MediaExtractParams, MediaMethod } from "../../src/protocol/media.ts";
import { MediaConfig } from "./settings.ts";
import { HomedError } from "../../src/protocol/errors.ts";
import { docWindow } from "./doc-text.ts";
import { documentText } from "./documents.ts";
import { mediaExtract } from "./extract.ts";
import { MediaError } from "./media-error.ts";
import { readInput, Scratch, writeOutput } from "./media-files.ts";
import { ocrImage } from "./ocr.ts";
import { pdfPagePng } from "./pdf.ts";
import type { RunOptions } from "./programs.ts";
import { sniffMedia } from "./sniff.ts";
import { say, transcribe } from "./speech.ts";
import { TOOLS } from "./tools.ts";
import { frames, probe, screenPng } from "./video.ts";

const ToolsSection = v.object({
  files: v.object({ roots: v.array(v.string()) }),
  media: v.object({ ...MediaConfig.entries, speech_key: v.optional(v.string()) }),
});

const plugin = await connectPlugin();
const { files, media: cfg } = await plugin.call(PluginMethod.ConfigGet, { section: "tools" }, ToolsSection);
let confinement: Confinement | undefined;
const roots = () => {
  confinement ??= new Confinement(files.roots, plugin.hello.dataDir, "media tools");
  return confinement;
};
const maxBytes = cfg.max_file_mb * 1048576;
const run = (signal: AbortSignal): RunOptions => ({ signal, timeoutMs: cfg.timeout_ms });

/** Run a tool body in its own scratch folder; a failure the model can act on becomes "<tool>: …". */
async function guarded(tool: string, body: (scratch: Scratch) => Promise<ToolReturn>): Promise<ToolReturn> {
  using scratch = new Scratch();
  try {
    return await body(scratch);
  } catch (err) {
    if (err instanceof MediaError || err instanceof FilesError)
      return { content: `${tool}: ${err.message}`, isError: true };
    plugin.log.warn("media tool failed", { tool, error: (err as Error).message });
    return { content: `${tool}: ${(err as Error).message}`, isError: true };
  }
}

const image = (data: Uint8Array, mime: "image/png" | "image/jpeg", alt: string) => {
  if (data.length > MAX_TOOL_IMAGE_BYTES)
    throw new MediaError(`the image is over ${MAX_TOOL_IMAGE_BYTES >> 20} MiB; ask for a smaller size`);
  return { mime, data, alt: alt.slice(0, 300) };
};

await plugin.tools([
  withRun(TOOLS.media_read_doc, (a, ctx) =>
    guarded("media_read_doc", async (scratch) => {
      const input = readInput(roots(), a.path, maxBytes, scratch);
      const kind = sniffMedia(input.bytes, a.path);
      const range = { first: a.first_page, last: a.last_page };
      const doc = await documentText(input, kind, range, cfg.max_pdf_pages, run(ctx.signal));
      return docWindow(doc, input.what, a.from ?? 0);
    }),
  ),
  withRun(TOOLS.media_pdf_page, (a, ctx) =>
    guarded("media_pdf_page", async (scratch) => {
      const input = readInput(roots(), a.path, maxBytes, scratch);
      if (sniffMedia(input.bytes, a.path) !== "pdf") throw new MediaError(`${input.what} is not a PDF`);
      const r = await pdfPagePng(input.copy, input.what, a.page, 150, a.size ?? 1400, scratch, run(ctx.signal));
      return {
        content: `Page ${a.page} of ${r.pages} of ${input.what} as a PNG (${r.png.length} bytes).`,
        images: [image(r.png, "image/png", `Page ${a.page} of ${input.what}`)],
      };
    }),
  ),
  withRun(TOOLS.media_ocr, (a, ctx) =>
    guarded("media_ocr", async (scratch) => {
      const input = readInput(roots(), a.path, maxBytes, scratch);
      const languages = a.languages ?? cfg.ocr_languages;
      const r = await ocrImage(input.copy, input.bytes, input.what, languages, scratch, run(ctx.signal));
      const how = `tesseract ${languages}${r.rotated ? ", turned upright first" : ""}`;
      return r.text ? `Text in ${input.what} (${how}):\n\n${r.text}` : `No text found in ${input.what}.`;
    }),
  ),
  withRun(TOOLS.media_say, (a, ctx) =>
    guarded("media_say", async (scratch) => {
      const audio = await say(a.text, a.voice, cfg, scratch, run(ctx.signal));
      const stamp = new Date().toISOString().replace(/[:.]/g, "-");
      const where = writeOutput(
        roots(),
        a.path ?? `media/speech-${stamp}.${audio.ext}`,
        audio.bytes,
        a.overwrite ?? false,
      );
      return `Wrote ${where} (${audio.ext.toUpperCase()}, ${audio.bytes.length} bytes) with ${audio.how}.`;
    }),
  ),
  withRun(TOOLS.media_transcribe, (a, ctx) =>
    guarded("media_transcribe", async (scratch) => {
      const input = readInput(roots(), a.path, maxBytes, scratch);
      if (sniffMedia(input.bytes, a.path) !== "audio-or-video")
        throw new MediaError(`${input.what} is not an audio file (WAV, MP3, OGG, FLAC, M4A, WebM)`);
      const t = await transcribe(input.copy, input.what.split("/").pop() ?? "audio", cfg, scratch, run(ctx.signal));
      return t.text
        ? `Transcript of ${input.what} (${t.how}):\n\n${t.text}`
        : `No speech recognised in ${input.what} (${t.how}).`;
    }),
  ),
  withRun(TOOLS.media_video_frames, (a, ctx) =>
    guarded("media_video_frames", async (scratch) => {
      const input = readInput(roots(), a.path, maxBytes, scratch);
      if (sniffMedia(input.bytes, a.path) !== "audio-or-video")
        throw new MediaError(`${input.what} is not a video file (MP4, WebM, MKV, MOV, AVI, OGG)`);
      const opts = run(ctx.signal);
      const p = await probe(input.copy, input.what, opts);
      if (!p.video)
        throw new MediaError(`${input.what} has no video stream${p.audio ? "; media_transcribe reads its audio" : ""}`);
      const shots = await frames(input.copy, p, a.count ?? 4, 1024, scratch, opts);
      let said = "";
      if (a.transcribe !== false && p.audio) {
        const t = await transcribe(input.copy, input.what, cfg, scratch, opts, true);
        said = `\n\nTranscript of its audio (${t.how}):\n${t.text || "(no speech recognised)"}`;
      } else if (!p.audio) said = "\n\nIt has no audio track.";
      const times = shots.map((f) => `${f.at.toFixed(1)} s`).join(", ");
      return {
        content: `${input.what}: ${p.seconds.toFixed(1)} s of video; frames at ${times}.${said}`,
        images: shots.map((f) => image(f.jpeg, "image/jpeg", `Frame at ${f.at.toFixed(1)} s of ${input.what}`)),
      };
    }),
  ),
  withRun(TOOLS.media_screenshot, (_a, ctx) =>
    guarded("media_screenshot", async (scratch) => {
      const png = await screenPng(cfg.display, scratch, run(ctx.signal));
      return {
        content: `Screenshot of the X display ${cfg.display} (${png.length} bytes PNG).`,
        images: [image(png, "image/png", `Screenshot of the X display ${cfg.display}`)],
      };
    }),
  ),
]);

plugin.handle(MediaMethod.Extract, async (params) => {
  const parsed = v.safeParse(MediaExtractParams, params);
  if (!parsed.success) throw new HomedError("invalid_params", `media/extract: ${parsed.issues[0].message}`);
  using scratch = new Scratch();
  const settings = {
    dataDir: plugin.hello.dataDir,
    maxBytes,
    maxPages: cfg.max_pdf_pages,
    languages: cfg.ocr_languages,
    speech: cfg,
  };
  try {
    // One deadline for the whole answer (a video runs several programs), as long as one program's:
    // the kernel stops waiting about then, and nothing should go on working unseen after it.
    return await mediaExtract(parsed.output, settings, scratch, {
      signal: AbortSignal.timeout(cfg.timeout_ms),
      timeoutMs: cfg.timeout_ms,
    });
  } catch (err) {
    if (err instanceof MediaError) throw new HomedError("invalid_params", `media/extract: ${err.message}`);
    throw err;
  }
});
await plugin.ready(MEDIA_EXTRACT_FACILITY);
plugin.log.info("media plugin ready", { speech: cfg.speech_url ? "api" : "offline" });
