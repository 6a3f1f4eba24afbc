/**
 * A long attachment's text in chunks (src/memory/attachment-chunks.ts): cut at page anchors where
 * they fall, else at paragraphs and sentences, never longer than MAX_CHUNK_CHARS, covering the
 * text in order; short text makes none; the cap keeps the first chunks and says what it left.
 */
import { describe, expect, test } from "bun:test";
import {
  attachmentChunkEvents,
  chunkText,
  MAX_CHUNK_CHARS,
  MIN_CHUNK_CHARS,
} from "../../src/memory/attachment-chunks.ts";
import { eventText } from "../../src/memory/event-text.ts";

/** A document of `n` pages of about `chars` characters each, with page anchors as pdftotext makes them. */
function pages(n: number, chars: number) {
  let text = "";
  const anchors: { label: string; offset: number }[] = [];
  for (let p = 1; p <= n; p++) {
    anchors.push({ label: `page ${p}`, offset: text.length });
    let page = "";
    for (let s = 0; page.length < chars; s++) page += `Page ${p} sentence ${s} says a little more. `;
    text += `${page.trim()}\n\n`;
  }
  return { text, anchors };
}

describe("attachment chunks", () => {
  test("text that fits one chunk makes none", () => {
    expect(chunkText("short note").chunks).toEqual([]);
    expect(chunkText("x ".repeat(MAX_CHUNK_CHARS / 2)).chunks).toEqual([]);
  });

  test("pages of 2,500 characters are one chunk each, labelled by page, offsets into the text", () => {
    const { text, anchors } = pages(30, 2500);
    const { chunks, note } = chunkText(text, anchors);
    expect(note).toBeUndefined();
    expect(chunks).toHaveLength(30);
    chunks.forEach((c, i) => {
      expect(c.anchor).toBe(`page ${i + 1}`);
      expect(text.slice(c.offset, c.offset + c.text.length)).toBe(c.text);
      expect(c.text.startsWith(`Page ${i + 1} sentence 0`)).toBe(true);
    });
  });

  test("short pages join up to a range; long pages split at sentences; nothing over the maximum", () => {
    const small = pages(12, 700);
    const joined = chunkText(small.text, small.anchors).chunks;
    expect(joined[0]?.anchor).toBe("pages 1–3");
    for (const c of joined) expect(c.text.length).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
    const big = pages(3, 9000);
    const split = chunkText(big.text, big.anchors).chunks;
    for (const c of split) {
      expect(c.text.length).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
      expect(c.text.length).toBeGreaterThanOrEqual(MIN_CHUNK_CHARS / 2);
      // Cut after a sentence, never inside a word.
      expect(c.text).toMatch(/more\.$/);
    }
    expect(split.filter((c) => c.anchor === "page 2").length).toBeGreaterThanOrEqual(3);
    // Together the chunks are the whole text, in order.
    expect(
      split
        .map((c) => c.text)
        .join("")
        .replace(/\s+/g, ""),
    ).toBe(big.text.replace(/\s+/g, ""));
  });

  test("text without anchors or spaces (Chinese) is cut at sentence ends, or hard at the maximum", () => {
    const zh = "这是一个很长的句子，用来测试切分。".repeat(800);
    const cs = chunkText(zh).chunks;
    expect(cs.length).toBeGreaterThan(1);
    expect(cs.map((c) => c.text).join("")).toBe(zh);
    for (const c of cs) {
      expect(c.text.length).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
      expect(c.text.endsWith("。")).toBe(true);
      expect(c.anchor).toBeUndefined();
    }
    const solid = chunkText("x".repeat(10_000)).chunks;
    expect(solid.map((c) => c.text.length).reduce((a, b) => a + b, 0)).toBe(10_000);
  });

  test("the cap keeps the first chunks and its last one says where the rest starts", () => {
    const { text, anchors } = pages(50, 2500);
    const { chunks, note } = chunkText(text, anchors, 40);
    expect(chunks).toHaveLength(40);
    expect(note).toContain("at most 40 chunks");
    expect(note).toContain("(page 41 on)");
    const events = attachmentChunkEvents("t1", [
      { sha256: "a".repeat(64), mime: "application/pdf", bytes: 1, kind: "file", name: "r.pdf", text, anchors },
      { sha256: "b".repeat(64), mime: "text/plain", bytes: 1, kind: "file", name: "s.txt", text: "short" },
    ]);
    expect(events).toHaveLength(40);
    expect(events.at(-1)?.event.body.note).toContain("page 41 on");
    expect(events[0]?.event.body.note).toBeUndefined();
    // What memory indexes names the file and the page, and reads back the same from the stored body.
    const first = events[0];
    expect(first?.text.startsWith("[r.pdf · page 1]\nPage 1 sentence 0")).toBe(true);
    expect(eventText("attachment-chunk", JSON.stringify(first?.event.body))).toBe(first?.text ?? "");
  });
});
