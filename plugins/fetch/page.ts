/**
 * Paging of fetch_url's text: about PAGE_CHARS characters a call, cut at a line end when one is
 * near, with the cursor of the next page. A page lists the links whose numbers appear on it,
 * so the model never needs another page to follow a link it is reading.
 */
import { HomedError } from "../../src/protocol/errors.ts";

/** Characters of text per page: a few thousand tokens, well under the kernel's tool output cap. */
export const PAGE_CHARS = 20_000;
/** A line end within this last share of the page ends it there rather than mid-line. */
const LINE_SLACK = 0.2;
/** Links listed under one page at most (a page of nothing but links stays bounded). */
const MAX_LINKS_PER_PAGE = 300;

export interface Page {
  /** "Characters 0–20000 of 51234; next page: cursor = 20000", or the whole text's length. */
  position: string;
  /** The page's text and its links. */
  body: string;
}

/** The page of `text` starting at `cursor`; `links[n-1]` is what "[n]" in the text points to. */
export function pageOf(text: string, links: readonly string[], cursor: number, tool: string): Page {
  if (cursor > 0 && cursor >= text.length)
    throw new HomedError(
      "invalid_params",
      `${tool}: cursor ${cursor} is past the end (the text has ${text.length} characters)`,
    );
  let end = Math.min(text.length, cursor + PAGE_CHARS);
  if (end < text.length) {
    const nl = text.lastIndexOf("\n", end - 1);
    if (nl >= end - PAGE_CHARS * LINE_SLACK && nl > cursor) end = nl + 1;
  }
  const slice = text.slice(cursor, end);
  const position =
    cursor === 0 && end === text.length
      ? `Text: ${text.length} characters, all on this page`
      : `Characters ${cursor}–${end} of ${text.length}` +
        (end < text.length ? `; next page: call again with cursor = ${end}` : "; this is the last page");

  const shown = new Set<number>();
  for (const m of slice.matchAll(/\[(\d+)\]/g)) {
    const n = Number(m[1]);
    if (n >= 1 && n <= links.length) shown.add(n);
  }
  const numbers = [...shown].sort((a, b) => a - b);
  let body = slice.trimEnd();
  if (numbers.length > 0) {
    const listed = numbers.slice(0, MAX_LINKS_PER_PAGE).map((n) => `[${n}] ${links[n - 1]}`);
    const more = numbers.length - listed.length;
    body += `\n\nLinks:\n${listed.join("\n")}${more > 0 ? `\n(${more} more links on this page not listed)` : ""}`;
  }
  return { position, body };
}
