/**
 * A small Markdown renderer that is safe by construction: the text is HTML-escaped first, and
 * only the tags below are put back, with URLs limited to http(s) links and http(s)/data:image
 * pictures. Model output can never inject a script or an attribute.
 */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string,
  );
}

const LINK_URL = /^https?:\/\/[^\s"'<>]+$/;
const IMAGE_URL = /^(https?:\/\/[^\s"'<>]+|data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+)$/;

function inline(escaped: string): string {
  return escaped
    .replace(/`([^`]+)`/g, (_m, code: string) => `<code>${code}</code>`)
    .replace(/!\[([^\]]*)\]\(([^)\s]+)\)/g, (m, alt: string, url: string) => {
      const raw = url.replace(/&amp;/g, "&");
      return IMAGE_URL.test(raw) ? `<img alt="${alt}" src="${escapeHtml(raw)}">` : m;
    })
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (m, label: string, url: string) => {
      const raw = url.replace(/&amp;/g, "&");
      return LINK_URL.test(raw)
        ? `<a href="${escapeHtml(raw)}" target="_blank" rel="noopener noreferrer">${label}</a>`
        : m;
    })
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^*])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>");
}

export function renderMarkdown(text: string): string {
  const out: string[] = [];
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  let para: string[] = [];
  let list: { ordered: boolean; items: string[] } | null = null;
  const flushPara = () => {
    if (para.length) out.push(`<p>${para.map((l) => inline(escapeHtml(l))).join("<br>")}</p>`);
    para = [];
  };
  const flushList = () => {
    if (list)
      out.push(
        `<${list.ordered ? "ol" : "ul"}>${list.items.map((i) => `<li>${inline(escapeHtml(i))}</li>`).join("")}</${list.ordered ? "ol" : "ul"}>`,
      );
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const fence = /^```\s*([\w+-]*)\s*$/.exec(line);
    if (fence) {
      flushPara();
      flushList();
      const code: string[] = [];
      for (i++; i < lines.length && !/^```\s*$/.test(lines[i] as string); i++) code.push(lines[i] as string);
      out.push(`<pre><code>${escapeHtml(code.join("\n"))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,3})\s+(.*)$/.exec(line);
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    if (heading) {
      flushPara();
      flushList();
      const n = (heading[1] as string).length + 2;
      out.push(`<h${n}>${inline(escapeHtml(heading[2] as string))}</h${n}>`);
    } else if (bullet || numbered) {
      flushPara();
      const ordered = !bullet;
      if (list && list.ordered !== ordered) flushList();
      list ??= { ordered, items: [] };
      list.items.push(((bullet ?? numbered) as RegExpExecArray)[1] as string);
    } else if (line.trim() === "") {
      flushPara();
      flushList();
    } else {
      flushList();
      para.push(line);
    }
  }
  flushPara();
  flushList();
  return out.join("");
}
