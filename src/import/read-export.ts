/**
 * An export file's records, whichever format it is in: the format is told by the content (or
 * forced by the caller). A JSON array is a ChatGPT export when its first readable element has
 * a `mapping`, a Claude export when it has `chat_messages`; a stream starting with `{` is JSON
 * lines. The file is read as a stream, one conversation (or line) in memory at a time.
 */
import { HomedError } from "../protocol/errors.ts";
import { LineDecoder } from "../ipc/line-decoder.ts";
import { type ArrayElement, jsonArrayElements } from "./json-array-elements.ts";
import { chatgptConversation } from "./chatgpt-export.ts";
import { claudeConversation } from "./claude-export.ts";
import type { ImportFormat, ImportRecord } from "./import-record.ts";
import { jsonLine } from "./json-lines.ts";
import { homedConversation, looksLikeHomedExport } from "./homed-export.ts";

/**
 * The longest line of JSON lines read: a message of MAX_IMPORTED_TEXT_CHARS with its JSON
 * escapes fits. A longer line is skipped unread and reported.
 */
const MAX_LINE_BYTES = 16 << 20;

export interface ExportReading {
  /** null: the file holds nothing to tell it by (empty, or an empty array). */
  format: ImportFormat | null;
  records: AsyncGenerator<ImportRecord>;
}

/** `chunks` with the ones already taken put back in front. */
async function* replay(taken: Uint8Array[], rest: AsyncIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield* taken;
  for (let r = await rest.next(); !r.done; r = await rest.next()) yield r.value;
}

/** The first byte that is not white space or a byte order mark, and the chunks read to find it. */
async function firstByte(it: AsyncIterator<Uint8Array>): Promise<{ byte: number | null; taken: Uint8Array[] }> {
  const taken: Uint8Array[] = [];
  let offset = 0;
  for (let r = await it.next(); !r.done; r = await it.next()) {
    // Copy: the source may reuse its buffer for the next chunk.
    const chunk = r.value.slice();
    taken.push(chunk);
    for (let i = 0; i < chunk.length; i++, offset++) {
      const b = chunk[i] as number;
      if (offset < 3 && b === [0xef, 0xbb, 0xbf][offset]) continue;
      if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return { byte: b, taken };
    }
  }
  return { byte: null, taken };
}

function parsed(e: ArrayElement): { line: number; value: unknown } | { line: number; error: string } {
  if ("error" in e) return e;
  try {
    return { line: e.line, value: JSON.parse(e.text) };
  } catch (err) {
    return { line: e.line, error: `not JSON (${(err as Error).message})` };
  }
}

function formatOf(value: unknown): ImportFormat | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  if ("mapping" in value) return "chatgpt";
  if ("chat_messages" in value) return "claude";
  return null;
}

async function* arrayRecords(
  format: ImportFormat,
  first: ({ line: number; value: unknown } | { line: number; error: string })[],
  rest: AsyncIterator<ArrayElement>,
): AsyncGenerator<ImportRecord> {
  const read = format === "claude" ? claudeConversation : chatgptConversation;
  const record = (e: { line: number; value: unknown } | { line: number; error: string }): ImportRecord =>
    "error" in e ? { kind: "bad", line: e.line, reason: e.error } : read(e.value, e.line);
  for (const e of first) yield record(e);
  for (let r = await rest.next(); !r.done; r = await rest.next()) yield record(parsed(r.value));
}

async function* lineRecords(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ImportRecord> {
  let out: ImportRecord[] = [];
  const decoder: LineDecoder = new LineDecoder(
    {
      line: (text) => {
        const r = jsonLine(text, decoder.lineNumber);
        if (r) out.push(r);
      },
      oversized: (bytes) =>
        out.push({
          kind: "bad",
          line: decoder.lineNumber,
          reason: `longer than ${MAX_LINE_BYTES >> 20} MiB (${bytes} bytes), skipped`,
        }),
    },
    MAX_LINE_BYTES,
  );
  for await (const chunk of chunks) {
    decoder.push(chunk);
    yield* out;
    out = [];
  }
  decoder.end();
  yield* out;
}

/** The most of homed's export read (one conversation, its tool results included). */
const MAX_HOMED_EXPORT_BYTES = 512 << 20;

/** Whether the file starts as homed's export: reads on (into `taken`) until its first key shows. */
async function homedHead(taken: Uint8Array[], it: AsyncIterator<Uint8Array>): Promise<boolean> {
  let bytes = taken.reduce((n, c) => n + c.length, 0);
  while (bytes < 256) {
    const r = await it.next();
    if (r.done) break;
    taken.push(r.value.slice());
    bytes += r.value.length;
  }
  return looksLikeHomedExport(new TextDecoder().decode(Buffer.concat(taken).subarray(0, 256)));
}

/** homed's export: one JSON object, one conversation (read whole, up to MAX_HOMED_EXPORT_BYTES). */
async function* wholeRecord(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ImportRecord> {
  const parts: Uint8Array[] = [];
  let bytes = 0;
  for await (const c of chunks) {
    bytes += c.length;
    if (bytes > MAX_HOMED_EXPORT_BYTES) {
      yield { kind: "bad", line: 1, reason: `longer than ${MAX_HOMED_EXPORT_BYTES >> 20} MiB, not read` };
      return;
    }
    parts.push(c.slice());
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(Buffer.concat(parts)));
  } catch (err) {
    yield { kind: "bad", line: 1, reason: `not JSON (${(err as Error).message})` };
    return;
  }
  yield homedConversation(value, 1);
}

/**
 * Tell the format of `chunks` (unless `format` is given) and read its records. Throws
 * HomedError invalid_params when the content is no format it knows.
 */
export async function readExport(chunks: AsyncIterable<Uint8Array>, format?: ImportFormat): Promise<ExportReading> {
  const it = chunks[Symbol.asyncIterator]();
  const { byte, taken } = await firstByte(it);
  const stream = replay(taken, it);
  if (byte === null) return { format: format ?? null, records: (async function* () {})() };
  if (format === "homed" || (format === undefined && byte === 0x7b /* { */ && (await homedHead(taken, it))))
    return { format: "homed", records: wholeRecord(replay(taken, it)) };
  if (format === "jsonl" || (format === undefined && byte === 0x7b) /* { */)
    return { format: "jsonl", records: lineRecords(stream) };
  if (byte !== 0x5b /* [ */) {
    if (format) throw new HomedError("invalid_params", `not a JSON array (a ${format} export is one)`);
    throw new HomedError(
      "invalid_params",
      "not a format homed imports: neither a JSON array (a ChatGPT or Claude export) nor JSON lines",
    );
  }
  const elements = jsonArrayElements(stream)[Symbol.asyncIterator]();
  if (format) return { format, records: arrayRecords(format, [], elements) };
  // Told by the first element that reads as a conversation of either kind.
  const first: ({ line: number; value: unknown } | { line: number; error: string })[] = [];
  for (let r = await elements.next(); !r.done; r = await elements.next()) {
    const e = parsed(r.value);
    first.push(e);
    const told = "error" in e ? null : formatOf(e.value);
    if (told) return { format: told, records: arrayRecords(told, first, elements) };
    if (!("error" in e))
      throw new HomedError(
        "invalid_params",
        `line ${e.line}: not a ChatGPT conversation (no mapping) nor a Claude one (no chat_messages); -format names the format`,
      );
  }
  // Nothing that reads: the bad elements are the records (an empty array has none).
  return { format: null, records: arrayRecords("chatgpt", first, elements) };
}
