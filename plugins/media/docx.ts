/**
 * DOCX as text with heading anchors: word/document.xml from the (bomb-guarded) ZIP, parsed with
 * htmlparser2 in XML mode. Paragraphs become lines; a paragraph styled Title or Heading N becomes
 * an anchor; tabs and breaks are kept; tables come out a row per line.
 */
import { Parser } from "htmlparser2";
import { DocBuilder, type DocText } from "./doc-text.ts";
import { MediaError } from "./media-error.ts";
import { ZipReader } from "./zip.ts";

/** The text part of a DOCX larger than this is refused (a real one is rarely over a few MiB). */
const MAX_DOCUMENT_XML = 64 * 1048576;

export function docxText(bytes: Uint8Array, what: string): DocText {
  const zip = new ZipReader(bytes, what);
  const xml = zip.read("word/document.xml", what);
  if (!xml) throw new MediaError(`${what} is a ZIP file without word/document.xml: not a Word document (DOCX)`);
  if (xml.length > MAX_DOCUMENT_XML) throw new MediaError(`${what}: its text part is over 64 MiB; refused`);
  const b = new DocBuilder();
  let para: string[] | null = null;
  let style = "";
  let inText = false;
  let cells: string[] | null = null;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === "w:p") {
          para = [];
          style = "";
        } else if (name === "w:pstyle") style = attrs["w:val"] ?? "";
        else if (name === "w:t") inText = true;
        else if (name === "w:tab") para?.push("\t");
        else if (name === "w:br" || name === "w:cr") para?.push("\n");
        else if (name === "w:tr") cells = [];
      },
      ontext(text) {
        if (inText && para) para.push(text);
      },
      onclosetag(name) {
        if (name === "w:t") inText = false;
        else if (name === "w:p" && para) {
          const line = para.join("");
          para = null;
          if (cells) {
            cells.push(line);
            return;
          }
          const h = /^(?:heading\s*(\d)|title)$/i.exec(style.replace(/\s+/g, " ").trim());
          if (h && line.trim()) {
            const level = h[1] ? Number(h[1]) : 1;
            b.anchor(`${"#".repeat(level)} ${line.trim().slice(0, 120)}`);
            b.push(`${"#".repeat(level)} ${line.trim()}\n`);
          } else b.push(`${line}\n`);
        } else if (name === "w:tr" && cells) {
          b.push(`| ${cells.map((c) => c.replace(/\n/g, " ").trim()).join(" | ")} |\n`);
          cells = null;
        }
      },
    },
    { xmlMode: true, decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(new TextDecoder().decode(xml));
  parser.end();
  return b.build("DOCX");
}
