/**
 * Markdown and HTML as text with heading anchors. Markdown stays as written (it is already text;
 * headings outside fenced code become anchors). HTML is parsed with htmlparser2: scripts, styles
 * and templates dropped, block elements on their own lines, h1–h6 anchors, entities decoded.
 */
import { Parser } from "htmlparser2";
import { DocBuilder, type DocText } from "./doc-text.ts";

export function markdownText(source: string): DocText {
  const b = new DocBuilder();
  let fence: string | null = null;
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const line of lines) {
    const f = /^\s{0,3}(```+|~~~+)/.exec(line);
    if (f) fence = fence === null ? (f[1] as string).slice(0, 3) : line.trim().startsWith(fence) ? null : fence;
    const h = fence === null ? /^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line) : null;
    if (h) b.anchor(`${"#".repeat((h[1] as string).length)} ${(h[2] as string).slice(0, 120)}`);
    b.push(`${line}\n`);
  }
  return b.build("Markdown");
}

const BLOCK = new Set(
  "address article aside blockquote br dd div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section table tr ul".split(
    " ",
  ),
);
const SKIP = new Set(["script", "style", "template", "noscript", "head"]);

export function htmlText(source: string): DocText {
  const b = new DocBuilder();
  let skipping = 0;
  let inPre = 0;
  let heading: { level: number; text: string } | null = null;
  const parser = new Parser(
    {
      onopentag(name) {
        if (SKIP.has(name)) skipping++;
        if (skipping > 0) return;
        if (name === "pre") inPre++;
        if (BLOCK.has(name)) b.newline();
        if (/^h[1-6]$/.test(name)) heading = { level: Number(name[1]), text: "" };
        if (name === "li") b.push("- ");
        if (name === "td" || name === "th") b.push(" | ");
      },
      ontext(text) {
        if (skipping > 0) return;
        const t = inPre > 0 ? text : text.replace(/\s+/g, " ");
        if (heading) heading.text += t;
        else b.push(t);
      },
      onclosetag(name) {
        if (SKIP.has(name)) {
          skipping = Math.max(0, skipping - 1);
          return;
        }
        if (skipping > 0) return;
        if (name === "pre") inPre = Math.max(0, inPre - 1);
        if (heading && name === `h${heading.level}`) {
          const text = heading.text.trim();
          b.newline();
          b.anchor(`${"#".repeat(heading.level)} ${text.slice(0, 120)}`);
          b.push(`${"#".repeat(heading.level)} ${text}\n`);
          heading = null;
        }
        if (BLOCK.has(name)) b.newline();
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(source);
  parser.end();
  return b.build("HTML");
}
