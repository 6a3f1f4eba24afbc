/**
 * waiter's TUI as one value and one function that moves it on. `TuiState` is all the screen and
 * the keys depend on; `reduce(state, action)` gives the next state for one thing that happened
 * (a key, a resize, a stream event, an approval question, a turn's end, the link lost or back,
 * a tick of the status poll) and the effects the runtime (tui-app.ts) carries out, in order.
 *
 * Pure: no link, terminal, timer, clock or chance in here. Whatever those do comes back as an
 * action. The transcript is the one piece of the screen kept outside the state: the runtime
 * holds the Transcript (tui-transcript.ts) and changes it only as `transcript` effects say, so
 * this file decides what the transcript gets and when, and the runtime only applies it.
 */
import type { ConversationSummary, TranscriptItem } from "../protocol/channel.ts";
import type { ChannelStatus, TurnResultView } from "../protocol/control.ts";
import { HomedError } from "../protocol/errors.ts";
import type { PluginInfo } from "../protocol/plugin.ts";
import type { ApprovalAnswer } from "../protocol/turn-stream.ts";
import type { ApprovalQuestion, ChatEvent } from "./chat-connection.ts";
import { bodyRows, type FrameView, listedConvs, pluginSummary } from "./tui-frame.ts";
import { clearLine, EMPTY_LINE, editLine, type LineState, takeLine } from "./tui-input.ts";
import type { Key } from "./tui-keys.ts";
import { style } from "./tui-text.ts";
import type { Line, Transcript } from "./tui-transcript.ts";

/** An approval question waiting for its answer; `id` is the runtime's, which holds the reply to it. */
export interface Ask {
  id: number;
  q: ApprovalQuestion;
}

export interface TuiState {
  /** The terminal's size: the layout, and how far PgUp goes. */
  size: { width: number; height: number };
  /** Where the link goes (a data dir or a URL), kept for the title bar while it is lost. */
  where: string;
  /** connecting: opened, the conversation not yet loaded (nothing may be sent before it is). */
  connection: "connecting" | "connected" | "lost";
  /** A link is open. After a loss it is open again before the conversation is reloaded. */
  linked: boolean;
  /** The open conversation. */
  conv: string;
  convs: readonly ConversationSummary[];
  plugins: readonly PluginInfo[];
  channels: readonly ChannelStatus[];
  /** The plugin table instead of the transcript (Ctrl-P). */
  showPlugins: boolean;
  line: LineState;
  focus: "input" | "list";
  /** The list's highlighted row. */
  selected: number;
  /** Lines scrolled up from the bottom of the transcript. */
  scroll: number;
  /** The reply running here: one sent, or one followed once it showed something. */
  turn: { id: number; stopping: boolean } | null;
  /** The turn id of the open question "is a reply running here?" (attach); null when none is open. */
  follow: number | null;
  /** The id the next turn or follow gets: the runtime's end of it reports back with it. */
  nextTurn: number;
  /** Approval questions not answered yet; the keys answer the first. */
  asks: readonly Ask[];
  /** Ctrl-C was pressed with nothing to stop or clear: the next one quits. */
  armed: boolean;
  /** A word on the hint line until the next key. */
  flash: string;
}

/** What happened: the runtime's report of a key, an event, or the end of an effect it ran. */
export type TuiAction =
  | { type: "key"; key: Key }
  | { type: "resize"; width: number; height: number }
  /** The transcript was laid out for a draw: this many lines (for the scroll's upper bound). */
  | { type: "laid-out"; bodyLines: number }
  | { type: "stream-event"; event: ChatEvent }
  | { type: "approval-asked"; ask: number; q: ApprovalQuestion }
  /** The `allow-tool` effect's end. */
  | { type: "tool-allowed"; ask: number }
  | { type: "tool-allow-failed"; tool: string; error: unknown }
  /** A `send` or `attach` effect's end: the result (null: attach found no reply running), or the error. */
  | { type: "turn-end"; turn: number; result: TurnResultView | null }
  | { type: "turn-failed"; turn: number; error: unknown }
  | { type: "open-conv"; conv: string }
  /** The `load` effect's end; `linked`: a link was there to load from. */
  | { type: "conv-loaded"; items: readonly TranscriptItem[]; linked: boolean }
  | { type: "refreshed"; convs: ConversationSummary[]; plugins: PluginInfo[]; channels: ChannelStatus[] }
  | { type: "refresh-failed"; error: unknown }
  | { type: "link-opened"; where: string }
  | { type: "link-lost" }
  /** A new link reloaded the open conversation after a loss. */
  | { type: "reconnected"; items: readonly TranscriptItem[]; where: string }
  /** Follow the conversation's running reply, if one runs and none is followed or running here. */
  | { type: "follow" }
  /** The status poll's beat. */
  | { type: "tick" }
  /** Killed, hung up, or the terminal is gone: leave with `status`. */
  | { type: "terminal-gone"; status: number };

