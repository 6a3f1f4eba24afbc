/**
 * The elements of a JSON array read from a byte stream one at a time, each with the line it
 * starts on, so an export of any size is read with one element in memory and a bad element is
 * named by its line and skipped while the rest are read. Only the array's own structure is
 * scanned (strings, escapes, nesting); each element's text is then parsed by JSON.parse.
 */

/** One element: its JSON text, or why it could not be read. `line` is 1-based, where it starts. */
export type ArrayElement = { line: number; text: string } | { line: number; error: string };

/**
 * The largest element read (a ChatGPT conversation with long answers is a few MiB). A larger
 * one is skipped without being kept in memory and reported.
 */
export const MAX_ELEMENT_BYTES = 256 << 20;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_SQUARE = 0x5b;
const CLOSE_SQUARE = 0x5d;
const OPEN_CURLY = 0x7b;
const CLOSE_CURLY = 0x7d;
const COMMA = 0x2c;
const NEWLINE = 0x0a;

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/** Raised for a stream that is not a JSON array at all (the caller chose the wrong reader). */
export class NotAnArrayError extends Error {}

/**
 * The elements of the array `chunks` holds. Yields an `error` for an element whose brackets
 * end but whose text is not JSON (the next element is read as usual), for one over
 * MAX_ELEMENT_BYTES, and at the end for an element or array that never ends (the file was cut
 * short). Throws NotAnArrayError when the first thing in the stream is not `[`.
 */
export async function* jsonArrayElements(
  chunks: AsyncIterable<Uint8Array>,
  maxElementBytes = MAX_ELEMENT_BYTES,
): AsyncGenerator<ArrayElement> {
  const utf8 = new TextDecoder();
  let line = 1;
  /** 0 before the array, 1 between its elements, deeper inside one. */
  let depth = 0;
  let inString = false;
  let escaped = false;
  let ended = false;
  let bom = 0;
  // The element being read: where it starts, its bytes so far (copied: chunks may be reused).
  let startLine = 0;
  let parts: Uint8Array[] = [];
  let size = 0;
  let oversized = false;

  const finish = (): ArrayElement => {
    const at = startLine;
    startLine = 0;
    if (oversized) {
      oversized = false;
      return { line: at, error: `longer than ${maxElementBytes >> 20} MiB, skipped` };
    }
    const bytes = new Uint8Array(size);
    let o = 0;
    for (const p of parts) {
      bytes.set(p, o);
      o += p.length;
    }
    parts = [];
    size = 0;
    return { line: at, text: utf8.decode(bytes).trimEnd() };
  };
  const keep = (chunk: Uint8Array, from: number, to: number) => {
    if (to <= from || oversized) return;
    if (size + (to - from) > maxElementBytes) {
      oversized = true;
      parts = [];
      size = 0;
      return;
    }
    parts.push(chunk.slice(from, to));
    size += to - from;
  };

  for await (const chunk of chunks) {
    if (ended) continue;
    let i = 0;
    // Where the element's bytes in this chunk begin (-1: not in an element here).
    let from = startLine ? 0 : -1;
    const n = chunk.length;
    while (i < n) {
      const b = chunk[i] as number;
      if (inString) {
        if (escaped) escaped = false;
        else if (b === BACKSLASH) escaped = true;
        else if (b === QUOTE) inString = false;
        else if (b === NEWLINE) line++;
        i++;
        continue;
      }
      if (depth === 0) {
        // A UTF-8 byte order mark may come first.
        if (bom < 3 && b === [0xef, 0xbb, 0xbf][bom]) {
          bom++;
          i++;
          continue;
        }
        if (isSpace(b)) {
          if (b === NEWLINE) line++;
          i++;
          continue;
        }
        if (b !== OPEN_SQUARE) throw new NotAnArrayError(`line ${line}: not a JSON array`);
        depth = 1;
        i++;
        continue;
      }
      if (depth === 1 && startLine === 0) {
        // Between elements.
        if (isSpace(b)) {
          if (b === NEWLINE) line++;
        } else if (b === COMMA) {
          // An empty place (`[a,,b]`) is not JSON; say so and go on.
          yield { line, error: "an empty element" };
        } else if (b === CLOSE_SQUARE) {
          ended = true;
          break;
        } else {
          startLine = line;
          from = i;
          continue; // read this byte as the element's first
        }
        i++;
        continue;
      }
      // Inside an element.
      if (b === QUOTE) inString = true;
      else if (b === NEWLINE) line++;
      else if (b === OPEN_CURLY || b === OPEN_SQUARE) depth++;
      else if ((b === CLOSE_CURLY || b === CLOSE_SQUARE) && depth > 1) depth--;
      else if (depth === 1 && (b === COMMA || b === CLOSE_SQUARE)) {
        keep(chunk, from, i);
        from = -1;
        yield finish();
        if (b === CLOSE_SQUARE) {
          ended = true;
          break;
        }
      }
      i++;
    }
    if (from >= 0 && !ended) keep(chunk, from, n);
  }
  if (ended) return;
  if (depth === 0) throw new NotAnArrayError("empty: not a JSON array");
  if (startLine) {
    const at = startLine;
    parts = [];
    yield { line: at, error: "does not end: the file is cut short or its brackets do not match" };
  } else yield { line, error: "the array does not end: the file is cut short" };
}
