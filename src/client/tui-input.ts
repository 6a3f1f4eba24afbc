/**
 * The TUI's input line: the text being typed, the cursor (a UTF-16 index, moved a whole code
 * point at a time), the usual editing keys (Backspace, Delete, ←/→, Home/End, Ctrl-A/E/U/K/W)
 * and ↑/↓ through the messages sent in this session.
 */
import type { Key } from "./tui-keys.ts";

export class InputLine {
  text = "";
  cursor = 0;
  private readonly history: string[] = [];
  private historyAt = -1;

  /** Take the line as a message: it joins the history and the line empties. */
  take(): string {
    const text = this.text.trim();
    if (text) this.history.unshift(text);
    this.historyAt = -1;
    this.clear();
    return text;
  }

  clear(): void {
    this.text = "";
    this.cursor = 0;
  }

  /** Apply an editing key; false when the key is not one (the caller may have a use for it). */
  key(k: Key): boolean {
    const { text, cursor } = this;
    if ("text" in k || "paste" in k) {
      const t = "text" in k ? k.text : k.paste;
      this.text = text.slice(0, cursor) + t + text.slice(cursor);
      this.cursor += t.length;
      return true;
    }
    const before = [...text.slice(0, cursor)].at(-1)?.length ?? 0;
    const after = [...text.slice(cursor)][0]?.length ?? 0;
    switch (k.name) {
      case "backspace":
        this.text = text.slice(0, cursor - before) + text.slice(cursor);
        this.cursor -= before;
        return true;
      case "delete":
        this.text = text.slice(0, cursor) + text.slice(cursor + after);
        return true;
      case "left":
        this.cursor -= before;
        return true;
      case "right":
        this.cursor += after;
        return true;
      case "home":
      case "ctrl-a":
        this.cursor = 0;
        return true;
      case "end":
      case "ctrl-e":
        this.cursor = text.length;
        return true;
      case "ctrl-u":
        this.text = text.slice(cursor);
        this.cursor = 0;
        return true;
      case "ctrl-k":
        this.text = text.slice(0, cursor);
        return true;
      case "ctrl-w": {
        const from = text.slice(0, cursor).replace(/\S*\s*$/, "").length;
        this.text = text.slice(0, from) + text.slice(cursor);
        this.cursor = from;
        return true;
      }
      case "up":
      case "down": {
        if (!this.history.length) return true;
        const at = this.historyAt + (k.name === "up" ? 1 : -1);
        this.historyAt = Math.max(-1, Math.min(this.history.length - 1, at));
        this.text = this.historyAt < 0 ? "" : (this.history[this.historyAt] as string);
        this.cursor = this.text.length;
        return true;
      }
    }
    return false;
  }
}
