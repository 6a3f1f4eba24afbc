/** The image sniffer decides a tool image's type from its bytes alone (a plugin's claim is never trusted). */
import { describe, expect, test } from "bun:test";
import sharp from "sharp";
import { blockRelPath, sniffImageMime } from "../../src/protocol/images.ts";

const blank = () => sharp({ create: { width: 3, height: 2, channels: 3, background: { r: 1, g: 2, b: 3 } } });

describe("sniffImageMime", () => {
  test("each supported format is known by its own bytes", async () => {
    expect(sniffImageMime(new Uint8Array(await blank().png().toBuffer()))).toBe("image/png");
    expect(sniffImageMime(new Uint8Array(await blank().jpeg().toBuffer()))).toBe("image/jpeg");
    expect(sniffImageMime(new Uint8Array(await blank().webp().toBuffer()))).toBe("image/webp");
    expect(sniffImageMime(new Uint8Array(await blank().gif().toBuffer()))).toBe("image/gif");
  });

  test("anything else is no image: HTML, SVG, a RIFF that is not WebP, truncated magic, nothing", () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(sniffImageMime(enc("<html><script>alert(1)</script>"))).toBeNull();
    expect(sniffImageMime(enc('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(sniffImageMime(enc("RIFF\u0000\u0000\u0000\u0000WAVEfmt "))).toBeNull();
    expect(sniffImageMime(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBeNull();
    expect(sniffImageMime(enc("GIF87b"))).toBeNull();
    expect(sniffImageMime(new Uint8Array())).toBeNull();
  });

  test("a block lives under its hash's first two digits", () => {
    const sha = "ab".padEnd(64, "0");
    expect(blockRelPath(sha)).toBe(`blocks/ab/${sha}`);
  });
});
