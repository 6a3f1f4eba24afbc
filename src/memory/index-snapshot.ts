/**
 * A person-wide index (src/memory/person-index.ts) as bytes and back, so a start does not make it
 * again from every row of `event_terms`: at a million events that took 20–30 seconds, paid by the
 * first turn after each start (docs/BENCHMARKS.md, make bench-scale). The snapshot is derived
 * data like the rows it is made of: one the daemon cannot read, of another layout or of another
 * database, is ignored and the index made from the rows.
 *
 * Layout: 8 bytes of magic, the header's length (u32, little-endian), the header as JSON, then,
 * each at a multiple of 8 bytes, the per-document columns, each list's documents, length and last
 * document (three Int32 a term, in the order the header names the terms), and the postings' bytes
 * one list after the other. The columns are written with room for more documents, so a restored
 * index takes new events without copying them; the arrays it is given are views of the
 * snapshot's bytes. The header holds strings only: as [term, n, len, last] tuples, reading and
 * checking 50k of them was most of a restore's 250 ms.
 */
import * as v from "valibot";
import { ConvIndex, Postings } from "./conv-index.ts";

/** Where snapshots are kept (the kernel's DATA/index; none in a `homed recall` session). */
export interface IndexSnapshots {
  /** The bytes saved under `name`, in a buffer of their own; null when there are none. */
  load(name: string): Uint8Array<ArrayBuffer> | null;
  save(name: string, bytes: Uint8Array): void;
}

/** A person-wide index with what it needs beside its documents. */
export interface ScopeState {
  index: ConvIndex;
  /** The conversation of each document, as an ordinal into `convs`. */
  convOfDoc: Int32Array;
  convs: string[];
  /** The last event id read from the log (indexed or not), and its conversation. */
  lastSeen: number;
  lastConv: string;
}

const MAGIC = "homedpi1";
const VERSION = 2;

/** The per-document columns, in the order they are written. */
const COLUMNS = [
  ["ids", Float64Array],
  ["lens", Int32Array],
  ["sessions", Int32Array],
  ["times", Float64Array],
  ["linkNext", Uint8Array],
  ["speakerOf", Int32Array],
  ["person", Uint8Array],
  ["numeric", Uint8Array],
  ["today", Uint8Array],
  ["asks", Uint8Array],
  ["abstains", Uint8Array],
  ["echoesBefore", Uint8Array],
  ["distinct", Int32Array],
] as const;
type Column = (typeof COLUMNS)[number][0];
type TypedColumn = Float64Array | Int32Array | Uint8Array;

const Header = v.object({
  version: v.literal(VERSION),
  /** The layout of the `event_terms` rows it was made of (src/memory/lexical-index.ts FORMAT). */
  format: v.string(),
  lastSeen: v.number(),
  lastConv: v.string(),
  minId: v.number(),
  size: v.number(),
  /** Room for documents in each column (at least `size`). */
  capacity: v.number(),
  totalLen: v.number(),
  postings: v.number(),
  convs: v.array(v.string()),
  sessions: v.array(v.string()),
  speakers: v.array(v.string()),
  names: v.array(v.string()),
  hanChars: v.array(v.tuple([v.string(), v.array(v.string())])),
  /** The terms of each map; their figures and bytes follow the columns in this order. */
  words: v.array(v.string()),
  concepts: v.array(v.string()),
  speakerTerms: v.array(v.string()),
  /** Bytes of postings, all lists together. */
  postingBytes: v.number(),
});

const pad8 = (n: number) => (n + 7) & ~7;