/** One change to the transcript; the runtime applies it to its Transcript. */
export type TranscriptChange =
  | { op: "load"; items: readonly TranscriptItem[] }
  | { op: "user"; text: string }
  | { op: "notice"; text: string; tone: "info" | "bad" }
  | { op: "event"; event: ChatEvent }
  | { op: "ask"; q: ApprovalQuestion }
  | { op: "answered"; callId: string; answer: Parameters<Transcript["answered"]>[1] };

/** What the runtime is to do, in the order given. */
export type TuiEffect =
  /** Draw the screen from the state (once for any number asked for in one go). */
  | { type: "draw" }
  | { type: "clear-screen" }
  | { type: "transcript"; change: TranscriptChange }
  /** Run a turn; report its end as `turn-end` / `turn-failed` with `turn`. */
  | { type: "send"; turn: number; text: string; conv: string }
  /** Follow the conversation's running reply, if any; reported like `send`. */
  | { type: "attach"; turn: number; conv: string }
  /** Stop the turns the link runs or follows. */
  | { type: "cancel" }
  /** Give the daemon the answer to approval question `ask`. */
  | { type: "answer"; ask: number; answer: ApprovalAnswer }
  /** Put `tool` in approval_allow; report `tool-allowed` / `tool-allow-failed`. */
  | { type: "allow-tool"; ask: number; tool: string }
  /** Fetch conversation `conv`'s transcript; report `conv-loaded`. */
  | { type: "load"; conv: string }
  /** Open a new conversation: the runtime makes its id and reports `open-conv`. */
  | { type: "new-conv" }
  /** Fetch the list and the status; report `refreshed` / `refresh-failed`, then `follow` if `thenFollow`. */
  | { type: "refresh"; thenFollow: boolean }
  /** Close the link and let it go. */
  | { type: "drop-link" }
  /** Try to open a link again in a while (unless a try is already due); report `link-opened`, `reconnected`. */
  | { type: "reconnect-later" }
  /** Give the terminal back and end with `status`; `cancel`: stop the running turn first. */
  | { type: "leave"; status: number; cancel: boolean };

export interface TuiStep {
  state: TuiState;
  effects: TuiEffect[];
}

export function initialTuiState(conv: string, size: { width: number; height: number }): TuiState {
  return {
    size,
    where: "homed",
    connection: "connecting",
    linked: false,
    conv,
    convs: [],
    plugins: [],
    channels: [],
    showPlugins: false,
    line: EMPTY_LINE,
    focus: "input",
    selected: 0,
    scroll: 0,
    turn: null,
    follow: null,
    nextTurn: 1,
    asks: [],
    armed: false,
    flash: "",
  };
}

/** The link is gone (the daemon stopped or restarted), as against an error of the request. */
export function isLinkLoss(err: unknown): boolean {
  return err instanceof HomedError && err.code === "not_running";
}

export function reduce(state: TuiState, action: TuiAction): TuiStep {
  const effects: TuiEffect[] = [];
  return { state: next(state, action, effects), effects };
}

const DRAW: TuiEffect = { type: "draw" };
const change = (c: TranscriptChange): TuiEffect => ({ type: "transcript", change: c });

