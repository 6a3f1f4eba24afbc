/**
 * HTML → readable text for a model: title, headings (#), paragraphs, lists (- and 1.), code
 * (fenced), tables (cells joined by |), quotes (>), with each link's number after its text and
 * the links' absolute URLs returned apart. Scripts, styles, forms' controls, navigation, page
 * headers and footers, asides and hidden elements are dropped. When the page marks its main
 * content (<main>, <article>, role=main) and that holds most of the text, only it is kept.
 *
 * htmlparser2 does the parsing (a forgiving streaming tokenizer that decodes entities and
 * closes what HTML leaves implied); this file only decides what becomes text.
 */
import { Parser } from "htmlparser2";

export interface ReadableHtml {
  title: string;
  /** The text; a link is its text followed by "[n]", n counting from 1 into `links`. */
  text: string;
  /** Absolute http(s) URLs, each once, in order of first appearance in `text`. */
  links: string[];
}

/** Elements whose content never becomes text. */
const SKIPPED = new Set(
  "script style noscript template svg math iframe object embed canvas nav footer aside button select option textarea input dialog".split(
    " ",
  ),
);
const SKIPPED_ROLES = new Set(["navigation", "banner", "contentinfo", "complementary", "search", "dialog"]);
/** Elements that end a line of text when they open or close. */
const BLOCKS = new Set(
  "p div section article main header footer ul ol li dl dt dd pre blockquote table thead tbody tfoot tr figure figcaption hr address details summary caption fieldset legend center form body html".split(
    " ",
  ),
);
const HEADINGS: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
const MAIN = new Set(["main", "article"]);

/** Placeholder for link i in the text until links are numbered at the end. */
const LINK_OPEN = "\u0001";
const LINK_CLOSE = "\u0002";
const LINK_MARK = new RegExp(`${LINK_OPEN}(\\d+)${LINK_CLOSE}`, "g");

type Kind = "p" | "li" | "row" | "h" | "pre" | "hr";
interface Line {
  text: string;
  kind: Kind;
  main: boolean;
}
interface Open {
  name: string;
  skip: boolean;
  main: boolean;
  href?: string;
  textAt?: number;
}

/**
 * Main content is trusted only when it holds this share of the page's text or this many
 * characters: a page that wraps one teaser in <article> must not lose the rest.
 */
const MAIN_SHARE = 0.3;
const MAIN_CHARS = 400;

