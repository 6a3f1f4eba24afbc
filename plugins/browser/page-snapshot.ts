/**
 * A page as the model reads it: its text in reading order, each interactive element (link,
 * button, input, select, text area, checkbox, anything with a clickable role or editable) shown
 * in place as `[n] role "name"`. The numbering runs in the page: each element gets the
 * attribute `marker` = n (a name with a random part per browser session, so a page cannot
 * pre-number its own elements), and click and type find the element by it. Numbering again
 * clears the old marks.
 *
 * `snapshotInPage` runs inside the page (page.evaluate serialises it), so it must reference
 * nothing outside itself.
 */

export interface SnapshotElement {
  n: number;
  role: string;
  name: string;
}

export interface PageSnapshot {
  title: string;
  url: string;
  text: string;
  elements: SnapshotElement[];
  /** Requests of the page the SSRF guard stopped (images, scripts, fetches), per host; set by the session. */
  blocked?: Record<string, number>;
}

/** The little of the DOM `snapshotInPage` touches: the plugin compiles without the DOM library. */
interface DomNode {
  nodeType: number;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}
interface DomEl extends DomNode {
  tagName: string;
  parentElement: DomEl | null;
  shadowRoot: { childNodes: ArrayLike<DomNode> } | null;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  hasAttribute(name: string): boolean;
  querySelector(selector: string): DomEl | null;
  getBoundingClientRect(): { width: number; height: number };
  checkVisibility?: (options?: object) => boolean;
  isContentEditable?: boolean;
  innerText?: string;
  labels?: ArrayLike<DomNode> | null;
  value?: string;
  type?: string;
  placeholder?: string;
  name?: string;
  checked?: boolean;
  disabled?: boolean;
  href?: string;
  selectedOptions?: ArrayLike<DomNode>;
}
declare const document: {
  title: string;
  body: DomEl | null;
  querySelectorAll(selector: string): ArrayLike<DomEl>;
  getElementById(id: string): DomEl | null;
};
declare const location: { href: string };
declare const window: {
  innerHeight: number;
  scrollY: number;
  scrollBy(options: { top: number; behavior: "instant" }): void;
};

/** Elements numbered at most; a page with more lists the first ones in reading order. */
export const MAX_ELEMENTS = 1000;

