/**
 * Text for a terminal grid: display widths (CJK and emoji take two cells; Bun.stringWidth knows
 * which), wrapping to a width, cutting to a width, and the few SGR styles the TUI uses. Styles
 * are applied after wrapping, so widths are always of plain text.
 */

/** Cells `text` takes on screen (no escape sequences in it). */
export function cells(text: string): number {
  return PLAIN.test(text) ? text.length : Bun.stringWidth(text);
}
/** Printable ASCII: one cell a character, the common case counted without a lookup. */
const PLAIN = /^[ -~]*$/;

/** Control characters would move the cursor or change modes: shown as their caret form. */
export function printable(text: string): string {
  let out = "";
  for (const ch of text.replace(/\r\n/g, "\n").replace(/\t/g, "  ")) {
    const c = ch.charCodeAt(0);
    out += (c < 0x20 && c !== 0x0a) || c === 0x7f ? `^${String.fromCharCode(c ^ 0x40)}` : ch;
  }
  return out;
}

/** `text` on one line, one character for one: a newline shows as ↵, other controls as ·. */
export function oneLine(text: string): string {
  let out = "";
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    out += c === 0x0a ? "↵" : c < 0x20 || c === 0x7f ? "·" : ch;
  }
  return out;
}

/** `text` cut to at most `width` cells (an ellipsis marks the cut), padded with spaces when `pad`. */
export function fit(text: string, width: number, pad = false): string {
  if (width <= 0) return "";
  let out = "";
  let w = 0;
  const full = cells(text);
  const room = full > width ? width - 1 : width;
  for (const ch of text) {
    const cw = cells(ch);
    if (w + cw > room) break;
    out += ch;
    w += cw;
  }
  if (full > width) {
    out += "…";
    w += 1;
  }
  return pad ? out + " ".repeat(Math.max(0, width - w)) : out;
}

/** `text` as lines of at most `width` cells: at spaces where it can, mid-word where it must. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const para of printable(text).split("\n")) {
    let line = "";
    let w = 0;
    let lastSpace = -1;
    for (const ch of para) {
      const cw = cells(ch);
      if (w + cw > width && line !== "") {
        if (lastSpace > 0 && ch !== " ") {
          lines.push(line.slice(0, lastSpace));
          line = line.slice(lastSpace + 1);
        } else {
          lines.push(line);
          line = "";
        }
        if (ch === " " && line === "") {
          w = 0;
          lastSpace = -1;
          continue;
        }
        w = cells(line);
        lastSpace = line.lastIndexOf(" ");
      }
      if (ch === " ") lastSpace = line.length;
      line += ch;
      w += cw;
    }
    lines.push(line);
  }
  return lines;
}

const sgr = (code: string) => (text: string) => `\x1b[${code}m${text}\x1b[0m`;
export const style = {
  bold: sgr("1"),
  dim: sgr("2"),
  inverse: sgr("7"),
  red: sgr("31"),
  green: sgr("32"),
  yellow: sgr("33"),
  cyan: sgr("36"),
};
