/**
 * What a file really is, from its first bytes, with the name and claimed type only breaking ties
 * a container cannot (a ZIP that is a DOCX, text that is Markdown or HTML). Never trusts the
 * extension alone for binary types: a PNG named report.pdf is an image.
 */
import { extname } from "node:path";
import { sniffOcrImage } from "./ocr.ts";

export type MediaKind = "pdf" | "docx" | "zip" | "image" | "audio-or-video" | "markdown" | "html" | "text" | "binary";

const at = (b: Uint8Array, sig: number[], off = 0) => sig.every((x, i) => b[off + i] === x);

export function sniffMedia(b: Uint8Array, name = "", mime = ""): MediaKind {
  const ext = extname(name).toLowerCase();
  if (at(b, [0x25, 0x50, 0x44, 0x46, 0x2d])) return "pdf";
  if (at(b, [0x50, 0x4b, 0x03, 0x04]) || at(b, [0x50, 0x4b, 0x05, 0x06]))
    return ext === ".docx" || mime.includes("wordprocessingml") || containsAscii(b, "word/document.xml")
      ? "docx"
      : "zip";
  if (sniffOcrImage(b)) return "image";
  if (
    (at(b, [0x52, 0x49, 0x46, 0x46]) && (at(b, [0x57, 0x41, 0x56, 0x45], 8) || at(b, [0x41, 0x56, 0x49, 0x20], 8))) ||
    at(b, [0x4f, 0x67, 0x67, 0x53]) || // OggS
    at(b, [0x49, 0x44, 0x33]) || // ID3 (MP3)
    (b[0] === 0xff && b[1] !== undefined && (b[1] & 0xe0) === 0xe0) || // MPEG audio frame
    at(b, [0x66, 0x4c, 0x61, 0x43]) || // fLaC
    at(b, [0x66, 0x74, 0x79, 0x70], 4) || // ISO BMFF: mp4, m4a, mov
    at(b, [0x1a, 0x45, 0xdf, 0xa3]) // Matroska / WebM
  )
    return "audio-or-video";
  if (!isText(b)) return "binary";
  if (ext === ".md" || ext === ".markdown" || mime === "text/markdown") return "markdown";
  if (ext === ".html" || ext === ".htm" || mime === "text/html" || /^\s*(<!doctype html|<html)/i.test(head(b)))
    return "html";
  return "text";
}

function head(b: Uint8Array): string {
  return new TextDecoder().decode(b.subarray(0, 512));
}

function containsAscii(b: Uint8Array, s: string): boolean {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).includes(s);
}

/** UTF-8 without NUL bytes in its first 64 KiB. */
function isText(b: Uint8Array): boolean {
  const sample = b.subarray(0, 65536);
  if (sample.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(
      sample.length < b.length ? sample.subarray(0, lastBoundary(sample)) : sample,
    );
    return true;
  } catch {
    return false;
  }
}

/** The length of `b` without a UTF-8 sequence cut at its end. */
function lastBoundary(b: Uint8Array): number {
  let end = b.length;
  for (let i = 0; i < 4 && end > 0 && ((b[end - 1] as number) & 0xc0) === 0x80; i++) end--;
  if (end > 0 && ((b[end - 1] as number) & 0xc0) === 0xc0) end--;
  return end;
}
