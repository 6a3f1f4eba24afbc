/**
 * waiter's full-screen client: the conversation list, the open conversation with its reply
 * streaming in and tool calls as cards, approvals answered with y / n / a (always), Stop with
 * Esc or Ctrl-C during a reply, the plugins in the title bar (Ctrl-P for the table). It runs on
 * a WaiterLink (local socket or remote web API) and, when the link is lost — the daemon
 * restarted — says so and reconnects by itself, then reloads and follows any running reply.
 * Terminal handling is plain ANSI on the alternate screen: no dependency, works in tmux.
 *
 * This file is the runtime: what the TUI does is decided in tui-state.ts (a state and a pure
 * reducer); here keys, stream events and the ends of requests become actions, and the effects
 * the reducer returns are carried out — the link, the timers, the terminal, the transcript.
 */
import type { TurnResultView } from "../protocol/control.ts";
import type { ApprovalAnswer } from "../protocol/turn-stream.ts";
import type { ChatHandlers } from "./chat-connection.ts";
import { bodyRows, bodyWidth, frameLines, pluginLines } from "./tui-frame.ts";
import { KeyDecoder } from "./tui-keys.ts";
import {
  frameView,
  initialTuiState,
  reduce,
  type TranscriptChange,
  type TuiAction,
  type TuiEffect,
} from "./tui-state.ts";
import { Transcript } from "./tui-transcript.ts";
import type { OpenLink, WaiterLink } from "./waiter-link.ts";

