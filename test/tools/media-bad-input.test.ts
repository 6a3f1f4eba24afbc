/**
 * Bad input to the media tools of dist/homed: a damaged image, 0-byte and junk audio, three kinds
 * of zip bomb in a DOCX (too many entries, too high a ratio, a size claim that lies), a huge PDF
 * (the page cap, then the time cap), and a program that is not installed. Each gets a sentence
 * that says what is wrong; the input files are unchanged and the plugin keeps running.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { docxWithDocumentXml, espeakWav, makePdf, makeZip } from "../harness/media-fixtures.ts";
import { type MediaRig, startMediaPlugin } from "../harness/media-rig.ts";

let dir: ReturnType<typeof tempDir>;
let ws: string;
let rig: MediaRig;
const inputs = new Map<string, Uint8Array<ArrayBufferLike>>();

function put(name: string, bytes: Uint8Array | string): void {
  const b = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  writeFileSync(join(ws, name), b);
  inputs.set(name, b);
}

beforeAll(async () => {
  dir = tempDir("homed-media-bad-");
  ws = join(dir.path, "workspace");
  mkdirSync(ws);
  rig = await startMediaPlugin(dir.path, { max_pdf_pages: 50 });
});
afterAll(async () => {
  // Nothing lost: every input is as it was written.
  for (const [name, bytes] of inputs) expect(Buffer.compare(readFileSync(join(ws, name)), bytes)).toBe(0);
  await rig[Symbol.asyncDispose]();
  dir[Symbol.dispose]();
});

describe("media tools on bad input", () => {
  test("a damaged PNG and a JPEG header on random bytes are named as damaged images", async () => {
    put("broken.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4, 5, 6, 7, 8]));
    put("broken.jpg", new Uint8Array([0xff, 0xd8, 0xff, ...crypto.getRandomValues(new Uint8Array(200))]));
    put("notimage.png", "just some text pretending to be a picture");
    const png = await rig.tool("media_ocr", { path: "broken.png" });
    expect(png.isError).toBe(true);
    expect(png.content).toStartWith(
      "media_ocr: broken.png could not be read as a PNG image (damaged?): tesseract failed",
    );
    const jpg = await rig.tool("media_ocr", { path: "broken.jpg" });
    expect(jpg.content).toStartWith("media_ocr: broken.jpg could not be read as a JPEG image (damaged?)");
    const text = await rig.tool("media_ocr", { path: "notimage.png" });
    expect(text.content).toBe(
      "media_ocr: notimage.png is not an image tesseract reads (PNG, JPEG, GIF, WebP, TIFF, BMP, PNM)",
    );
    expect(rig.alive()).toBe(true);
  });

  test("0-byte audio and junk behind a WAV header", async () => {
    put("empty.wav", new Uint8Array(0));
    put("junk.wav", new Uint8Array([0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x41, 0x56, 0x45, 9, 9, 9, 9]));
    const empty = await rig.tool("media_transcribe", { path: "empty.wav" });
    expect(empty).toMatchObject({ isError: true, content: "media_transcribe: empty.wav is empty (0 bytes)" });
    const junk = await rig.tool("media_transcribe", { path: "junk.wav" });
    expect(junk.isError).toBe(true);
    expect(junk.content).toStartWith("media_transcribe: no audio could be read from it: ffmpeg failed");
    const extract = await rig.request("media/extract", { path: join(ws, "empty.wav"), mime: "audio/wav" });
    expect(extract.error?.message).toBe(`media/extract: ${join(ws, "empty.wav")} is empty (0 bytes)`);
  });

  test("zip bombs in a DOCX: too many entries, too high a ratio, a size claim that lies", async () => {
    put("many.docx", makeZip(Array.from({ length: 2500 }, (_, i) => ({ name: `part${i}.xml`, data: "x" }))));
    put("ratio.docx", docxWithDocumentXml(" ".repeat(40 << 20)));
    put("liar.docx", docxWithDocumentXml(" ".repeat(16 << 20), 4096));
    put("plain.docx", makeZip([{ name: "readme.txt", data: "not word" }]));
    const t0 = performance.now();
    expect((await rig.tool("media_read_doc", { path: "many.docx" })).content).toBe(
      "media_read_doc: many.docx has 2500 entries (more than 2000); refused as a possible zip bomb",
    );
    expect((await rig.tool("media_read_doc", { path: "ratio.docx" })).content).toMatch(
      /^media_read_doc: ratio\.docx: word\/document\.xml would expand \d+-fold \(over 200\); refused as a possible zip bomb$/,
    );
    expect((await rig.tool("media_read_doc", { path: "liar.docx" })).content).toBe(
      "media_read_doc: liar.docx: word/document.xml inflates past the size it claims; refused as a possible zip bomb",
    );
    expect((await rig.tool("media_read_doc", { path: "plain.docx" })).content).toBe(
      "media_read_doc: plain.docx is a ZIP file without word/document.xml: not a Word document (DOCX)",
    );
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(rig.alive()).toBe(true);
  });

  test("a 20,000-page PDF: the page cap reads the first 50 and says how to get more; the time cap stops a long run", async () => {
    const pages = Array.from({ length: 20_000 }, (_, i) => [`Report page ${i + 1}`, "filler words"]);
    put("huge.pdf", makePdf(pages));
    const capped = await rig.tool("media_read_doc", { path: "huge.pdf" });
    expect(capped.isError).toBe(false);
    expect(capped.content).toStartWith(
      "huge.pdf (PDF, 20000 pages; pages 1-50; pages 51-20000 not read (max_pdf_pages 50): ask for them with first_page)",
    );
    expect(capped.content).toContain("Report page 50\n");
    expect(capped.content).not.toContain("Report page 51\n");
    const later = await rig.tool("media_read_doc", { path: "huge.pdf", first_page: 19_999 });
    expect(later.content).toContain("Report page 20000");

    // 20,000 pages of 50 lines: pdftotext needs several seconds on any machine (1 s for the
    // one-line pages above when this machine was quiet, which let a run finish under the cap).
    const heavy = Array.from({ length: 20_000 }, (_, i) => [`Report page ${i + 1}`, ...Array(50).fill("filler words")]);
    put("heavy.pdf", makePdf(heavy));
    await using slow = await startMediaPlugin(dir.path, { max_pdf_pages: 100_000, timeout_ms: 1000 });
    const t0 = performance.now();
    const timed = await slow.tool("media_read_doc", { path: "heavy.pdf" });
    // On a very busy machine pdfinfo may be the one stopped.
    expect(timed.isError).toBe(true);
    expect(timed.content).toMatch(
      /^media_read_doc: (pdftotext|pdfinfo) took longer than 1000 ms \(\[tools\.media\] timeout_ms\) and was stopped$/,
    );
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(slow.alive()).toBe(true);
  }, 60_000);

  test("a program that is not installed is named with its Debian package", async () => {
    // A PATH with ffmpeg and espeak-ng but without tesseract and poppler.
    const bin = join(dir.path, "bin");
    mkdirSync(bin);
    for (const p of ["ffmpeg", "ffprobe", "espeak-ng"]) symlinkSync(`/usr/bin/${p}`, join(bin, p));
    await using bare = await startMediaPlugin(dir.path, {}, ["workspace"], bin);
    put("ok.pdf", makePdf([["fine"]]));
    put("ok.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect((await bare.tool("media_read_doc", { path: "ok.pdf" })).content).toBe(
      "media_read_doc: pdfinfo is not installed: apt install poppler-utils",
    );
    expect((await bare.tool("media_ocr", { path: "ok.png" })).content).toBe(
      "media_ocr: tesseract is not installed: apt install tesseract-ocr",
    );
    await espeakWav("a voice", join(ws, "voice.wav"));
    inputs.set("voice.wav", new Uint8Array(readFileSync(join(ws, "voice.wav"))));
    expect((await bare.tool("media_transcribe", { path: "voice.wav" })).content).toBe(
      "media_transcribe: pocketsphinx_continuous is not installed: apt install pocketsphinx",
    );
    expect((await bare.tool("media_say", { text: "hi", path: "out.wav" })).content).toMatch(
      /^Wrote out\.wav \(WAV, \d+ bytes\) with espeak-ng/,
    );
    expect(bare.alive()).toBe(true);
  });
});
