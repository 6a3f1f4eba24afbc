/**
 * CQ codes, the string form of OneBot v11 messages: `text[CQ:at,qq=123]more[CQ:image,file=x.jpg]`.
 * In plain text & [ ] are escaped as &amp; &#91; &#93;; inside a code's values the comma too
 * (&#44;). Parsing turns a string into the same segments the array form carries.
 */
import type { Segment } from "./onebot.ts";

/** Escape plain text so that no part of it reads as a CQ code. */
export function escapeText(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/\[/g, "&#91;").replace(/\]/g, "&#93;");
}

/** Escape a value inside a CQ code. */
export function escapeValue(s: string): string {
  return escapeText(s).replace(/,/g, "&#44;");
}

/** Undo either escape. */
export function unescapeCq(s: string): string {
  return s.replace(/&#91;/g, "[").replace(/&#93;/g, "]").replace(/&#44;/g, ",").replace(/&amp;/g, "&");
}

const CODE = /\[CQ:([A-Za-z0-9_.-]+)((?:,[^,\]]*)*)\]/g;

/** A CQ-code string as segments; text between codes becomes text segments. */
export function parseCq(message: string): Segment[] {
  const out: Segment[] = [];
  let last = 0;
  for (const m of message.matchAll(CODE)) {
    if (m.index > last) out.push({ type: "text", data: { text: unescapeCq(message.slice(last, m.index)) } });
    const data: Record<string, string> = {};
    for (const pair of (m[2] ?? "").split(",").slice(1)) {
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      data[pair.slice(0, eq)] = unescapeCq(pair.slice(eq + 1));
    }
    out.push({ type: m[1] as string, data });
    last = m.index + m[0].length;
  }
  if (last < message.length) out.push({ type: "text", data: { text: unescapeCq(message.slice(last)) } });
  return out;
}

/** Segments as a CQ-code string. */
export function toCq(segments: readonly Segment[]): string {
  return segments
    .map((s) => {
      if (s.type === "text") return escapeText(String(s.data.text ?? ""));
      const params = Object.entries(s.data)
        .filter(([, v]) => v !== undefined && v !== null)
        .map(([k, v]) => `,${k}=${escapeValue(String(v))}`)
        .join("");
      return `[CQ:${s.type}${params}]`;
    })
    .join("");
}
