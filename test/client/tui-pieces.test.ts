/**
 * The pure parts of waiter's TUI, through their exports: raw terminal input to keys, text to
 * screen cells (CJK is two cells wide), and the transcript a turn's events build. The terminal
 * itself is tested in test/waiter-*.test.ts with tmux.
 */
import { describe, expect, test } from "bun:test";
import { InputLine } from "../../src/client/tui-input.ts";
import { decodeKeys, KeyDecoder } from "../../src/client/tui-keys.ts";
import { cells, fit, printable, wrap } from "../../src/client/tui-text.ts";
import { Transcript } from "../../src/client/tui-transcript.ts";

describe("decodeKeys", () => {
  test("text, control keys, CSI and SS3 sequences, a lone Esc, CR LF as one Enter", () => {
    expect(decodeKeys("hi\x1b[A\x1bOB\x1b[5~\x03\r\n\x7f\x1b")).toEqual([
      { text: "hi" },
      { name: "up" },
      { name: "down" },
      { name: "pageup" },
      { name: "ctrl-c" },
      { name: "enter" },
      { name: "backspace" },
      { name: "esc" },
    ]);
    // Modified arrows are the arrow; unknown sequences are dropped, not typed.
    expect(decodeKeys("\x1b[1;5C\x1b[99~x")).toEqual([{ name: "right" }, { text: "x" }]);
    expect(decodeKeys("你好")).toEqual([{ text: "你好" }]);
  });
});

describe("KeyDecoder", () => {
  test("a bracketed paste is one key with its newlines, even split across reads", () => {
    const d = new KeyDecoder();
    expect(d.feed("x\x1b[200~first line\r")).toEqual([{ text: "x" }]);
    expect(d.feed("second\x1b[201~\r")).toEqual([{ paste: "first line\nsecond" }, { name: "enter" }]);
    expect(d.feed("\x1b[A")).toEqual([{ name: "up" }]);
  });
});

describe("InputLine", () => {
  test("edits by whole code points, deletes a word, walks the history of what was sent", () => {
    const l = new InputLine();
    l.key({ text: "say 你好 🙂" });
    l.key({ name: "backspace" });
    expect(l.text).toBe("say 你好 ");
    l.key({ name: "left" });
    l.key({ name: "left" });
    l.key({ text: "!" });
    expect([l.text, l.cursor]).toEqual(["say 你!好 ", 6]);
    l.key({ name: "end" });
    l.key({ name: "ctrl-w" });
    expect(l.text).toBe("say ");
    expect(l.key({ name: "tab" })).toBe(false);
    expect(l.take()).toBe("say");
    l.key({ text: "second" });
    expect(l.take()).toBe("second");
    l.key({ name: "up" });
    l.key({ name: "up" });
    expect(l.text).toBe("say");
    l.key({ name: "down" });
    l.key({ name: "down" });
    expect(l.text).toBe("");
  });
});

describe("text in cells", () => {
  test("CJK takes two cells; wrap and fit count cells, not characters", () => {
    expect(cells("你好a")).toBe(5);
    expect(wrap("你好世界你好", 5)).toEqual(["你好", "世界", "你好"]);
    expect(fit("你好世界", 5)).toBe("你好…");
    expect(fit("ab", 4, true)).toBe("ab  ");
  });
  test("wrap breaks at spaces when it can, mid-word when it must, and keeps newlines", () => {
    expect(wrap("the quick brown fox", 10)).toEqual(["the quick", "brown fox"]);
    expect(wrap("abcdefghijkl", 5)).toEqual(["abcde", "fghij", "kl"]);
    expect(wrap("a\nb", 10)).toEqual(["a", "b"]);
  });
  test("control characters cannot reach the terminal", () => {
    expect(printable("a\x1b[2Jb\r\nc")).toBe("a^[[2Jb\nc");
  });
});

describe("Transcript", () => {
  test("a streamed reply, a tool card with its question, answer and result, then the summary", () => {
    const t = new Transcript();
    t.user("remove it");
    t.event({ type: "tool-call", callId: "c1", name: "danger_rm", arguments: '{"path":"/x"}' });
    t.ask({ tool: "danger_rm", arguments: { path: "/x" }, callId: "c1" });
    expect(t.open("c1")).toBe(true);
    t.answered("c1", "approved");
    t.event({ type: "tool-result", callId: "c1", name: "danger_rm", status: "ok", content: "removed /x" });
    t.event({ type: "text-delta", text: "done" });
    t.event({ type: "text-delta", text: " it" });
    t.event({
      type: "done",
      result: {
        turn: "t",
        conv: "c",
        text: "done it",
        stopReason: "done",
        iterations: 2,
        usage: { inputTokens: 3, outputTokens: 4 },
        conversation: { turns: 1, inputTokens: 3, outputTokens: 4 },
      },
    });
    expect(t.lines(30).map((l) => l.text)).toEqual([
      "› remove it",
      "",
      "┌─ danger_rm ─────────────────",
      '│ {"path":"/x"}',
      "│ ✓ approved",
      "│ ← ok: removed /x",
      "└─────────────────────────────",
      "",
      "done it",
      "",
      "[done; 3 in / 4 out tokens;",
      "conversation: 1 turn]",
    ]);
  });
  test("a question still open when the turn ends reads as denied; one answered elsewhere says so", () => {
    const t = new Transcript();
    t.ask({ tool: "a", arguments: {}, callId: "x" });
    t.ask({ tool: "b", arguments: {}, callId: "y" });
    t.event({ type: "approval-answered", callId: "y", approved: true });
    t.event({
      type: "done",
      result: {
        turn: "t",
        conv: "c",
        text: "",
        stopReason: "cancelled",
        iterations: 1,
        usage: { inputTokens: 0, outputTokens: 0 },
        conversation: null,
      },
    });
    const text = t
      .lines(60)
      .map((l) => l.text)
      .join("\n");
    expect(text).toContain("│ ✗ denied");
    expect(text).toContain("│ answered elsewhere: approved");
  });
});