/** The state after `a`; the effects are pushed onto `fx`. */
function next(s: TuiState, a: TuiAction, fx: TuiEffect[]): TuiState {
  switch (a.type) {
    case "key": {
      const after = onKey(s, a.key, fx);
      fx.push(DRAW);
      return after;
    }
    case "resize":
      fx.push(DRAW);
      return { ...s, size: { width: a.width, height: a.height } };
    case "laid-out": {
      // PgUp stops at the top: scrolling further would only have to be paged back down.
      const scroll = Math.min(s.scroll, Math.max(0, a.bodyLines - bodyRows(s.size.height)));
      return scroll === s.scroll ? s : { ...s, scroll };
    }
    case "stream-event": {
      let after = followShows(s);
      const e = a.event;
      if (e.type === "approval-answered") {
        // Answered elsewhere (the web UI): this question no longer waits here.
        const ask = after.asks.find((x) => x.q.callId === e.callId);
        if (ask) {
          fx.push({ type: "answer", ask: ask.id, answer: e.approved });
          after = { ...after, asks: after.asks.filter((x) => x !== ask) };
        }
      }
      fx.push(change({ op: "event", event: e }), DRAW);
      return { ...after, scroll: 0 };
    }
    case "approval-asked": {
      const after = followShows(s);
      fx.push(change({ op: "ask", q: a.q }), DRAW);
      return { ...after, asks: [...after.asks, { id: a.ask, q: a.q }], scroll: 0 };
    }
    case "tool-allowed":
      // Answered meanwhile (elsewhere, or the turn ended): nothing left to answer.
      return s.asks[0]?.id === a.ask ? answerFirst(s, "a", fx) : s;
    case "tool-allow-failed":
      fx.push(DRAW);
      return { ...s, flash: `could not allow ${a.tool} always: ${(a.error as Error).message}` };
    case "turn-end":
      return turnOver(s, a.turn, fx);
    case "turn-failed": {
      if (isLinkLoss(a.error)) return turnOver(lose(s, fx), a.turn, fx);
      fx.push(change({ op: "notice", text: `homed: ${(a.error as Error).message}`, tone: "bad" }));
      return turnOver(s, a.turn, fx);
    }
    case "open-conv":
      return openConv(s, a.conv, fx);
    case "conv-loaded": {
      fx.push(change({ op: "load", items: a.items }), DRAW);
      const after: TuiState = s.connection === "connecting" ? { ...s, connection: "connected" } : s;
      // A reply already running here (started elsewhere, or before a restart of ours) is followed.
      return a.linked ? followIfIdle(after, fx) : after;
    }
    case "refreshed":
      fx.push(DRAW);
      return { ...s, convs: a.convs, plugins: a.plugins, channels: a.channels };
    case "refresh-failed":
      return isLinkLoss(a.error) ? lose(s, fx) : s;
    case "link-opened":
      return { ...s, linked: true, where: a.where };
    case "link-lost":
      return lose(s, fx);
    case "reconnected":
      fx.push(
        change({ op: "load", items: a.items }),
        change({ op: "notice", text: `reconnected to homed at ${a.where}`, tone: "info" }),
        { type: "refresh", thenFollow: true },
      );
      return { ...s, connection: "connected" };
    case "follow":
      return followIfIdle(s, fx);
    case "tick":
      // While idle: the plugins, and a reply started elsewhere (the web UI) in this conversation.
      if (s.connection !== "connected" || s.turn || s.follow !== null) return s;
      fx.push({ type: "refresh", thenFollow: false });
      return startTurn(s, null, fx);
    case "terminal-gone":
      return leave(s, a.status, fx);
  }
}

