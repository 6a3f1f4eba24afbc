/**
 * Keys from a terminal in raw mode: the bytes of one read turned into key names ("up", "enter",
 * "ctrl-c", "esc", …) and typed text. A lone ESC is the Escape key (tmux and terminals send
 * arrow keys as one whole sequence); an unknown sequence is dropped rather than typed. Pasted
 * text (bracketed paste, which the TUI turns on) is one `paste` key, newlines and all, however
 * many reads it spans — so a pasted paragraph is not sent line by line.
 */
export type Key = { name: string } | { text: string } | { paste: string };

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

/** Decodes a terminal's input read by read, carrying a paste across reads. */
export class KeyDecoder {
  private pasting: string | null = null;

  feed(input: string): Key[] {
    const keys: Key[] = [];
    let rest = input;
    while (rest) {
      if (this.pasting !== null) {
        const end = rest.indexOf(PASTE_END);
        if (end === -1) {
          this.pasting += rest;
          break;
        }
        keys.push({ paste: (this.pasting + rest.slice(0, end)).replace(/\r\n?/g, "\n") });
        this.pasting = null;
        rest = rest.slice(end + PASTE_END.length);
        continue;
      }
      const start = rest.indexOf(PASTE_START);
      keys.push(...decodeKeys(start === -1 ? rest : rest.slice(0, start)));
      if (start === -1) break;
      this.pasting = "";
      rest = rest.slice(start + PASTE_START.length);
    }
    return keys;
  }
}

const SEQUENCES: Record<string, string> = {
  "[A": "up",
  "[B": "down",
  "[C": "right",
  "[D": "left",
  "[H": "home",
  "[F": "end",
  OA: "up",
  OB: "down",
  OC: "right",
  OD: "left",
  OH: "home",
  OF: "end",
  "[1~": "home",
  "[4~": "end",
  "[7~": "home",
  "[8~": "end",
  "[3~": "delete",
  "[5~": "pageup",
  "[6~": "pagedown",
  "[Z": "shift-tab",
};

const CONTROL: Record<number, string> = {
  1: "ctrl-a",
  3: "ctrl-c",
  4: "ctrl-d",
  5: "ctrl-e",
  8: "backspace",
  9: "tab",
  10: "enter",
  11: "ctrl-k",
  12: "ctrl-l",
  13: "enter",
  14: "ctrl-n",
  16: "ctrl-p",
  21: "ctrl-u",
  23: "ctrl-w",
  127: "backspace",
};

export function decodeKeys(input: string): Key[] {
  const keys: Key[] = [];
  let text = "";
  const flush = () => {
    if (text) keys.push({ text });
    text = "";
  };
  for (let i = 0; i < input.length; ) {
    const c = input.charCodeAt(i);
    if (c === 0x1b) {
      flush();
      // CSI/SS3: ESC [ or ESC O, parameters, one final byte.
      const m = /^.(\[[0-9;]*[~A-Za-z]|O[A-Za-z])/.exec(input.slice(i));
      if (m) {
        const name = SEQUENCES[(m[1] as string).replace(/^\[1;\d+([A-D])$/, "[$1")];
        if (name) keys.push({ name });
        i += m[0].length;
      } else {
        keys.push({ name: "esc" });
        i += 1;
      }
      continue;
    }
    const name = CONTROL[c];
    if (name) {
      flush();
      // CR LF from a paste is one Enter.
      if (name === "enter" && c === 0x0d && input.charCodeAt(i + 1) === 0x0a) i++;
      keys.push({ name });
      i++;
      continue;
    }
    if (c < 0x20) {
      i++;
      continue;
    }
    const ch = String.fromCodePoint(input.codePointAt(i) as number);
    text += ch;
    i += ch.length;
  }
  flush();
  return keys;
}