export interface TuiTerminal {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

/** How often a lost link is tried again, and the status (plugins) asked for while connected. */
const RETRY_MS = 500;
const STATUS_MS = 2000;

/** A conversation id for a new conversation: short, sortable, and valid for the web API too. */
export function newConvId(): string {
  return `waiter-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
}

export async function runTui(open: OpenLink, firstConv: string, term: TuiTerminal): Promise<number> {
  const out = term.output;
  const size = () => ({ width: out.columns || 80, height: out.rows || 24 });
  let state = initialTuiState(firstConv, size());
  const transcript = new Transcript();
  let link: WaiterLink | null = null;
  /** The replies to the approval questions still open, by the ids the state knows them by. */
  const replies = new Map<number, (answer: ApprovalAnswer) => void>();
  let asked = 0;
  let retry: ReturnType<typeof setTimeout> | null = null;
  /** Asks for the status (plugins, and whether a remote link still answers); set once connected. */
  let poller: ReturnType<typeof setInterval> | undefined;
  let finish: (status: number) => void = () => {};
  const finished = new Promise<number>((r) => (finish = r));
  /** Set once the terminal is given back: from then on nothing is drawn or done. */
  let leaving = false;

  /**
   * One action in, its effects out in order. The state is replaced before any effect runs, so an
   * effect that dispatches at once (new-conv) sees it, as does the next action.
   */
  const dispatch = (action: TuiAction): void => {
    if (leaving) return;
    const step = reduce(state, action);
    state = step.state;
    for (const effect of step.effects) run(effect);
  };

  const run = (e: TuiEffect) => {
    switch (e.type) {
      case "draw":
        return draw();
      case "clear-screen":
        return void out.write("\x1b[2J");
      case "transcript":
        return applyChange(transcript, e.change);
      case "send":
        return void runTurn(e.turn, (l) => l.send(e.text, e.conv));
      case "attach":
        return void runTurn(e.turn, (l) => l.attach(e.conv));
      case "cancel":
        return void link?.cancel().catch(() => 0);
      case "answer": {
        const reply = replies.get(e.ask);
        replies.delete(e.ask);
        return reply?.(e.answer);
      }
      case "allow-tool":
        return void allowTool(e.ask, e.tool);
      case "load":
        return void load(e.conv);
      case "new-conv":
        return dispatch({ type: "open-conv", conv: newConvId() });
      case "refresh":
        return void refresh().then(() => e.thenFollow && dispatch({ type: "follow" }));
      case "drop-link": {
        const l = link;
        link = null;
        return l?.close();
      }
      case "reconnect-later":
        retry ??= setTimeout(reconnect, RETRY_MS);
        return;
      case "leave":
        return void leave(e.status, e.cancel);
    }
  };

  // --- drawing ---
  let drawQueued = false;
  const draw = () => {
    if (drawQueued || leaving) return;
    drawQueued = true;
    queueMicrotask(() => {
      drawQueued = false;
      if (leaving) return;
      const { width, height } = state.size;
      const body = state.showPlugins
        ? pluginLines(state.plugins, state.channels)
        : transcript.lines(bodyWidth(width), bodyRows(height) + state.scroll);
      dispatch({ type: "laid-out", bodyLines: body.length });
      const { lines, cursor: at } = frameLines(frameView(state, body));
      out.write(
        `\x1b[?25l\x1b[H${lines.map((l) => `${l}\x1b[0m\x1b[K`).join("\r\n")}\x1b[${at.row + 1};${at.col + 1}H\x1b[?25h`,
      );
    });
  };

  // --- the link ---
  const handlers: ChatHandlers = {
    event: (event) => dispatch({ type: "stream-event", event }),
    approve: (q) =>
      new Promise<ApprovalAnswer>((resolve) => {
        const ask = ++asked;
        replies.set(ask, resolve);
        dispatch({ type: "approval-asked", ask, q });
      }),
  };
  const runTurn = async (turn: number, go: (l: WaiterLink) => Promise<TurnResultView | null>) => {
    // The reducer starts turns only while a link is open.
    const l = link;
    if (!l) return;
    let end: TuiAction;
    try {
      end = { type: "turn-end", turn, result: await go(l) };
    } catch (error) {
      end = { type: "turn-failed", turn, error };
    }
    dispatch(end);
  };
  const refresh = async () => {
    const l = link;
    if (!l) return;
    let end: TuiAction;
    try {
      const [convs, st] = await Promise.all([l.conversations(), l.status()]);
      end = { type: "refreshed", convs, plugins: st.plugins, channels: st.channels };
    } catch (error) {
      end = { type: "refresh-failed", error };
    }
    dispatch(end);
  };
  const load = async (conv: string) => {
    const l = link;
    const items = l ? await l.messages(conv).catch(() => []) : [];
    dispatch({ type: "conv-loaded", items, linked: l !== null });
  };
  const allowTool = async (ask: number, tool: string) => {
    try {
      await link?.allowTool(tool);
    } catch (error) {
      return dispatch({ type: "tool-allow-failed", tool, error });
    }
    dispatch({ type: "tool-allowed", ask });
  };
  const attachLink = (l: WaiterLink) => {
    link = l;
    l.onClose(() => {
      if (link === l) dispatch({ type: "link-lost" });
    });
    dispatch({ type: "link-opened", where: l.where });
  };
  const reconnect = async () => {
    retry = null;
    if (leaving) return;
    let l: WaiterLink;
    try {
      l = await open(handlers);
    } catch {
      if (!leaving) retry = setTimeout(reconnect, RETRY_MS);
      return;
    }
    // Left while the link was opening: a link kept now would hold the process open for ever.
    if (leaving) return l.close();
    attachLink(l);
    const items = await l.messages(state.conv).catch(() => null);
    // Lost again meanwhile: the loss has scheduled the next try.
    if (link !== l || items === null) return void (link === l && dispatch({ type: "link-lost" }));
    dispatch({ type: "reconnected", items, where: l.where });
  };

  // --- leaving ---
  const leave = async (status: number, cancel: boolean) => {
    if (leaving) return;
    if (cancel) await link?.cancel().catch(() => 0);
    leaving = true;
    clearInterval(poller);
    if (retry) clearTimeout(retry);
    for (const reply of replies.values()) reply(false);
    replies.clear();
    const l = link;
    link = null;
    l?.close();
    term.input.off("data", onData);
    try {
      if (term.input.isTTY) term.input.setRawMode(false);
      out.write("\x1b[?2004l\x1b[?1049l\x1b[?25h");
    } catch {
      // The terminal is gone (closed under us): nothing to give back.
    }
    // Closed, not paused: a terminal that hung up stays readable for ever (end of file), and a
    // paused stream left in the event loop spun on it at 40–70 % of a core.
    term.input.destroy();
    finish(status);
  };
  const keys = new KeyDecoder();
  const onData = (chunk: Buffer | string) => {
    for (const key of keys.feed(chunk.toString())) dispatch({ type: "key", key });
  };

  // --- start ---
  attachLink(await open(handlers));
  // Killed or hung up: give the terminal back as it was (the normal screen, cooked mode).
  for (const [sig, n] of [
    ["SIGTERM", 15],
    ["SIGHUP", 1],
  ] as const)
    process.once(sig, () => dispatch({ type: "terminal-gone", status: 128 + n }));
  // Every STATUS_MS while idle: the plugins, and a reply started elsewhere (the web UI) in this
  // conversation, which is then followed here.
  poller = setInterval(() => dispatch({ type: "tick" }), STATUS_MS);
  if (term.input.isTTY) term.input.setRawMode(true);
  term.input.setEncoding("utf8");
  term.input.on("data", onData);
  // The terminal closed without a hang-up signal reaching us: the same as one.
  term.input.once("end", () => dispatch({ type: "terminal-gone", status: 128 + 1 }));
  term.input.once("error", () => dispatch({ type: "terminal-gone", status: 128 + 1 }));
  term.input.resume();
  out.on("resize", () => dispatch({ type: "resize", ...size() }));
  // The alternate screen, and bracketed paste: a pasted paragraph arrives as one piece.
  out.write("\x1b[?1049h\x1b[?2004h\x1b[2J");
  await refresh();
  dispatch({ type: "open-conv", conv: state.conv });
  return await finished;
}

/** The one place the transcript changes: as the reducer's `transcript` effects say. */
function applyChange(t: Transcript, c: TranscriptChange) {
  switch (c.op) {
    case "load":
      return t.load(c.items);
    case "user":
      return t.user(c.text);
    case "notice":
      return t.notice(c.text, c.tone);
    case "event":
      return t.event(c.event);
    case "ask":
      return t.ask(c.q);
    case "answered":
      return t.answered(c.callId, c.answer);
  }
}