/** Readable text of an HTML document fetched from `pageUrl`. */
export function htmlToText(html: string, pageUrl: string): ReadableHtml {
  const lines: Line[] = [];
  const stack: Open[] = [];
  const rawLinks: string[] = [];
  const lists: { ordered: boolean; n: number }[] = [];
  let base = pageUrl;
  let title = "";
  let inTitle = false;
  let cur = "";
  let skip = 0;
  let main = 0;
  let pre = 0;
  let quote = 0;
  let heading = 0;
  let cell = 0;
  let rowCells = 0;
  let marker = "";
  /** Visible characters so far: tells a link with text from an empty one. */
  let seen = 0;

  const linePrefix = (kind: Kind): string => {
    const q = "> ".repeat(quote);
    if (kind === "h") return `${q}${"#".repeat(heading)} `;
    const indent = "  ".repeat(Math.max(0, lists.length - 1));
    if (marker) {
      const m = marker;
      marker = "";
      return `${q}${indent}${m} `;
    }
    return q + (lists.length > 0 ? `${indent}  ` : "");
  };
  const flush = (kind: Kind = "p") => {
    const text = cur.replace(/[ \t\r\n\f]+/g, " ").trim();
    cur = "";
    if (text.replace(LINK_MARK, "").trim() === "") return;
    const k: Kind = kind === "p" && lists.length > 0 ? "li" : kind;
    lines.push({ text: linePrefix(kind) + text, kind: k, main: main > 0 });
  };
  const resolve = (href: string): string | null => {
    try {
      const u = new URL(href, base);
      if (u.protocol !== "http:" && u.protocol !== "https:") return null;
      const page = new URL(pageUrl);
      // A link into this same page (#section) adds nothing the text does not have.
      if (u.hash && u.href.slice(0, -u.hash.length) === page.href.slice(0, page.href.length - page.hash.length))
        return null;
      return u.href;
    } catch {
      return null;
    }
  };

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        const role = attrs.role?.toLowerCase() ?? "";
        const hidden =
          "hidden" in attrs || attrs["aria-hidden"] === "true" || /display\s*:\s*none/i.test(attrs.style ?? "");
        const skipped =
          SKIPPED.has(name) ||
          SKIPPED_ROLES.has(role) ||
          hidden ||
          // A page header outside the main content is the site's banner; inside it, the article's.
          (name === "header" && main === 0);
        const isMain = MAIN.has(name) || role === "main";
        const open: Open = { name, skip: skipped, main: isMain };
        stack.push(open);
        if (name === "title" && !title && skip === 0) inTitle = true;
        if (name === "base" && attrs.href && base === pageUrl) {
          try {
            base = new URL(attrs.href, pageUrl).href;
          } catch {}
        }
        if (skipped) skip++;
        if (isMain) main++;
        if (skip > 0) return;
        if (cell > 0 && BLOCKS.has(name)) {
          cur += " ";
        } else if (name in HEADINGS) {
          flush();
          heading = HEADINGS[name] as number;
        } else if (name === "pre") {
          flush();
          pre++;
        } else if (name === "li") {
          flush();
          const list = lists.at(-1);
          if (list) list.n++;
          marker = list?.ordered ? `${list.n}.` : "-";
        } else if (name === "ul" || name === "ol") {
          flush();
          lists.push({ ordered: name === "ol", n: Number(attrs.start ?? 1) - 1 || 0 });
        } else if (name === "blockquote") {
          flush();
          quote++;
        } else if (name === "tr") {
          flush();
          rowCells = 0;
        } else if (name === "td" || name === "th") {
          if (rowCells++ > 0) cur += " | ";
          cell++;
        } else if (name === "br") {
          if (pre > 0) cur += "\n";
          else flush();
        } else if (name === "hr") {
          flush();
          lines.push({ text: "---", kind: "hr", main: main > 0 });
        } else if (name === "img") {
          const alt = (attrs.alt ?? "").trim();
          if (alt) {
            cur += ` [image: ${alt}] `;
            seen += alt.length;
          }
        } else if (name === "code" && pre === 0) {
          cur += "`";
        } else if (name === "a" && attrs.href) {
          open.href = attrs.href;
          open.textAt = seen;
        } else if (BLOCKS.has(name)) {
          flush();
        }
      },
      ontext(raw) {
        const text = raw.replaceAll(LINK_OPEN, "").replaceAll(LINK_CLOSE, "");
        if (inTitle) title += text;
        else if (skip === 0) {
          cur += pre > 0 ? text : text.replace(/[ \t\r\n\f]+/g, " ");
          if (/\S/.test(text)) seen += text.length;
        }
      },
      onclosetag(name) {
        const at = stack.findLastIndex((o) => o.name === name);
        if (at < 0) return;
        // htmlparser2 closes implied elements itself; popping to the match keeps us in step anyway.
        for (const o of stack.splice(at).reverse()) close(o);
      },
    },
    { decodeEntities: true },
  );

  function close(o: Open): void {
    const name = o.name;
    if (name === "title") inTitle = false;
    const wasSkipping = skip > 0;
    if (o.skip) skip--;
    if (wasSkipping) {
      if (o.main) main--;
      return;
    }
    if (cell > 0 && (name === "td" || name === "th")) {
      cell--;
    } else if (cell > 0 && BLOCKS.has(name)) {
      cur += " ";
    } else if (name in HEADINGS) {
      flush("h");
      heading = 0;
    } else if (name === "pre") {
      pre--;
      if (pre === 0) {
        const code = cur.replace(/^\n+|\s+$/g, "");
        cur = "";
        if (code) lines.push({ text: `\`\`\`\n${code}\n\`\`\``, kind: "pre", main: main > 0 });
      }
    } else if (name === "li") {
      flush();
      // An item with no text of its own must not lend its marker to the next line.
      marker = "";
    } else if (name === "ul" || name === "ol") {
      flush();
      marker = "";
      lists.pop();
    } else if (name === "blockquote") {
      flush();
      quote--;
    } else if (name === "tr") {
      flush("row");
    } else if (name === "code" && pre === 0) {
      cur += "`";
    } else if (name === "a" && o.href !== undefined) {
      const url = resolve(o.href);
      if (url && seen > (o.textAt ?? seen)) {
        rawLinks.push(url);
        cur += ` ${LINK_OPEN}${rawLinks.length - 1}${LINK_CLOSE}`;
      }
    } else if (BLOCKS.has(name)) {
      flush();
    }
    if (o.main) main--;
  }

  parser.write(html);
  parser.end();
  flush();

  const all = lines.reduce((n, l) => n + l.text.length, 0);
  const inMain = lines.filter((l) => l.main);
  const mainChars = inMain.reduce((n, l) => n + l.text.length, 0);
  const chosen = mainChars >= MAIN_CHARS || (mainChars > 0 && mainChars >= all * MAIN_SHARE) ? inMain : lines;

  let text = "";
  let prev: Line | undefined;
  for (const l of chosen) {
    if (prev) text += l.kind === prev.kind && (l.kind === "li" || l.kind === "row") ? "\n" : "\n\n";
    text += l.text;
    prev = l;
  }
  const links: string[] = [];
  const numberOf = new Map<string, number>();
  text = text.replace(LINK_MARK, (_, i: string) => {
    const url = rawLinks[Number(i)] as string;
    let n = numberOf.get(url);
    if (n === undefined) {
      n = links.push(url);
      numberOf.set(url, n);
    }
    return `[${n}]`;
  });
  return { title: title.replace(/\s+/g, " ").trim(), text, links };
}
