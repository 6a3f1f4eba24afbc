/**
 * files_read: a text file with line numbers, a page at a time. The file is streamed in 1 MiB
 * chunks, so a file of any size costs one page of memory; the whole file is still scanned to
 * count its lines (the footer says "of N") and to refuse binary content wherever it starts.
 */
import { closeSync, constants, readSync } from "node:fs";
import type { Confinement } from "../sdk/confine.ts";
import { FilesError } from "../sdk/confine.ts";
import { binaryError, formatSize, nulOffset, strictDecoder } from "./text.ts";

const CHUNK = 1024 * 1024;

export interface ReadArgs {
  path: string;
  offset?: number;
  limit?: number;
}

/** A line as files_read shows it: `cat -n` style, number right-aligned then a tab. */
export function numbered(n: number, line: string): string {
  return `${String(n).padStart(6)}\t${line}`;
}

export function filesRead(c: Confinement, args: ReadArgs, maxReadKb: number): string {
  const { real } = c.existing(args.path);
  const what = c.display(real);
  const { fd, stat } = c.openChecked(real, what, constants.O_RDONLY);
  try {
    if (stat.size === 0) return `${what} is empty (0 bytes)`;
    const first = args.offset ?? 1;
    const limit = args.limit ?? Number.MAX_SAFE_INTEGER;
    const budget = maxReadKb * 1024;
    const shown: string[] = [];
    let used = 0;
    let lineNo = 0;
    let last = 0;
    let full = false;
    let cut = "";
    const decoder = strictDecoder();
    const buf = new Uint8Array(CHUNK);
    let pending = "";
    let pos = 0;
    let longTaken = false;
    // In UTF-16 units; a UTF-8 line has at least as many bytes as units, so this is over budget.
    const longLine = budget + CHUNK;

    const take = (line: string) => {
      lineNo++;
      if (full || lineNo < first) return;
      if (shown.length >= limit) {
        full = true;
        return;
      }
      const text = line.endsWith("\r") ? line.slice(0, -1) : line;
      const cost = Buffer.byteLength(text) + 8;
      if (used + cost > budget) {
        if (shown.length > 0) {
          full = true;
          return;
        }
        // One line longer than a page: show its start, so the model sees what it is.
        const head = Buffer.from(text).subarray(0, budget).toString("utf8");
        cut = `\n[line ${lineNo} is longer than a page (${formatSize(budget)}, max_read_kb); only its start is shown]`;
        shown.push(numbered(lineNo, head));
        last = lineNo;
        full = true;
        return;
      }
      used += cost;
      shown.push(numbered(lineNo, text));
      last = lineNo;
    };

    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, pos);
      if (n === 0) break;
      const bytes = buf.subarray(0, n);
      if (pos === 0) {
        const nul = nulOffset(bytes);
        if (nul >= 0) throw binaryError(what, `a NUL byte at offset ${nul}`);
      }
      pos += n;
      let chunk: string;
      try {
        chunk = decoder.decode(bytes, { stream: true });
      } catch {
        throw binaryError(what, `not valid UTF-8 near byte ${pos - n}`);
      }
      pending += chunk;
      let nl = pending.indexOf("\n");
      let from = 0;
      while (nl !== -1) {
        if (longTaken) longTaken = false;
        else take(pending.slice(from, nl));
        from = nl + 1;
        nl = pending.indexOf("\n", from);
      }
      pending = pending.slice(from);
      // A line this long cannot fit a page whatever it holds: take it now (counted, or its start
      // shown) and drop the rest of it as it streams by, so memory stays bounded.
      if (pending.length > longLine) {
        if (!longTaken) take(pending);
        longTaken = true;
        pending = "";
      }
    }
    try {
      pending += decoder.decode();
    } catch {
      throw binaryError(what, "not valid UTF-8 at its end");
    }
    if (pending.length > 0 && !longTaken) take(pending);
    const total = lineNo;
    if (first > total) throw new FilesError(`offset ${first} is past the end: ${what} has ${total} lines`);
    const more =
      last < total
        ? `\n(showing lines ${first}-${last} of ${total}; call again with offset=${last + 1} to read on)`
        : first > 1
          ? `\n(showing lines ${first}-${last} of ${total}; that is the end)`
          : "";
    return shown.join("\n") + cut + more;
  } finally {
    closeSync(fd);
  }
}
