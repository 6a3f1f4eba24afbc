/**
 * The TUI's input line: the text being typed, the cursor (a UTF-16 index, moved a whole code
 * point at a time), the usual editing keys (Backspace, Delete, ←/→, Home/End, Ctrl-A/E/U/K/W)
 * and ↑/↓ through the messages sent in this session. A value with pure functions over it, so
 * the TUI's state can hold it (tui-state.ts); InputLine is the same as an object that changes.
 */
import type { Key } from "./tui-keys.ts";

export interface LineState {
  readonly text: string;
  readonly cursor: number;
  /** What was sent, newest first. */
  readonly history: readonly string[];
  /** The history entry shown (-1: none, the line is the person's own). */
  readonly historyAt: number;
}

export const EMPTY_LINE: LineState = { text: "", cursor: 0, history: [], historyAt: -1 };

/** The line taken as a message: it joins the history and the line empties. */
export function takeLine(l: LineState): { line: LineState; text: string } {
  const text = l.text.trim();
  return { line: { text: "", cursor: 0, history: text ? [text, ...l.history] : l.history, historyAt: -1 }, text };
}

export function clearLine(l: LineState): LineState {
  return { ...l, text: "", cursor: 0 };
}

/** The line after an editing key; null when the key is not one (the caller may have a use for it). */
export function editLine(l: LineState, k: Key): LineState | null {
  const { text, cursor } = l;
  if ("text" in k || "paste" in k) {
    const t = "text" in k ? k.text : k.paste;
    return { ...l, text: text.slice(0, cursor) + t + text.slice(cursor), cursor: cursor + t.length };
  }
  const before = [...text.slice(0, cursor)].at(-1)?.length ?? 0;
  const after = [...text.slice(cursor)][0]?.length ?? 0;
  switch (k.name) {
    case "backspace":
      return { ...l, text: text.slice(0, cursor - before) + text.slice(cursor), cursor: cursor - before };
    case "delete":
      return { ...l, text: text.slice(0, cursor) + text.slice(cursor + after) };
    case "left":
      return { ...l, cursor: cursor - before };
    case "right":
      return { ...l, cursor: cursor + after };
    case "home":
    case "ctrl-a":
      return { ...l, cursor: 0 };
    case "end":
    case "ctrl-e":
      return { ...l, cursor: text.length };
    case "ctrl-u":
      return { ...l, text: text.slice(cursor), cursor: 0 };
    case "ctrl-k":
      return { ...l, text: text.slice(0, cursor) };
    case "ctrl-w": {
      const from = text.slice(0, cursor).replace(/\S*\s*$/, "").length;
      return { ...l, text: text.slice(0, from) + text.slice(cursor), cursor: from };
    }
    case "up":
    case "down": {
      if (!l.history.length) return l;
      const at = l.historyAt + (k.name === "up" ? 1 : -1);
      const historyAt = Math.max(-1, Math.min(l.history.length - 1, at));
      const shown = historyAt < 0 ? "" : (l.history[historyAt] as string);
      return { ...l, historyAt, text: shown, cursor: shown.length };
    }
  }
  return null;
}

/** The input line as an object that changes in place. */
export class InputLine {
  private line: LineState = EMPTY_LINE;

  get text(): string {
    return this.line.text;
  }

  get cursor(): number {
    return this.line.cursor;
  }

  /** Take the line as a message: it joins the history and the line empties. */
  take(): string {
    const { line, text } = takeLine(this.line);
    this.line = line;
    return text;
  }

  clear(): void {
    this.line = clearLine(this.line);
  }

  /** Apply an editing key; false when the key is not one (the caller may have a use for it). */
  key(k: Key): boolean {
    const next = editLine(this.line, k);
    if (next) this.line = next;
    return next !== null;
  }
}
