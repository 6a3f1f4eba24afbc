/**
 * PDFs through Debian's poppler-utils: pdfinfo for the page count, one pdftotext run over a page
 * range (pages come separated by form feeds, which become page anchors), pdftoppm to render one
 * page as a PNG. Pages past [tools.media] max_pdf_pages are not read (the note says so) and every
 * run has the time cap, so a huge or hostile PDF costs bounded time.
 */
import { readFileSync } from "node:fs";
import { DocBuilder, type DocText } from "./doc-text.ts";
import { MediaError } from "./media-error.ts";
import { need, type RunOptions, runProgram } from "./programs.ts";
import type { Scratch } from "./media-files.ts";

export async function pdfPageCount(file: string, what: string, opts: RunOptions): Promise<number> {
  need("pdfinfo");
  const r = await runProgram("pdfinfo", [file], opts).catch((err: Error) => {
    if (err.message.includes("took longer than")) throw err;
    throw new MediaError(`${what} is not a readable PDF: ${err.message}`);
  });
  const m = /^Pages:\s+(\d+)/m.exec(r.stdout);
  if (!m) throw new MediaError(`${what}: pdfinfo did not say how many pages it has`);
  return Number(m[1]);
}

export interface PageRange {
  first?: number;
  last?: number;
}

/** The text of pages first..last (clamped to the document and the page cap), one anchor a page. */
export async function pdfText(
  file: string,
  what: string,
  range: PageRange,
  maxPages: number,
  opts: RunOptions,
): Promise<DocText> {
  const pages = await pdfPageCount(file, what, opts);
  if (pages === 0) return { text: "", anchors: [], note: "PDF, 0 pages" };
  const first = Math.max(1, range.first ?? 1);
  if (first > pages) throw new MediaError(`${what} has ${pages} pages; page ${first} does not exist`);
  const asked = Math.min(pages, range.last ?? pages);
  if (asked < first) throw new MediaError(`the page range ${first}-${asked} is empty`);
  const last = Math.min(asked, first + maxPages - 1);
  const r = await runProgram(
    "pdftotext",
    ["-layout", "-enc", "UTF-8", "-f", `${first}`, "-l", `${last}`, file, "-"],
    opts,
  );
  const b = new DocBuilder();
  const texts = r.stdout.split("\f");
  for (let p = first; p <= last; p++) {
    b.anchor(`page ${p}`);
    b.push(`${(texts[p - first] ?? "").replace(/\s+$/, "")}\n\n`);
  }
  const cut =
    last < asked
      ? `; pages ${last + 1}-${asked} not read (max_pdf_pages ${maxPages}): ask for them with first_page`
      : "";
  return b.build(`PDF, ${pages} pages; pages ${first}-${last}${cut}`);
}

/** One page as a PNG at `dpi`, fitted inside `maxPx` on its longer side. */
export async function pdfPagePng(
  file: string,
  what: string,
  page: number,
  dpi: number,
  maxPx: number,
  scratch: Scratch,
  opts: RunOptions,
): Promise<{ png: Uint8Array; pages: number }> {
  const pages = await pdfPageCount(file, what, opts);
  if (page < 1 || page > pages) throw new MediaError(`${what} has ${pages} pages; page ${page} does not exist`);
  const out = scratch.path("page");
  await runProgram(
    "pdftoppm",
    ["-png", "-r", `${dpi}`, "-scale-to", `${maxPx}`, "-f", `${page}`, "-l", `${page}`, "-singlefile", file, out],
    opts,
  );
  return { png: new Uint8Array(readFileSync(`${out}.png`)), pages };
}
