/**
 * The media tools of dist/homed run as the kernel runs them (test/harness/media-rig.ts plays the
 * kernel over stdio): what each registers with its risk class, and what each answers on files
 * the test makes with known content — PDF, DOCX, Markdown and HTML with their anchors, a long
 * text in chunks, a PDF page as an image, OCR of drawn text, video frames with a transcript, the
 * X screen without a display — and that the roots confine them like the files tools.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { tempDir } from "../harness/binary.ts";
import { poll } from "../harness/poll.ts";
import { CJK_FONT, espeakWav, makeDocx, makePdf, makeVideo, textPng } from "../harness/media-fixtures.ts";
import { type MediaRig, startMediaPlugin } from "../harness/media-rig.ts";

let dir: ReturnType<typeof tempDir>;
let rig: MediaRig;
let ws: string;

beforeAll(async () => {
  dir = tempDir("homed-media-");
  ws = join(dir.path, "workspace");
  mkdirSync(ws);
  rig = await startMediaPlugin(dir.path);
});
afterAll(async () => {
  await rig[Symbol.asyncDispose]();
  dir[Symbol.dispose]();
});

const isPng = (b: Uint8Array) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47;
const isJpeg = (b: Uint8Array) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;

describe("media plugin", () => {
  test("registers its seven tools with their risk classes and provides media.extract", () => {
    expect(rig.tools).toEqual({
      media_read_doc: "read",
      media_pdf_page: "read",
      media_ocr: "read",
      media_say: "write",
      media_transcribe: "read",
      media_video_frames: "read",
      media_screenshot: "secret",
    });
    expect(rig.facilities).toEqual(["media.extract"]);
  });

  test("media_read_doc: a PDF with page anchors, and a page range", async () => {
    writeFileSync(join(ws, "r.pdf"), makePdf([["Alpha page says hello"], ["Beta page (two)"], ["Gamma page three"]]));
    const all = await rig.tool("media_read_doc", { path: "r.pdf" });
    expect(all.isError).toBe(false);
    expect(all.content).toStartWith("r.pdf (PDF, 3 pages; pages 1-3)");
    expect(all.content).toMatch(/Anchors here: page 1 @0; page 2 @\d+; page 3 @\d+/);
    expect(all.content).toContain("Alpha page says hello");
    expect(all.content).toContain("Beta page (two)");
    expect(all.content).toEndWith("[end of document]");
    const two = await rig.tool("media_read_doc", { path: "r.pdf", first_page: 2, last_page: 2 });
    expect(two.content).toContain("pages 2-2");
    expect(two.content).toContain("Beta page (two)");
    expect(two.content).not.toContain("Alpha");
    expect(two.content).not.toContain("Gamma");
    const past = await rig.tool("media_read_doc", { path: "r.pdf", first_page: 9 });
    expect(past).toMatchObject({ isError: true, content: "media_read_doc: r.pdf has 3 pages; page 9 does not exist" });
  });

  test("media_read_doc: DOCX headings, Markdown headings (not inside code), HTML without scripts", async () => {
    writeFileSync(
      join(ws, "d.docx"),
      makeDocx([
        { text: "Quarterly Report", style: "Title" },
        { text: "Sales", style: "Heading1" },
        { text: "Sales rose <12%> & costs fell." },
        { text: "Outlook", style: "Heading2" },
        { text: "Steady." },
      ]),
    );
    const docx = await rig.tool("media_read_doc", { path: "d.docx" });
    expect(docx.content).toContain("d.docx (DOCX)");
    expect(docx.content).toContain("Anchors here: # Quarterly Report @0; # Sales @");
    expect(docx.content).toContain("## Outlook @");
    expect(docx.content).toContain("Sales rose <12%> & costs fell.");

    writeFileSync(join(ws, "n.md"), "# Notes\n\ntext\n\n```\n# not a heading\n```\n\n## Later\nend\n");
    const md = await rig.tool("media_read_doc", { path: "n.md" });
    expect(md.content).toContain("Anchors here: # Notes @0; ## Later @");
    expect(md.content).not.toContain("# not a heading @");

    writeFileSync(
      join(ws, "p.html"),
      "<html><head><title>x</title><script>var secret = 1;</script></head><body><h1>Main &amp; Title</h1><p>First para.</p><h2>Sub</h2><ul><li>one</li><li>two</li></ul></body></html>",
    );
    const html = await rig.tool("media_read_doc", { path: "p.html" });
    expect(html.content).toContain("Anchors here: # Main & Title @");
    expect(html.content).toContain("## Sub @");
    expect(html.content).toContain("First para.");
    expect(html.content).toContain("- one");
    expect(html.content).not.toContain("secret");
  });

  test("media_read_doc: a long text comes in chunks, and `from` goes on where the last stopped", async () => {
    const lines = Array.from({ length: 900 }, (_, i) => `line ${i + 1} of a long plain text file`);
    writeFileSync(join(ws, "long.txt"), `${lines.join("\n")}\n`);
    const first = await rig.tool("media_read_doc", { path: "long.txt" });
    const m = /\[more: media_read_doc with from = (\d+)\]/.exec(first.content);
    expect(m).not.toBeNull();
    expect(first.content).toContain("line 1 of a long");
    expect(first.content).not.toContain("line 900 of");
    const second = await rig.tool("media_read_doc", { path: "long.txt", from: Number(m![1]) });
    expect(second.content).toContain("line 900 of a long");
    expect(second.content).toEndWith("[end of document]");
    // Together they are the whole file, each line once.
    const seen = (first.content + second.content).match(/line \d+ of/g)!;
    expect(seen.length).toBe(900);
    expect(new Set(seen).size).toBe(900);
  });

  test("media_pdf_page returns the page as a PNG image", async () => {
    writeFileSync(join(ws, "img.pdf"), makePdf([["one"], ["Second page text"]]));
    const r = await rig.tool("media_pdf_page", { path: "img.pdf", page: 2, size: 600 });
    expect(r.isError).toBe(false);
    expect(r.content).toStartWith("Page 2 of 2 of img.pdf as a PNG");
    expect(r.images.length).toBe(1);
    expect(r.images[0]!.mime).toBe("image/png");
    expect(isPng(r.images[0]!.data)).toBe(true);
    expect(r.images[0]!.alt).toBe("Page 2 of img.pdf");
    const notPdf = await rig.tool("media_pdf_page", { path: "n.md", page: 1 });
    expect(notPdf).toMatchObject({ isError: true, content: "media_pdf_page: n.md is not a PDF" });
  });

  test("media_ocr reads drawn text; a language without data names its package", async () => {
    await textPng(["Invoice 4471: total due 318 euros", "Ship to Marie Dupont"], join(ws, "shot.png"));
    const r = await rig.tool("media_ocr", { path: "shot.png" });
    expect(r.isError).toBe(false);
    expect(r.content).toContain("Invoice 4471: total due 318 euros");
    expect(r.content).toContain("Marie Dupont");
    const klingon = await rig.tool("media_ocr", { path: "shot.png", languages: "eng+tlh" });
    expect(klingon.isError).toBe(true);
    expect(klingon.content).toStartWith("media_ocr: tesseract has no data for tlh: apt install tesseract-ocr-tlh");
  });

  test("media_ocr reads Chinese with the default eng+chi_sim, without spaces between the characters", async () => {
    await textPng(["会议改到星期四下午三点 room 5"], join(ws, "zh.png"), 900, 30, CJK_FONT);
    const r = await rig.tool("media_ocr", { path: "zh.png" });
    expect(r.content).toBe("Text in zh.png (tesseract eng+chi_sim):\n\n会议改到星期四下午三点 room 5");
  });

  test("media_ocr turns a phone photo upright by its EXIF orientation, and reads WebP", async () => {
    await textPng(["Boarding pass gate B12 seat 14C"], join(dir.path, "flat.png"));
    // Pixels stored sideways (rotated 90 degrees counter-clockwise) with orientation 6: a viewer shows it upright.
    const sideways = await sharp(join(dir.path, "flat.png"))
      .rotate(-90)
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    expect((await sharp(sideways).metadata()).orientation).toBe(6);
    writeFileSync(join(ws, "photo.jpg"), sideways);
    const r = await rig.tool("media_ocr", { path: "photo.jpg", languages: "eng" });
    expect(r.content).toStartWith("Text in photo.jpg (tesseract eng, turned upright first):");
    expect(r.content).toContain("Boarding pass gate B12 seat 14C");
    writeFileSync(join(ws, "shot.webp"), await sharp(join(dir.path, "flat.png")).webp({ lossless: true }).toBuffer());
    const webp = await rig.tool("media_ocr", { path: "shot.webp", languages: "eng" });
    expect(webp.content).toContain("Boarding pass gate B12 seat 14C");
  });

  test("media_video_frames: evenly spaced JPEG frames and the audio track's transcript", async () => {
    await espeakWav("hello world this is a test", join(dir.path, "hw.wav"));
    await makeVideo(join(ws, "v.mp4"), 3, join(dir.path, "hw.wav"));
    const r = await rig.tool("media_video_frames", { path: "v.mp4", count: 3 });
    expect(r.isError).toBe(false);
    expect(r.content).toStartWith("v.mp4: 3.0 s of video; frames at 0.5 s, 1.5 s, 2.5 s.");
    expect(r.content).toContain("Transcript of its audio (pocketsphinx (offline, English only))");
    expect(r.content).toMatch(/hello|world|test/);
    expect(r.images.map((i) => i.mime)).toEqual(["image/jpeg", "image/jpeg", "image/jpeg"]);
    for (const i of r.images) expect(isJpeg(i.data)).toBe(true);
    const quiet = await rig.tool("media_video_frames", { path: "v.mp4", count: 1, transcribe: false });
    expect(quiet.images.length).toBe(1);
    expect(quiet.content).not.toContain("Transcript");
    const text = await rig.tool("media_video_frames", { path: "long.txt" });
    expect(text).toMatchObject({
      isError: true,
      content: "media_video_frames: long.txt is not a video file (MP4, WebM, MKV, MOV, AVI, OGG)",
    });
    await espeakWav("just a voice", join(ws, "voice.wav"));
    const voice = await rig.tool("media_video_frames", { path: "voice.wav" });
    expect(voice).toMatchObject({
      isError: true,
      content: "media_video_frames: voice.wav has no video stream; media_transcribe reads its audio",
    });
  }, 60_000);

  test("media_screenshot without a configured display says so and points to browser_screenshot", async () => {
    const r = await rig.tool("media_screenshot", {});
    expect(r.isError).toBe(true);
    expect(r.content).toBe(
      'media_screenshot: no X display is configured ([tools.media] display is empty, e.g. ":0" turns screenshots on); for a web page use browser_screenshot',
    );
    await using other = await startMediaPlugin(dir.path, { display: ":97" });
    const none = await other.tool("media_screenshot", {});
    expect(none.isError).toBe(true);
    expect(none.content).toContain("media_screenshot: the X display :97 could not be captured");
    expect(none.content).toContain("is an X server running there?");
  });

  test("media_screenshot grabs a real X display (Xvfb) as a PNG image", async () => {
    const n = 100 + (process.pid % 800);
    await using xvfb = Bun.spawn(["Xvfb", `:${n}`, "-screen", "0", "1024x600x24", "-nolisten", "tcp"], {
      stdout: "ignore",
      stderr: "ignore",
    });
    await poll(() => existsSync(`/tmp/.X11-unix/X${n}`) || xvfb.exitCode !== null, Boolean, { what: "Xvfb's socket" });
    expect(xvfb.exitCode).toBeNull();
    await using shot = await startMediaPlugin(dir.path, { display: `:${n}` });
    const r = await shot.tool("media_screenshot", {});
    expect(r.content).toMatch(new RegExp(`^Screenshot of the X display :${n} \\(\\d+ bytes PNG\\)\\.$`));
    expect(r.images.length).toBe(1);
    expect(isPng(r.images[0]!.data)).toBe(true);
    expect((await sharp(r.images[0]!.data).metadata()).width).toBe(1024);
    xvfb.kill();
  });

  test("paths outside the roots are refused, as for the files tools", async () => {
    for (const path of ["/etc/passwd", "../../etc/passwd"]) {
      const r = await rig.tool("media_read_doc", { path });
      expect(r.isError).toBe(true);
      expect(r.content).toStartWith(`media_read_doc: ${path} is outside the allowed roots: media tools may only use`);
    }
    const missing = await rig.tool("media_ocr", { path: "nope.png" });
    expect(missing.content).toStartWith("media_ocr: nope.png does not exist");
    expect(rig.alive()).toBe(true);
  });
});
