/**
 * A long attachment's text cut into chunks for memory. Memory indexes an event's text
 * only up to MAX_INDEXED_TEXT_CHARS, so a fact on page 27 of a long PDF would never be found
 * through the user message that carries it. Each chunk is logged as its own `attachment-chunk`
 * event of the turn (src/agent/turn-steps.ts), indexed with the file name and its anchor. Chunks
 * are cut at the extractor's anchors (pages, headings) where possible, else at paragraph, line,
 * sentence or word boundaries; at most MAX_CHUNKS_PER_ATTACHMENT, the last saying what was left.
 */
import type { Attachment } from "../protocol/attachments.ts";
import { type EventBodyInput, eventOf } from "../protocol/event-bodies.ts";

/** A chunk grows by whole sections until it has this many characters. */
export const MIN_CHUNK_CHARS = 2_000;
/** No chunk is longer; an attachment's text no longer than this makes no chunks at all. */
export const MAX_CHUNK_CHARS = 4_000;
/** Chunks of one attachment (its text is at most 100k characters: ~35 chunks of 3k). */
export const MAX_CHUNKS_PER_ATTACHMENT = 40;

export interface TextChunk {
  /** Offset of its first character in the text. */
  offset: number;
  text: string;
  anchor?: string;
}

interface Piece {
  start: number;
  end: number;
  label: string | undefined;
}

/** Boundaries to cut at, best first: paragraph, line, sentence end, whitespace. */
const BOUNDARIES = [/\n\s*\n/g, /\n/g, /[.!?。！？；;]["')\]」』]?\s*/g, /\s+/g];

/** Where to cut `text` within [lo, hi]: after the last boundary of the best kind found there. */
function cutPoint(text: string, lo: number, hi: number): number {
  const window = text.slice(lo, hi);
  for (const re of BOUNDARIES) {
    let last = -1;
    for (const m of window.matchAll(re)) if (m.index > 0) last = m.index + m[0].length;
    if (last > 0) return lo + last;
  }
  // No boundary at all: a hard cut, never inside a surrogate pair.
  const code = text.charCodeAt(hi - 1);
  return code >= 0xd800 && code <= 0xdbff ? hi - 1 : hi;
}

/** A section [start, end) split into pieces of at most MAX_CHUNK_CHARS, none shorter than needed. */
function split(text: string, start: number, end: number, label: string | undefined): Piece[] {
  const out: Piece[] = [];
  let pos = start;
  while (end - pos > MAX_CHUNK_CHARS) {
    // Leave at least MIN_CHUNK_CHARS for the rest when that is possible.
    const hi = Math.max(pos + MIN_CHUNK_CHARS, Math.min(pos + MAX_CHUNK_CHARS, end - MIN_CHUNK_CHARS));
    const at = cutPoint(text, pos + MIN_CHUNK_CHARS / 2, hi);
    out.push({ start: pos, end: at, label });
    pos = at;
  }
  if (end > pos) out.push({ start: pos, end, label });
  return out;
}

/** "page 26" … "page 28" → "pages 26–28"; other labels: "first – last". */
function rangeLabel(labels: readonly string[]): string | undefined {
  const first = labels[0];
  const last = labels.at(-1);
  if (first === undefined || last === undefined || first === last) return first;
  const a = /^page (\d+)$/.exec(first);
  const b = /^page (\d+)$/.exec(last);
  return a && b ? `pages ${a[1]}–${b[1]}` : `${first} – ${last}`;
}

/**
 * `text` in chunks of about MIN–MAX characters cut at `anchors` where possible; none when the
 * text fits in one chunk. `note` says what the cap left out.
 */
export function chunkText(
  text: string,
  anchors: readonly { label: string; offset: number }[] = [],
  maxChunks = MAX_CHUNKS_PER_ATTACHMENT,
): { chunks: TextChunk[]; note?: string } {
  if (text.length <= MAX_CHUNK_CHARS) return { chunks: [] };
  const marks = [...anchors]
    .filter((a) => a.offset >= 0 && a.offset < text.length)
    .sort((a, b) => a.offset - b.offset)
    .filter((a, i, all) => i === all.length - 1 || (all[i + 1] as { offset: number }).offset !== a.offset);
  const pieces: Piece[] = [];
  let start = 0;
  let label: string | undefined;
  for (const m of marks) {
    if (m.offset > start) pieces.push(...split(text, start, m.offset, label));
    start = m.offset;
    label = m.label;
  }
  pieces.push(...split(text, start, text.length, label));
  // Whole pieces join while a chunk is short and the next one still fits.
  const groups: Piece[][] = [];
  for (const p of pieces) {
    const g = groups.at(-1);
    const first = g?.[0];
    if (g && first && p.start - first.start < MIN_CHUNK_CHARS && p.end - first.start <= MAX_CHUNK_CHARS) g.push(p);
    else groups.push([p]);
  }
  const chunks: TextChunk[] = [];
  for (const g of groups) {
    const from = (g[0] as Piece).start;
    const raw = text.slice(from, (g.at(-1) as Piece).end);
    const body = raw.trim();
    if (!body) continue;
    const labels = [...new Set(g.map((p) => p.label).filter((l): l is string => l !== undefined))];
    const anchor = rangeLabel(labels);
    chunks.push({ offset: from + raw.indexOf(body), text: body, ...(anchor ? { anchor } : {}) });
  }
  if (chunks.length <= maxChunks) return { chunks };
  const kept = chunks.slice(0, maxChunks);
  const next = chunks[maxChunks] as TextChunk;
  const where = next.anchor ? ` (${next.anchor.replace(/^pages (\d+)–\d+$/, "page $1")} on)` : "";
  return {
    chunks: kept,
    note: `chunks stop here: at most ${maxChunks} chunks an attachment, so the text from character ${next.offset}${where} is not indexed in chunks`,
  };
}

/** The `attachment-chunk` events of a turn's attachments (none for short ones), with what memory indexes. */
export function attachmentChunkEvents(
  turn: string,
  attachments: readonly Attachment[] | undefined,
): { event: { kind: "attachment-chunk"; body: EventBodyInput<"attachment-chunk"> }; text: string }[] {
  const out: { event: { kind: "attachment-chunk"; body: EventBodyInput<"attachment-chunk"> }; text: string }[] = [];
  for (const a of attachments ?? []) {
    if (!a.text) continue;
    const { chunks, note } = chunkText(a.text, a.anchors);
    const name = a.name ? { name: a.name } : {};
    chunks.forEach((c, i) => {
      const last = i === chunks.length - 1 && note ? { note } : {};
      const body = { turn, sha256: a.sha256, ...name, ...c, ...last };
      out.push({ event: eventOf("attachment-chunk", body), text: chunkIndexText(body) });
    });
  }
  return out;
}

/** "attachment report.pdf · page 27": what a chunk is, as memory search shows it. */
export function chunkRole(c: { name?: string; sha256: string; anchor?: string }): string {
  return `attachment ${c.name ?? `block ${c.sha256.slice(0, 12)}`}${c.anchor ? ` · ${c.anchor}` : ""}`;
}

/** What memory indexes of a chunk: where it is from, its text, and what the cap left out. */
export function chunkIndexText(c: { name?: string; sha256: string; anchor?: string; text: string; note?: string }) {
  const head = [c.name, c.anchor].filter(Boolean).join(" · ");
  return `${head ? `[${head}]\n` : ""}${c.text}${c.note ? `\n[${c.note}]` : ""}`;
}