function onKey(before: TuiState, k: Key, fx: TuiEffect[]): TuiState {
  const name = "name" in k ? k.name : null;
  const s: TuiState = { ...before, armed: name === "ctrl-c" && before.armed, flash: "" };
  if (name === "ctrl-c") {
    if (s.turn && !s.turn.stopping) return stop(s, fx);
    if (s.turn || s.armed || s.connection === "lost") return leave(s, 0, fx);
    if (s.line.text) return { ...s, line: clearLine(s.line) };
    return { ...s, armed: true, flash: "Ctrl-C again or Ctrl-D quits" };
  }
  if (name === "ctrl-d" && !s.line.text && !s.asks.length) return leave(s, 0, fx);
  if (name === "ctrl-l") {
    fx.push({ type: "clear-screen" });
    return s;
  }
  if (name === "pageup" || name === "pagedown") {
    const page = Math.max(1, s.size.height - 5);
    return { ...s, scroll: Math.max(0, s.scroll + (name === "pageup" ? page : -page)) };
  }
  if (name === "ctrl-p") return { ...s, showPlugins: !s.showPlugins };
  const ask = s.asks[0];
  if (ask) {
    const t = "text" in k ? k.text.toLowerCase() : null;
    if (t === "a") {
      // "Always" is answered once the setting is saved: a failure to save leaves the question open.
      fx.push({ type: "allow-tool", ask: ask.id, tool: ask.q.tool });
      return s;
    }
    if (t === "y" || t === "n" || t === "c") return answerFirst(s, t, fx);
    if (name === "esc") return stop(s, fx);
    return { ...s, flash: "answer y (yes), c (yes in this conversation), n (no) or a (always)" };
  }
  if (name === "esc" && s.turn) return stop(s, fx);
  if (s.focus === "list") return inList(s, k, fx);
  if (name === "tab") {
    if (s.turn) return { ...s, flash: "a reply is running: the list opens when it is done" };
    return { ...s, focus: "list", selected: Math.max(0, listedConvs(s.convs, s.conv).indexOf(s.conv)) };
  }
  if (name === "ctrl-n") {
    if (s.turn) return { ...s, flash: "a reply is running: wait for it, or Esc to stop it" };
    fx.push({ type: "new-conv" });
    return s;
  }
  if (name === "enter") return submit(s, fx);
  const line = editLine(s.line, k);
  return line ? { ...s, line } : s;
}

function inList(s: TuiState, k: Key, fx: TuiEffect[]): TuiState {
  if (!("name" in k)) return s;
  const ids = listedConvs(s.convs, s.conv);
  switch (k.name) {
    case "up":
      return { ...s, selected: Math.max(0, s.selected - 1) };
    case "down":
      return { ...s, selected: Math.min(ids.length - 1, s.selected + 1) };
    case "enter": {
      const id = ids[s.selected];
      const after: TuiState = { ...s, focus: "input" };
      return id && id !== s.conv ? openConv(after, id, fx) : after;
    }
    case "tab":
    case "esc":
    case "shift-tab":
      return { ...s, focus: "input" };
  }
  return s;
}

function submit(s: TuiState, fx: TuiEffect[]): TuiState {
  if (!s.line.text.trim()) return s;
  if (s.connection !== "connected")
    return {
      ...s,
      flash: s.connection === "lost" ? "not connected: wait for the reconnect" : "still connecting: a moment",
    };
  if (s.turn) return { ...s, flash: "a reply is running: wait for it, or Esc to stop it" };
  const { line, text } = takeLine(s.line);
  return startTurn({ ...s, line }, text, fx);
}

/**
 * Run `text` as a turn, or (null) follow the conversation's running reply if there is one. A
 * followed reply becomes `turn` (Stop, the hint, no sending) only once it shows something:
 * asking whether one runs must not look like one running.
 */
function startTurn(s: TuiState, text: string | null, fx: TuiEffect[]): TuiState {
  if (!s.linked) return s;
  const id = s.nextTurn;
  if (text === null) {
    fx.push({ type: "attach", turn: id, conv: s.conv });
    return { ...s, follow: id, nextTurn: id + 1 };
  }
  fx.push(change({ op: "user", text }), DRAW, { type: "send", turn: id, text, conv: s.conv });
  return { ...s, turn: { id, stopping: false }, nextTurn: id + 1, scroll: 0 };
}

function followIfIdle(s: TuiState, fx: TuiEffect[]): TuiState {
  return !s.turn && s.follow === null ? startTurn(s, null, fx) : s;
}

/** The followed reply showed something: it is the running turn now. */
function followShows(s: TuiState): TuiState {
  return !s.turn && s.follow !== null ? { ...s, turn: { id: s.follow, stopping: false } } : s;
}

/** Turn `id` (sent or followed) ended; its unanswered questions are answered no. */
function turnOver(s: TuiState, id: number, fx: TuiEffect[]): TuiState {
  let after = s.follow === id ? { ...s, follow: null } : s;
  if (after.turn?.id === id) after = dropAsks({ ...after, turn: null }, fx);
  fx.push(DRAW);
  if (!after.turn) fx.push({ type: "refresh", thenFollow: false });
  return after;
}

