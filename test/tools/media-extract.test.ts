/**
 * `media/extract`, the kernel's call to the media plugin (facility media.extract), exactly as the
 * attachments code sends it: {path under DATA/blocks, mime, name?} → {kind, text, anchors,
 * note?}. Files are stored under DATA/blocks without extensions, as blocks are; the bytes decide
 * what they are, a wrong claimed type does not. Paths outside the data dir and malformed params
 * are refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { MediaExtractResult } from "../../src/protocol/media.ts";
import { tempDir } from "../harness/binary.ts";
import { espeakWav, makeDocx, makePdf, makeVideo, textPng } from "../harness/media-fixtures.ts";
import { type MediaRig, startMediaPlugin } from "../harness/media-rig.ts";
import { sineWav } from "../harness/tiny-onnx.ts";

let dir: ReturnType<typeof tempDir>;
let blocks: string;
let rig: MediaRig;

beforeAll(async () => {
  dir = tempDir("homed-media-extract-");
  blocks = join(dir.path, "blocks", "ab");
  mkdirSync(blocks, { recursive: true });
  rig = await startMediaPlugin(dir.path);
});
afterAll(async () => {
  await rig[Symbol.asyncDispose]();
  dir[Symbol.dispose]();
});

async function extract(name: string, mime: string, given?: string) {
  const f = await rig.request("media/extract", { path: join(blocks, name), mime, ...(given ? { name: given } : {}) });
  if (f.error) throw new Error(f.error.message);
  return v.parse(MediaExtractResult, f.result);
}

describe("media/extract", () => {
  test("a PDF: document text with a page anchor per page", async () => {
    writeFileSync(join(blocks, "pdf1"), makePdf([["First page words"], ["Second page words"]]));
    const r = await extract("pdf1", "application/pdf", "paper.pdf");
    expect(r.kind).toBe("document");
    expect(r.anchors.map((a) => a.label)).toEqual(["page 1", "page 2"]);
    expect(r.text.slice(r.anchors[1]!.offset)).toStartWith("Second page words");
    expect(r.note).toBe("PDF, 2 pages; pages 1-2");
  });

  test("a DOCX claimed as application/octet-stream, Markdown by its name, HTML by its type", async () => {
    writeFileSync(join(blocks, "docx1"), makeDocx([{ text: "Plan", style: "Heading1" }, { text: "Do things." }]));
    const docx = await extract("docx1", "application/octet-stream");
    expect(docx).toEqual({
      kind: "document",
      text: "# Plan\nDo things.\n",
      anchors: [{ label: "# Plan", offset: 0 }],
      note: "DOCX",
    });
    writeFileSync(join(blocks, "md1"), "intro\n# Head\nbody\n");
    const md = await extract("md1", "text/plain", "notes.md");
    expect(md.anchors).toEqual([{ label: "# Head", offset: 6 }]);
    writeFileSync(join(blocks, "html1"), "<h2>Hi</h2><p>there</p>");
    const html = await extract("html1", "text/html");
    expect(html.anchors).toEqual([{ label: "## Hi", offset: 0 }]);
    expect(html.text).toContain("there");
  });

  test("an image is OCR'd even when it claims to be a PDF", async () => {
    await textPng(["Meeting moved to Thursday 3pm"], join(blocks, "img1"));
    const r = await extract("img1", "application/pdf", "fake.pdf");
    expect(r.kind).toBe("ocr");
    expect(r.text).toContain("Meeting moved to Thursday 3pm");
    expect(r.note).toBe("OCR of a PNG image (tesseract eng+chi_sim)");
  });

  test("audio becomes a transcript, video the transcript of its track", async () => {
    await espeakWav("hello world this is a test", join(blocks, "wav1"));
    const audio = await extract("wav1", "audio/wav");
    expect(audio.kind).toBe("transcript");
    expect(
      audio.text.split(" ").filter((w) => ["hello", "world", "this", "test"].includes(w)).length,
    ).toBeGreaterThanOrEqual(2);
    expect(audio.note).toStartWith("transcript by pocketsphinx (offline, English only);");
    await makeVideo(join(blocks, "mp4"), 3, join(blocks, "wav1"));
    const video = await extract("mp4", "video/mp4");
    expect(video.kind).toBe("video");
    expect(video.note).toMatch(/s of video$/);
    expect(video.text.length).toBeGreaterThan(0);
    // A whistle has no words: the note says none were heard instead of naming a transcript.
    writeFileSync(join(blocks, "tone"), sineWav(3000, 2));
    const tone = await extract("tone", "audio/wav");
    expect(tone.text.trim()).toBe("");
    expect(tone.note).toStartWith("no speech heard by pocketsphinx (offline, English only); 2.0 s");
  }, 60_000);

  test("a text longer than the kernel keeps is cut at MAX_ATTACHMENT_TEXT_CHARS and the note says so", async () => {
    const line = "# Part\nwords words words words words words words words words words\n";
    writeFileSync(join(blocks, "big"), line.repeat(Math.ceil(120_000 / line.length)));
    const r = await extract("big", "text/markdown");
    expect(r.text.length).toBe(100_000);
    expect(r.note).toMatch(/^Markdown; the first 100000 of \d+ characters$/);
    expect(r.anchors.every((a) => a.offset < 100_000)).toBe(true);
  });

  test("outside the data dir, missing, empty, unknown bytes and bad params are errors, and the plugin stays", async () => {
    const outside = await rig.request("media/extract", { path: "/etc/hostname", mime: "text/plain" });
    expect(outside.error?.message).toBe(
      "media/extract: /etc/hostname is outside the data dir; media/extract reads only files under it",
    );
    const missing = await rig.request("media/extract", { path: join(blocks, "nope"), mime: "text/plain" });
    expect(missing.error?.message).toBe(`media/extract: ${join(blocks, "nope")} does not exist`);
    writeFileSync(join(blocks, "bin1"), new Uint8Array([0, 1, 2, 3, 0, 0, 7]));
    const binary = await rig.request("media/extract", { path: join(blocks, "bin1"), mime: "application/octet-stream" });
    expect(binary.error?.message).toBe(
      "media/extract: the file is not a document media_read_doc knows (PDF, DOCX, Markdown, HTML, plain UTF-8 text)",
    );
    const relative = await rig.request("media/extract", { path: "blocks/ab/pdf1", mime: "application/pdf" });
    expect(relative.error?.message).toBe("media/extract: path must be absolute");
    const noMime = await rig.request("media/extract", { path: join(blocks, "pdf1") });
    expect(noMime.error?.code).toBe(-32602);
    expect(rig.alive()).toBe(true);
  });
});
