/**
 * Telling text from binary, and reading a checked file whole. Text is UTF-8 without NUL bytes:
 * a NUL in the first 8 KiB (what git and grep look at) or an invalid UTF-8 sequence anywhere
 * makes a file binary, and the files tools refuse to show or edit it.
 */
import { FilesError } from "../sdk/confine.ts";

/** How much of a file's start is searched for NUL bytes. */
export const SNIFF_BYTES = 8192;

/** Where the first NUL byte is in the file's first SNIFF_BYTES, or -1. */
export function nulOffset(bytes: Uint8Array): number {
  return bytes.subarray(0, SNIFF_BYTES).indexOf(0);
}

/** The refusal for a binary file: the model should not retry with other offsets. */
export function binaryError(what: string, detail: string): FilesError {
  return new FilesError(`${what} is a binary file (${detail}); files tools show and edit UTF-8 text only`);
}

/** A decoder that throws on invalid UTF-8 and keeps a BOM (so an edit writes it back). */
export function strictDecoder(): TextDecoder {
  return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
}

/** Bytes as text, or a FilesError saying why they are not text. */
export function decodeText(bytes: Uint8Array, what: string): string {
  const nul = nulOffset(bytes);
  if (nul >= 0) throw binaryError(what, `a NUL byte at offset ${nul}`);
  try {
    return strictDecoder().decode(bytes);
  } catch {
    throw binaryError(what, "not valid UTF-8");
  }
}

/** The 1-based line of each offset in `starts` (ascending) into `text`. */
export function lineNumbersAt(text: string, starts: number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let from = 0;
  for (const s of starts) {
    for (let i = text.indexOf("\n", from); i !== -1 && i < s; i = text.indexOf("\n", i + 1)) {
      line++;
      from = i + 1;
    }
    out.push(line);
  }
  return out;
}

/** A size for people and models: 812 B, 3.4 KiB, 12.0 MiB. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
