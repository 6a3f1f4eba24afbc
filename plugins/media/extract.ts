/**
 * media/extract: the kernel's way to get the text of a stored file (an attachment's block) for
 * memory — a document's text with page or heading anchors, an image's OCR, an audio file's
 * transcript, or a video's transcript. The path must lie inside the data dir (the kernel passes
 * files under DATA/blocks); the bytes are sniffed, the claimed type only breaks ties.
 */
import { closeSync, constants, fstatSync, openSync, realpathSync, writeFileSync } from "node:fs";
import { readAll } from "../sdk/dir-entry.ts";
import { sep } from "node:path";
// What the kernel keeps of an attachment's text: more would cross the pipe to be thrown away,
// and the note would name a cut that is not the one stored.
import { MAX_ATTACHMENT_TEXT_CHARS } from "../../src/protocol/attachments.ts";
import type { MediaExtractParams, MediaExtractResult } from "../../src/protocol/media.ts";
import { documentText } from "./documents.ts";
import { MediaError } from "./media-error.ts";
import { type Input, mib, type Scratch } from "./media-files.ts";
import { ocrImage } from "./ocr.ts";
import type { RunOptions } from "./programs.ts";
import { sniffMedia } from "./sniff.ts";
import { type SpeechSettings, transcribe } from "./speech.ts";
import { probe } from "./video.ts";

export interface ExtractSettings {
  dataDir: string;
  maxBytes: number;
  maxPages: number;
  languages: string;
  speech: SpeechSettings;
}

function readKernelFile(p: MediaExtractParams, s: ExtractSettings, scratch: Scratch): Input {
  let real: string;
  try {
    real = realpathSync(p.path);
  } catch {
    throw new MediaError(`${p.path} does not exist`);
  }
  const data = realpathSync(s.dataDir);
  if (!real.startsWith(data + sep))
    throw new MediaError(`${p.path} is outside the data dir; media/extract reads only files under it`);
  const fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new MediaError(`${p.path} is not a regular file`);
    if (st.size === 0) throw new MediaError(`${p.path} is empty (0 bytes)`);
    if (st.size > s.maxBytes)
      throw new MediaError(`${p.path} is ${mib(st.size)}; media/extract reads at most ${mib(s.maxBytes)}`);
    const bytes = readAll(fd, st.size);
    const copy = scratch.path("input");
    writeFileSync(copy, bytes, { mode: 0o600 });
    return { what: p.name ?? "the file", bytes, copy };
  } finally {
    closeSync(fd);
  }
}

export async function mediaExtract(
  p: MediaExtractParams,
  s: ExtractSettings,
  scratch: Scratch,
  opts: RunOptions,
): Promise<MediaExtractResult> {
  const input = readKernelFile(p, s, scratch);
  const kind = sniffMedia(input.bytes, p.name ?? "", p.mime.toLowerCase());
  if (kind === "image") {
    const r = await ocrImage(input.copy, input.bytes, input.what, s.languages, scratch, opts);
    return { kind: "ocr", text: r.text, anchors: [], note: `OCR of a ${r.type} image (tesseract ${s.languages})` };
  }
  if (kind === "audio-or-video") {
    const pr = await probe(input.copy, input.what, opts);
    if (!pr.audio) {
      if (pr.video)
        return {
          kind: "video",
          text: "",
          anchors: [],
          note: `video of ${pr.seconds.toFixed(1)} s without an audio track`,
        };
      throw new MediaError(`${input.what} has neither audio nor video that ffmpeg reads`);
    }
    const t = await transcribe(input.copy, p.name ?? "audio", s.speech, scratch, opts, pr.video);
    const length = `${pr.seconds.toFixed(1)} s${pr.video ? " of video" : ""}`;
    // A clip with no words in it (music, a whistle, silence) says so rather than naming a transcript.
    const note = t.text.trim() ? `transcript by ${t.how}; ${length}` : `no speech heard by ${t.how}; ${length}`;
    return { kind: pr.video ? "video" : "transcript", text: t.text, anchors: [], note };
  }
  const doc = await documentText(input, kind, {}, s.maxPages, opts);
  if (doc.text.length <= MAX_ATTACHMENT_TEXT_CHARS)
    return { kind: "document", text: doc.text, anchors: doc.anchors, ...(doc.note ? { note: doc.note } : {}) };
  const cut = `the first ${MAX_ATTACHMENT_TEXT_CHARS} of ${doc.text.length} characters`;
  return {
    kind: "document",
    text: doc.text.slice(0, MAX_ATTACHMENT_TEXT_CHARS),
    anchors: doc.anchors.filter((a) => a.offset < MAX_ATTACHMENT_TEXT_CHARS),
    note: doc.note ? `${doc.note}; ${cut}` : cut,
  };
}