function stop(s: TuiState, fx: TuiEffect[]): TuiState {
  if (!s.turn) return s;
  // The cancel goes out before the approval's "no": the daemon sees the turn stopped, not a denial.
  fx.push(change({ op: "notice", text: "stopping the reply…", tone: "info" }), { type: "cancel" });
  const after = dropAsks({ ...s, turn: { ...s.turn, stopping: true } }, fx);
  fx.push(DRAW);
  return after;
}

function answerFirst(s: TuiState, key: "y" | "n" | "a" | "c", fx: TuiEffect[]): TuiState {
  const [ask, ...rest] = s.asks;
  if (!ask) return s;
  const said =
    key === "y" ? "approved" : key === "a" ? "always" : key === "c" ? "approved for this conversation" : "denied";
  fx.push(change({ op: "answered", callId: ask.q.callId, answer: said }), {
    type: "answer",
    ask: ask.id,
    answer: key === "c" ? "conversation" : key !== "n",
  });
  fx.push(DRAW);
  return { ...s, asks: rest };
}

function dropAsks(s: TuiState, fx: TuiEffect[]): TuiState {
  if (!s.asks.length) return s;
  for (const ask of s.asks) fx.push({ type: "answer", ask: ask.id, answer: false });
  return { ...s, asks: [] };
}

function openConv(s: TuiState, conv: string, fx: TuiEffect[]): TuiState {
  fx.push({ type: "load", conv });
  return { ...s, conv, showPlugins: false, scroll: 0 };
}

function lose(s: TuiState, fx: TuiEffect[]): TuiState {
  if (s.connection !== "lost")
    fx.push(change({ op: "notice", text: "lost the connection to homed: reconnecting…", tone: "bad" }), DRAW);
  fx.push({ type: "drop-link" }, { type: "reconnect-later" });
  return { ...s, connection: "lost", linked: false };
}

function leave(s: TuiState, status: number, fx: TuiEffect[]): TuiState {
  fx.push({ type: "leave", status, cancel: s.turn !== null });
  return s;
}

/** The line under the transcript: a flash, the lost link, the open question, or what the keys do. */
export function hintLine(s: TuiState): Line {
  if (s.flash) return { text: s.flash, paint: style.yellow };
  if (s.connection === "lost")
    return { text: "homed is not reachable: reconnecting… (Ctrl-C twice quits)", paint: style.red };
  const q = s.asks[0]?.q;
  if (q)
    return {
      text: `allow ${q.tool}? y yes · n no · a always (this tool stops asking) · c yes in this conversation · Esc stops the reply`,
      paint: style.yellow,
    };
  if (s.turn) return { text: s.turn.stopping ? "stopping… (Ctrl-C again quits)" : "replying… Esc or Ctrl-C stops it" };
  if (s.focus === "list") return { text: "↑/↓ choose · Enter opens · Tab back to typing" };
  return { text: "Enter send · Tab list · ^N new · ^P plugins · PgUp/PgDn scroll · ^D quit" };
}

/** The screen for tui-frame.ts from the state and the body (the transcript's lines or the plugin table). */
export function frameView(s: TuiState, body: readonly Line[]): FrameView {
  const conn =
    s.connection === "connected" ? "● connected" : s.connection === "lost" ? "○ reconnecting…" : "○ connecting…";
  const asking = s.asks.length > 0;
  return {
    width: s.size.width,
    height: s.size.height,
    title: ` waiter · ${s.where} · ${s.conv}`,
    // While the link is lost the plugins' last state would be stale: only the connection is shown.
    status: s.connection === "lost" ? `${conn} ` : `${conn} · ${pluginSummary(s.plugins)} `,
    convs: s.convs,
    conv: s.conv,
    listFocused: s.focus === "list",
    selected: s.selected,
    body,
    scroll: s.scroll,
    hint: hintLine(s),
    prompt: asking ? "? " : "> ",
    input: asking ? "" : s.line.text,
    cursor: asking ? 0 : s.line.cursor,
  };
}