export function snapshotInPage(args: { marker: string; max: number }): PageSnapshot {
  const { marker, max } = args;
  for (const el of Array.from(document.querySelectorAll(`[${marker}]`))) el.removeAttribute(marker);
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "SVG", "HEAD", "META", "LINK", "IFRAME", "CANVAS"]);
  const BLOCK = new Set([
    "P",
    "DIV",
    "SECTION",
    "ARTICLE",
    "MAIN",
    "HEADER",
    "FOOTER",
    "NAV",
    "ASIDE",
    "UL",
    "OL",
    "LI",
    "TABLE",
    "TR",
    "FORM",
    "FIELDSET",
    "H1",
    "H2",
    "H3",
    "H4",
    "H5",
    "H6",
    "PRE",
    "BLOCKQUOTE",
    "DL",
    "DT",
    "DD",
    "FIGURE",
    "FIGCAPTION",
    "DETAILS",
    "HR",
    "BR",
    "LABEL",
  ]);
  const ROLES = new Set([
    "button",
    "link",
    "checkbox",
    "radio",
    "tab",
    "menuitem",
    "option",
    "switch",
    "textbox",
    "searchbox",
    "combobox",
    "slider",
    "spinbutton",
  ]);
  const out: string[] = [];
  const elements: SnapshotElement[] = [];
  const clean = (s: string | null | undefined) => (s ?? "").replace(/\s+/g, " ").trim();
  const cut = (s: string) => (s.length > 100 ? `${s.slice(0, 99)}…` : s);
  const visible = (el: DomEl) => {
    if (el.checkVisibility) return el.checkVisibility({ visibilityProperty: true, opacityProperty: false });
    const r = el.getBoundingClientRect();
    return r.width > 0 || r.height > 0;
  };
  const roleOf = (el: DomEl): string | null => {
    const explicit = el.getAttribute("role");
    if (explicit && ROLES.has(explicit)) return explicit;
    const tag = el.tagName;
    if (tag === "A" && el.hasAttribute("href")) return "link";
    if (tag === "BUTTON" || tag === "SUMMARY") return "button";
    if (tag === "SELECT") return "select";
    if (tag === "TEXTAREA") return "textarea";
    if (tag === "INPUT") {
      const type = (el.type || "text").toLowerCase();
      if (type === "hidden") return null;
      if (type === "submit" || type === "button" || type === "reset" || type === "image") return "button";
      if (type === "checkbox" || type === "radio") return type;
      return "input";
    }
    if (el.isContentEditable && !el.parentElement?.isContentEditable) return "textbox";
    return null;
  };
  const labelText = (el: DomEl): string => {
    const aria = el.getAttribute("aria-label");
    if (aria) return clean(aria);
    const by = el.getAttribute("aria-labelledby");
    if (by)
      return clean(
        by
          .split(/\s+/)
          .map((id) => document.getElementById(id)?.textContent ?? "")
          .join(" "),
      );
    const labels = el.labels;
    if (labels && labels.length > 0)
      return clean(
        Array.from(labels)
          .map((l) => l.textContent)
          .join(" "),
      );
    return "";
  };
  const nameOf = (el: DomEl, role: string): string => {
    const label = labelText(el);
    if (label) return label;
    if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") {
      if (role === "button") return clean(el.value || el.getAttribute("alt") || el.type);
      return clean(el.placeholder || el.getAttribute("title") || el.name);
    }
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the name a person reads (hidden parts left out)
    const text = clean(el.innerText);
    if (text) return text;
    const img = el.querySelector("img[alt]");
    return clean(img?.getAttribute("alt") || el.getAttribute("title") || "");
  };
  const describe = (el: DomEl, role: string, n: number): string => {
    let s = `[${n}] ${role} "${cut(nameOf(el, role))}"`;
    if (el.tagName === "INPUT") {
      const type = (el.type || "text").toLowerCase();
      if (role === "input" && type !== "text") s += ` (${type})`;
      if (role === "checkbox" || role === "radio") s += el.checked ? " (checked)" : " (not checked)";
      else if (role === "input" && el.value) s += ` value="${cut(type === "password" ? "••••" : el.value)}"`;
    } else if (el.tagName === "TEXTAREA" && el.value) s += ` value="${cut(clean(el.value))}"`;
    else if (el.tagName === "SELECT") s += ` selected="${cut(clean(el.selectedOptions?.[0]?.textContent))}"`;
    else if (role === "link" && el.href && !el.href.startsWith("javascript:")) s += ` → ${cut(el.href)}`;
    if (el.disabled) s += " (disabled)";
    return s;
  };
  const walk = (node: DomNode) => {
    if (node.nodeType === 3) {
      const t = clean(node.textContent);
      if (t) out.push(t);
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node as DomEl;
    if (SKIP.has(el.tagName.toUpperCase())) return;
    if (!visible(el) && el.tagName !== "BODY") return;
    const role = roleOf(el);
    if (role && elements.length < max) {
      const n = elements.length + 1;
      el.setAttribute(marker, String(n));
      elements.push({ n, role, name: cut(nameOf(el, role)) });
      out.push(describe(el, role, n));
      return;
    }
    const block = BLOCK.has(el.tagName);
    const heading = /^H[1-6]$/.test(el.tagName);
    if (block) out.push("\n");
    if (heading) out.push(`${"#".repeat(Number(el.tagName[1]))} `);
    if (el.tagName === "IMG" && el.getAttribute("alt")) out.push(`[image: ${cut(clean(el.getAttribute("alt")))}]`);
    for (const child of Array.from(el.childNodes)) walk(child);
    if (el.shadowRoot) for (const child of Array.from(el.shadowRoot.childNodes)) walk(child);
    if (block) out.push("\n");
  };
  if (document.body) walk(document.body);
  const text = out
    .join(" ")
    .replace(/[ \t]*\n[ \t]*/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/ {2,}/g, " ")
    .trim();
  return { title: document.title, url: location.href, text, elements };
}

/** Runs in the page: scroll by `screens` screen heights (a little overlap kept) and say where it is. */
export function scrollInPage(args: { sign: number; screens: number }): { y: number; height: number; view: number } {
  window.scrollBy({ top: args.sign * args.screens * window.innerHeight * 0.9, behavior: "instant" });
  const root = document.querySelectorAll("html")[0] as unknown as { scrollHeight: number } | undefined;
  return { y: Math.round(window.scrollY), height: root?.scrollHeight ?? 0, view: window.innerHeight };
}
