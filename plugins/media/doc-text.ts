/**
 * A document as text with anchors (page or heading starts, as character offsets), and the window
 * of it one media_read_doc call shows: long documents come a chunk at a time, each chunk saying which
 * anchors it covers and the offset to ask for next, so nothing is cut silently.
 */
import type { MediaAnchor } from "../../src/protocol/media.ts";

export interface DocText {
  text: string;
  anchors: MediaAnchor[];
  /** What the text is ("PDF, 12 pages", "DOCX") and anything left out. */
  note?: string;
}

/** Build text with anchors piece by piece. */
export class DocBuilder {
  private parts: string[] = [];
  private length = 0;
  readonly anchors: MediaAnchor[] = [];

  anchor(label: string): void {
    this.anchors.push({ label, offset: this.length });
  }
  push(s: string): void {
    this.parts.push(s);
    this.length += s.length;
  }
  /** End the current line (no blank line doubling). */
  newline(): void {
    const last = this.parts.at(-1) ?? "";
    if (this.length > 0 && !last.endsWith("\n")) this.push("\n");
  }
  build(note?: string): DocText {
    return { text: this.parts.join(""), anchors: this.anchors, ...(note ? { note } : {}) };
  }
}

/** Characters one media_read_doc answer shows: ~5k tokens, room for several calls in one turn. */
export const WINDOW_CHARS = 20_000;

/** The part of `doc` from `from` (character offset), with its anchors and where to go on. */
export function docWindow(doc: DocText, what: string, from = 0, max = WINDOW_CHARS): string {
  const total = doc.text.length;
  if (total === 0) return `${what}: no text found${doc.note ? ` (${doc.note})` : ""}`;
  if (from >= total) return `${what} has ${total} characters; from ${from} is past the end`;
  let end = Math.min(total, from + max);
  // End at a line break when one is near, so a chunk does not stop mid-sentence.
  if (end < total) {
    const nl = doc.text.lastIndexOf("\n", end);
    if (nl > from + max / 2) end = nl + 1;
  }
  const inside = doc.anchors.filter((a) => a.offset >= from && a.offset < end);
  const head = [`${what}${doc.note ? ` (${doc.note})` : ""}: characters ${from}-${end} of ${total}.`];
  if (inside.length > 0)
    head.push(`Anchors here: ${inside.map((a) => `${a.label} @${a.offset}`).join("; ")}`.slice(0, 2000));
  const tail =
    end < total ? `\n[more: media_read_doc with from = ${end}${nextAnchor(doc, end)}]` : "\n[end of document]";
  return `${head.join("\n")}\n\n${doc.text.slice(from, end)}${tail}`;
}

function nextAnchor(doc: DocText, end: number): string {
  const next = doc.anchors.find((a) => a.offset >= end);
  return next ? `; next anchor ${next.label} @${next.offset}` : "";
}
