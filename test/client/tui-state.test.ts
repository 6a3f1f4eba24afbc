/**
 * waiter's TUI without a terminal: the reducer (src/client/tui-state.ts) fed the actions the
 * runtime would feed it — keys, a turn's events and end, approval questions, a lost link — and
 * judged by the state it gives and the effects it asks for. The terminal itself is tested in
 * test/waiter-*.test.ts with tmux.
 */
import { describe, expect, test } from "bun:test";
import type { ConversationSummary } from "../../src/protocol/channel.ts";
import type { TurnResultView } from "../../src/protocol/control.ts";
import { HomedError } from "../../src/protocol/errors.ts";
import type { ApprovalQuestion } from "../../src/client/chat-connection.ts";
import {
  frameView,
  hintLine,
  initialTuiState,
  reduce,
  type TuiAction,
  type TuiEffect,
  type TuiState,
} from "../../src/client/tui-state.ts";
import type { Key } from "../../src/client/tui-keys.ts";

const SIZE = { width: 100, height: 30 };

/** The state after `actions`, and every effect they asked for, in order. */
function feed(state: TuiState, ...actions: TuiAction[]): { state: TuiState; effects: TuiEffect[] } {
  const effects: TuiEffect[] = [];
  for (const a of actions) {
    const step = reduce(state, a);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}

const key = (k: Key): TuiAction => ({ type: "key", key: k });
const typed = (text: string): TuiAction => key({ text });
const press = (name: string): TuiAction => key({ name });
const without = (fx: TuiEffect[], ...types: TuiEffect["type"][]) => fx.filter((e) => !types.includes(e.type));

/** Connected to a link with the conversation loaded, no reply running (nothing to follow). */
function connected(): TuiState {
  let { state } = feed(
    initialTuiState("c1", SIZE),
    { type: "link-opened", where: "/data" },
    { type: "open-conv", conv: "c1" },
    { type: "conv-loaded", items: [], linked: true },
  );
  // The load looked for a running reply to follow: none runs.
  expect(state.follow).not.toBeNull();
  state = feed(state, { type: "turn-end", turn: state.follow as number, result: null }).state;
  expect(state.follow).toBeNull();
  return state;
}

/** Connected, with "hello" sent as turn `turn`. */
function replying(): { state: TuiState; turn: number } {
  const { state } = feed(connected(), typed("hello"), press("enter"));
  return { state, turn: (state.turn as { id: number }).id };
}

const question = (callId: string, tool = "danger_rm"): ApprovalQuestion => ({
  callId,
  tool,
  arguments: { path: "/tmp/x" },
});

/** A turn's result: the reducer hands it to the transcript as it is, so only its identity matters. */
const result = { text: "done it", stopReason: "stop" } as unknown as TurnResultView;

const summary = (id: string): ConversationSummary => ({
  id,
  channel: "cli",
  createdAt: 0,
  updatedAt: 0,
  turns: 1,
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  title: id,
  model: null,
  scene: "",
});

describe("typing and sending", () => {
  test("keys edit the line, and every key asks for a draw", () => {
    const { state, effects } = feed(connected(), typed("helo"), press("left"), typed("l"), press("end"), typed("!"));
    expect([state.line.text, state.line.cursor]).toEqual(["hello!", 6]);
    expect(effects.filter((e) => e.type === "draw")).toHaveLength(5);
    expect(frameView(state, []).input).toBe("hello!");
  });

  test("Enter sends the line as a turn of the open conversation, once connected", () => {
    // Before the conversation is loaded nothing may be sent: the line stays.
    const early = feed(initialTuiState("c1", SIZE), { type: "link-opened", where: "/d" }, typed("hi"), press("enter"));
    expect(early.state.line.text).toBe("hi");
    expect(early.state.flash).toBe("still connecting: a moment");
    expect(early.effects.some((e) => e.type === "send")).toBe(false);

    const { state, effects } = feed(connected(), typed("  hi there "), press("enter"));
    expect(without(effects, "draw")).toEqual([
      { type: "transcript", change: { op: "user", text: "hi there" } },
      { type: "send", turn: (state.turn as { id: number }).id, text: "hi there", conv: "c1" },
    ]);
    expect(state.line.text).toBe("");
    expect(state.turn?.stopping).toBe(false);
    expect(hintLine(state).text).toBe("replying… Esc or Ctrl-C stops it");
    // ↑ brings back what was sent.
    expect(feed(state, press("up")).state.line.text).toBe("hi there");
  });

  test("a blank line sends nothing, and a second message waits for the running reply", () => {
    expect(without(feed(connected(), typed("   "), press("enter")).effects, "draw")).toEqual([]);
    const { state } = replying();
    const again = feed(state, typed("more"), press("enter"));
    expect(again.effects.some((e) => e.type === "send")).toBe(false);
    expect(again.state.line.text).toBe("more");
    expect(again.state.flash).toBe("a reply is running: wait for it, or Esc to stop it");
    // The flash lasts until the next key.
    expect(feed(again.state, typed("!")).state.flash).toBe("");
  });
});

describe("an approval question", () => {
  const asked = () => {
    const { state } = replying();
    return feed(state, { type: "approval-asked", ask: 7, q: question("call-1") }).state;
  };

  test("goes on its card, takes the prompt and the hint", () => {
    const { state: s0 } = replying();
    const { state, effects } = feed(s0, { type: "approval-asked", ask: 7, q: question("call-1") });
    expect(effects).toContainEqual({ type: "transcript", change: { op: "ask", q: question("call-1") } });
    const view = frameView(state, []);
    expect(view.prompt).toBe("? ");
    expect(view.hint.text).toStartWith("allow danger_rm? y yes · n no · a always");
  });

  for (const [k, answer, said] of [
    ["y", true, "approved"],
    ["Y", true, "approved"],
    ["n", false, "denied"],
    ["c", "conversation", "approved for this conversation"],
  ] as const)
    test(`${k} answers ${JSON.stringify(answer)} and the card says ${said}`, () => {
      const { state, effects } = feed(asked(), typed(k));
      expect(without(effects, "draw")).toEqual([
        { type: "transcript", change: { op: "answered", callId: "call-1", answer: said } },
        { type: "answer", ask: 7, answer },
      ]);
      expect(state.asks).toEqual([]);
      expect(state.line.text).toBe("");
      expect(frameView(state, []).prompt).toBe("> ");
    });

  test("a (always) saves the setting first, and answers yes only once it is saved", () => {
    const { state, effects } = feed(asked(), typed("a"));
    expect(without(effects, "draw")).toEqual([{ type: "allow-tool", ask: 7, tool: "danger_rm" }]);
    expect(state.asks).toHaveLength(1);
    const saved = feed(state, { type: "tool-allowed", ask: 7 });
    expect(saved.effects).toContainEqual({ type: "answer", ask: 7, answer: true });
    expect(saved.effects).toContainEqual({
      type: "transcript",
      change: { op: "answered", callId: "call-1", answer: "always" },
    });
    expect(saved.state.asks).toEqual([]);
    // Not saved: the question stays open and the hint says why.
    const failed = feed(state, { type: "tool-allow-failed", tool: "danger_rm", error: new Error("disk full") });
    expect(failed.state.asks).toHaveLength(1);
    expect(failed.state.flash).toBe("could not allow danger_rm always: disk full");
    expect(failed.effects.some((e) => e.type === "answer")).toBe(false);
  });

  test("other keys do not answer, and do not reach the line", () => {
    const { state, effects } = feed(asked(), typed("x"), press("enter"));
    expect(effects.some((e) => e.type === "answer" || e.type === "send")).toBe(false);
    expect(state.line.text).toBe("");
    expect(state.flash).toBe("answer y (yes), c (yes in this conversation), n (no) or a (always)");
  });

  test("answered elsewhere: the question is withdrawn here", () => {
    const { state, effects } = feed(asked(), {
      type: "stream-event",
      event: { type: "approval-answered", callId: "call-1", approved: true },
    });
    expect(effects).toContainEqual({ type: "answer", ask: 7, answer: true });
    expect(state.asks).toEqual([]);
  });

  test("Esc stops the reply: the cancel goes out before the question's no", () => {
    const { state, effects } = feed(asked(), press("esc"));
    expect(without(effects, "draw", "transcript")).toEqual([
      { type: "cancel" },
      { type: "answer", ask: 7, answer: false },
    ]);
    expect(state.turn?.stopping).toBe(true);
    expect(hintLine(state).text).toBe("stopping… (Ctrl-C again quits)");
  });
});

describe("a turn's end", () => {
  test("open questions are answered no and the list is refreshed (the transcript ends with the turn's done event)", () => {
    const { state: s0, turn } = replying();
    const s1 = feed(s0, { type: "approval-asked", ask: 3, q: question("call-9") }).state;
    const { state, effects } = feed(s1, { type: "turn-end", turn, result });
    expect(without(effects, "draw")).toEqual([
      { type: "answer", ask: 3, answer: false },
      { type: "refresh", thenFollow: false },
    ]);
    expect(state.turn).toBeNull();
    expect(state.asks).toEqual([]);
    expect(hintLine(state).text).toStartWith("Enter send");
    // Sending works again.
    expect(feed(state, typed("next"), press("enter")).effects).toContainEqual(
      expect.objectContaining({ type: "send", text: "next" }),
    );
  });

  test("the end of another turn (an old follow) leaves the running one alone", () => {
    const { state: s0, turn } = replying();
    const { state } = feed(s0, { type: "turn-end", turn: turn + 100, result: null });
    expect(state.turn?.id).toBe(turn);
  });

  test("an error is said on the transcript in red, and the turn is over", () => {
    const { state: s0, turn } = replying();
    const { state, effects } = feed(s0, { type: "turn-failed", turn, error: new Error("model said no") });
    expect(effects).toContainEqual({
      type: "transcript",
      change: { op: "notice", text: "homed: model said no", tone: "bad" },
    });
    expect(state.turn).toBeNull();
    expect(state.connection).toBe("connected");
  });

  test("the link lost during a turn: said once, the link dropped, a reconnect due, sending refused", () => {
    const { state: s0, turn } = replying();
    const gone = new HomedError("not_running", "homed is not running");
    const { state, effects } = feed(s0, { type: "turn-failed", turn, error: gone });
    expect(without(effects, "draw", "refresh")).toEqual([
      {
        type: "transcript",
        change: { op: "notice", text: "lost the connection to homed: reconnecting…", tone: "bad" },
      },
      { type: "drop-link" },
      { type: "reconnect-later" },
    ]);
    expect(state.connection).toBe("lost");
    expect(state.turn).toBeNull();
    expect(frameView(state, []).status).toBe("○ reconnecting… ");
    expect(hintLine(state).text).toBe("homed is not reachable: reconnecting… (Ctrl-C twice quits)");
    // Lost again before the reconnect: not said twice.
    expect(feed(state, { type: "link-lost" }).effects.some((e) => e.type === "transcript")).toBe(false);
    const refused = feed(state, typed("three"), press("enter"));
    expect(refused.state.flash).toBe("not connected: wait for the reconnect");
    expect(refused.effects.some((e) => e.type === "send")).toBe(false);
    // Back: the conversation reloaded, then the running reply (if any) followed after the refresh.
    const back = feed(
      refused.state,
      { type: "link-opened", where: "/data" },
      { type: "reconnected", items: [], where: "/data" },
    );
    expect(back.state.connection).toBe("connected");
    expect(back.effects).toContainEqual({ type: "refresh", thenFollow: true });
    expect(feed(back.state, { type: "follow" }).effects).toContainEqual({ type: "attach", turn: 3, conv: "c1" });
  });
});

describe("following a reply started elsewhere", () => {
  test("it runs here only once it shows something", () => {
    const loaded = feed(
      initialTuiState("c1", SIZE),
      { type: "link-opened", where: "/d" },
      { type: "open-conv", conv: "c1" },
      { type: "conv-loaded", items: [], linked: true },
    );
    expect(loaded.effects).toContainEqual({ type: "attach", turn: 1, conv: "c1" });
    expect(loaded.state.turn).toBeNull();
    expect(hintLine(loaded.state).text).toStartWith("Enter send");
    const shown = feed(loaded.state, { type: "stream-event", event: { type: "text-delta", text: "hi" } });
    expect(shown.state.turn).toEqual({ id: 1, stopping: false });
    const over = feed(shown.state, { type: "turn-end", turn: 1, result });
    expect([over.state.turn, over.state.follow]).toEqual([null, null]);
  });
});

describe("Ctrl-C and quitting", () => {
  test("during a reply: the first stops it, the second quits (cancelling it first)", () => {
    const { state: s0 } = replying();
    const first = feed(s0, press("ctrl-c"));
    expect(first.effects.some((e) => e.type === "cancel")).toBe(true);
    expect(first.effects.some((e) => e.type === "leave")).toBe(false);
    expect(feed(first.state, press("ctrl-c")).effects).toContainEqual({ type: "leave", status: 0, cancel: true });
  });

  test("idle: the first clears the line, the next arms, the one after quits; another key disarms", () => {
    const s0 = feed(connected(), typed("draft")).state;
    const cleared = feed(s0, press("ctrl-c"));
    expect(cleared.state.line.text).toBe("");
    expect(cleared.effects.some((e) => e.type === "leave")).toBe(false);
    const armed = feed(cleared.state, press("ctrl-c"));
    expect(armed.state.flash).toBe("Ctrl-C again or Ctrl-D quits");
    expect(armed.effects.some((e) => e.type === "leave")).toBe(false);
    expect(feed(armed.state, press("ctrl-c")).effects).toContainEqual({ type: "leave", status: 0, cancel: false });
    expect(feed(armed.state, typed("x"), press("ctrl-c")).effects.some((e) => e.type === "leave")).toBe(false);
  });

  test("Ctrl-D quits at an empty line only; a hang-up quits with its status", () => {
    expect(feed(connected(), typed("x"), press("ctrl-d")).effects.some((e) => e.type === "leave")).toBe(false);
    expect(feed(connected(), press("ctrl-d")).effects).toContainEqual({ type: "leave", status: 0, cancel: false });
    expect(feed(connected(), { type: "terminal-gone", status: 129 }).effects).toEqual([
      { type: "leave", status: 129, cancel: false },
    ]);
  });
});

describe("the screen", () => {
  test("PgUp scrolls back a page and stops at the top once laid out; a new event goes back down", () => {
    const up = feed(connected(), press("pageup"));
    expect(up.state.scroll).toBe(SIZE.height - 5);
    // Only 30 lines of transcript: at most 30 - 27 body rows can be scrolled.
    const laid = feed(up.state, { type: "laid-out", bodyLines: 30 });
    expect(laid.state.scroll).toBe(3);
    const ev = feed(laid.state, { type: "stream-event", event: { type: "notice", text: "x" } });
    expect(ev.state.scroll).toBe(0);
  });

  test("Tab opens the list, Down and Enter open the other conversation", () => {
    const s0 = feed(connected(), {
      type: "refreshed",
      convs: [summary("c1"), summary("c2")],
      plugins: [],
      channels: [],
    }).state;
    const { state, effects } = feed(s0, press("tab"), press("down"), press("enter"));
    expect(state.conv).toBe("c2");
    expect(state.focus).toBe("input");
    expect(effects).toContainEqual({ type: "load", conv: "c2" });
    expect(frameView(state, []).title).toBe(" waiter · /data · c2");
  });
});