/** The scope's index as snapshot bytes, for rows of layout `format`. */
export function encodeScope(s: ScopeState, format: string): Uint8Array {
  const ci = s.index;
  const maps = [ci.words, ci.concepts, ci.speakers];
  const capacity = ci.size + Math.max(1024, Math.ceil(ci.size * 0.05));
  const { sessions, speakers } = ci.keys();
  const header = new TextEncoder().encode(
    JSON.stringify({
      version: VERSION,
      format,
      lastSeen: s.lastSeen,
      lastConv: s.lastConv,
      minId: ci.minId,
      size: ci.size,
      capacity,
      totalLen: ci.totalLen,
      postings: ci.postings,
      convs: s.convs,
      sessions,
      speakers,
      names: [...ci.names],
      hanChars: [...ci.hanChars],
      words: [...ci.words.keys()],
      concepts: [...ci.concepts.keys()],
      speakerTerms: [...ci.speakers.keys()],
      postingBytes: maps.reduce((n, m) => n + [...m.values()].reduce((k, p) => k + p.len, 0), 0),
    } satisfies v.InferInput<typeof Header>),
  );
  const columns: TypedColumn[] = [...COLUMNS.map(([name]) => ci[name] as TypedColumn), s.convOfDoc];
  const terms = ci.words.size + ci.concepts.size + ci.speakers.size;
  const figures = new Int32Array(terms * 3);
  let i = 0;
  for (const map of maps)
    for (const p of map.values()) {
      figures[i++] = p.n;
      figures[i++] = p.len;
      figures[i++] = p.lastDoc;
    }
  let size = pad8(12 + header.length);
  for (const c of columns) size += pad8(capacity * c.BYTES_PER_ELEMENT);
  size += pad8(figures.byteLength);
  for (const map of maps) for (const p of map.values()) size += p.len;
  const out = new Uint8Array(size);
  out.set(new TextEncoder().encode(MAGIC), 0);
  new DataView(out.buffer).setUint32(8, header.length, true);
  out.set(header, 12);
  let at = pad8(12 + header.length);
  for (const c of columns) {
    const n = Math.min(ci.size, c.length);
    out.set(new Uint8Array(c.buffer, c.byteOffset, n * c.BYTES_PER_ELEMENT), at);
    at += pad8(capacity * c.BYTES_PER_ELEMENT);
  }
  out.set(new Uint8Array(figures.buffer), at);
  at += pad8(figures.byteLength);
  for (const map of maps)
    for (const p of map.values()) {
      out.set(p.bytes.subarray(0, p.len), at);
      at += p.len;
    }
  return out;
}

/**
 * The scope a snapshot holds, its arrays views of `bytes`; null when the bytes are not a snapshot
 * of this version made of rows of layout `format`.
 */
export function decodeScope(bytes: Uint8Array<ArrayBuffer>, format: string): ScopeState | null {
  if (bytes.length < 12 || new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) return null;
  // Views of 8-byte numbers need the buffer to start at a multiple of 8.
  const buf = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  const headerLen = new DataView(buf.buffer, buf.byteOffset).getUint32(8, true);
  if (12 + headerLen > buf.length) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(buf.subarray(12, 12 + headerLen)));
  } catch {
    return null;
  }
  const h = v.safeParse(Header, raw);
  if (!h.success || h.output.format !== format) return null;
  const hd = h.output;
  const terms = hd.words.length + hd.concepts.length + hd.speakerTerms.length;
  let need = pad8(12 + headerLen);
  const widths = [...COLUMNS.map(([, T]) => T.BYTES_PER_ELEMENT), 4];
  for (const w of widths) need += pad8(hd.capacity * w);
  const figuresAt = need;
  need += pad8(terms * 3 * 4);
  const postingsStart = need;
  need += hd.postingBytes;
  if (need !== buf.length || hd.capacity < hd.size) return null;
  const figures = new Int32Array(buf.buffer, buf.byteOffset + figuresAt, terms * 3);

  const ci = new ConvIndex(hd.minId);
  let at = buf.byteOffset + pad8(12 + headerLen);
  for (const [name, T] of COLUMNS) {
    (ci as unknown as Record<Column, TypedColumn>)[name] = new T(buf.buffer, at, hd.capacity);
    at += pad8(hd.capacity * T.BYTES_PER_ELEMENT);
  }
  const convOfDoc = new Int32Array(buf.buffer, at, hd.capacity);
  ci.size = hd.size;
  ci.totalLen = hd.totalLen;
  ci.postings = hd.postings;
  ci.sessionCount = hd.sessions.length;
  ci.restoreKeys(hd.sessions, hd.speakers);
  for (const n of hd.names) ci.names.add(n);
  for (const [ch, words] of hd.hanChars) ci.hanChars.set(ch, words);
  let p = postingsStart;
  let f = 0;
  for (const [map, ls] of [
    [ci.words, hd.words],
    [ci.concepts, hd.concepts],
    [ci.speakers, hd.speakerTerms],
  ] as const)
    for (const term of ls) {
      const list = new Postings();
      list.n = figures[f++] as number;
      const len = figures[f++] as number;
      list.len = len;
      list.lastDoc = figures[f++] as number;
      if (p + len > postingsStart + hd.postingBytes) return null;
      list.bytes = buf.subarray(p, p + len);
      map.set(term, list);
      p += len;
    }
  if (p !== postingsStart + hd.postingBytes) return null;
  return { index: ci, convOfDoc, convs: hd.convs, lastSeen: hd.lastSeen, lastConv: hd.lastConv };
}
