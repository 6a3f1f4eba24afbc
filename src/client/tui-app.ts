/**
 * waiter's full-screen client: the conversation list, the open conversation with its reply
 * streaming in and tool calls as cards, approvals answered with y / n / a (always), Stop with
 * Esc or Ctrl-C during a reply, the plugins in the title bar (Ctrl-P for the table). It runs on
 * a WaiterLink (local socket or remote web API) and, when the link is lost — the daemon
 * restarted — says so and reconnects by itself, then reloads and follows any running reply.
 * Terminal handling is plain ANSI on the alternate screen: no dependency, works in tmux.
 */
import type { ConversationSummary } from "../protocol/channel.ts";
import { HomedError } from "../protocol/errors.ts";
import type { PluginInfo } from "../protocol/plugin.ts";
import type { ChannelStatus } from "../protocol/control.ts";
import type { ApprovalAnswer } from "../protocol/turn-stream.ts";
import type { ApprovalQuestion, ChatEvent } from "./chat-connection.ts";
import { bodyRows, bodyWidth, frameLines, listedConvs, pluginLines, pluginSummary } from "./tui-frame.ts";
import { InputLine } from "./tui-input.ts";
import { type Key, KeyDecoder } from "./tui-keys.ts";
import { style } from "./tui-text.ts";
import { type Line, Transcript } from "./tui-transcript.ts";
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
  let link: WaiterLink | null = null;
  /** Where the link goes, kept for the title bar while it is lost. */
  let where = "homed";
  /** connecting: opened, the conversation not yet loaded (nothing may be sent before it is). */
  let state: "connecting" | "connected" | "lost" = "connecting";
  let conv = firstConv;
  let convs: ConversationSummary[] = [];
  let plugins: PluginInfo[] = [];
  let channels: ChannelStatus[] = [];
  let showPlugins = false;
  const transcript = new Transcript();
  const line = new InputLine();
  let focus: "input" | "list" = "input";
  let selected = 0;
  let scroll = 0;
  let turn: { stopping: boolean } | null = null;
  /** The question "is a reply running here?" (chat.attach) while it is open. */
  let follow: { stopping: boolean } | null = null;
  const asks: { q: ApprovalQuestion; resolve: (yes: ApprovalAnswer) => void }[] = [];
  let armed = false;
  let flash = "";
  let finish: (status: number) => void = () => {};
  const finished = new Promise<number>((r) => (finish = r));
  let leaving = false;

  // --- drawing ---
  let drawQueued = false;
  const draw = () => {
    if (drawQueued || leaving) return;
    drawQueued = true;
    queueMicrotask(() => {
      drawQueued = false;
      if (leaving) return;
      const width = out.columns || 80;
      const height = out.rows || 24;
      if (link) where = link.where;
      const conn = state === "connected" ? "● connected" : state === "lost" ? "○ reconnecting…" : "○ connecting…";
      const body = showPlugins
        ? pluginLines(plugins, channels)
        : transcript.lines(bodyWidth(width), bodyRows(height) + scroll);
      // PgUp stops at the top: scrolling further would only have to be paged back down.
      scroll = Math.min(scroll, Math.max(0, body.length - bodyRows(height)));
      const { lines, cursor: at } = frameLines({
        width,
        height,
        title: ` waiter · ${where} · ${conv}`,
        // While the link is lost the plugins' last state would be stale: only the connection is shown.
        status: state === "lost" ? `${conn} ` : `${conn} · ${pluginSummary(plugins)} `,
        convs,
        conv,
        listFocused: focus === "list",
        selected,
        body,
        scroll,
        hint: hint(),
        prompt: asks.length ? "? " : "> ",
        input: asks.length ? "" : line.text,
        cursor: asks.length ? 0 : line.cursor,
      });
      out.write(
        `\x1b[?25l\x1b[H${lines.map((l) => `${l}\x1b[0m\x1b[K`).join("\r\n")}\x1b[${at.row + 1};${at.col + 1}H\x1b[?25h`,
      );
    });
  };
  const hint = (): Line => {
    if (flash) return { text: flash, paint: style.yellow };
    if (state === "lost")
      return { text: "homed is not reachable: reconnecting… (Ctrl-C twice quits)", paint: style.red };
    const q = asks[0]?.q;
    if (q)
      return {
        text: `allow ${q.tool}? y yes · n no · a always (this tool stops asking) · c yes in this conversation · Esc stops the reply`,
        paint: style.yellow,
      };
    if (turn) return { text: turn.stopping ? "stopping… (Ctrl-C again quits)" : "replying… Esc or Ctrl-C stops it" };
    if (focus === "list") return { text: "↑/↓ choose · Enter opens · Tab back to typing" };
    return { text: "Enter send · Tab list · ^N new · ^P plugins · PgUp/PgDn scroll · ^D quit" };
  };
  const say = (text: string) => {
    flash = text;
    draw();
  };

  // --- the link and its turns ---
  const handlers = {
    event: (e: ChatEvent) => {
      if (!turn && follow) turn = follow;
      if (e.type === "approval-answered") {
        const i = asks.findIndex((a) => a.q.callId === e.callId);
        if (i >= 0) asks.splice(i, 1)[0]?.resolve(e.approved);
      }
      transcript.event(e);
      scroll = 0;
      draw();
    },
    approve: (q: ApprovalQuestion) =>
      new Promise<ApprovalAnswer>((resolve) => {
        if (!turn && follow) turn = follow;
        transcript.ask(q);
        asks.push({ q, resolve });
        scroll = 0;
        draw();
      }),
  };
  const refresh = async () => {
    const l = link;
    if (!l) return;
    try {
      const [list, st] = await Promise.all([l.conversations(), l.status()]);
      convs = list;
      plugins = st.plugins;
      channels = st.channels;
      draw();
    } catch (err) {
      if (err instanceof HomedError && err.code === "not_running") lost();
    }
  };
  const dropAsks = () => {
    for (const a of asks.splice(0)) a.resolve(false);
  };
  /**
   * Run `text` as a turn, or (null) follow the conversation's running reply if there is one. A
   * followed reply becomes `turn` (Stop, the hint, no sending) only once it shows something:
   * asking whether one runs must not look like one running.
   */
  const runTurn = async (text: string | null) => {
    const l = link;
    if (!l) return;
    const mine = { stopping: false };
    if (text === null) follow = mine;
    else {
      turn = mine;
      transcript.user(text);
      scroll = 0;
      draw();
    }
    try {
      const r = text === null ? await l.attach(conv) : await l.send(text, conv);
      if (r) transcript.finish(r);
    } catch (err) {
      if (err instanceof HomedError && err.code === "not_running") lost();
      else transcript.notice(`homed: ${(err as Error).message}`, "bad");
    } finally {
      if (follow === mine) follow = null;
      if (turn === mine) {
        turn = null;
        dropAsks();
      }
      draw();
    }
    if (!turn) await refresh();
  };
  const openConv = async (id: string) => {
    conv = id;
    showPlugins = false;
    scroll = 0;
    const l = link;
    transcript.load(l ? await l.messages(id).catch(() => []) : []);
    if (state === "connecting") state = "connected";
    draw();
    // A reply already running here (started elsewhere, or before a restart of ours) is followed.
    if (l && !turn && !follow) void runTurn(null);
  };
  let retry: ReturnType<typeof setTimeout> | null = null;
  const lost = () => {
    if (leaving) return;
    if (state !== "lost") {
      transcript.notice("lost the connection to homed: reconnecting…", "bad");
      draw();
    }
    state = "lost";
    link?.close();
    link = null;
    retry ??= setTimeout(reconnect, RETRY_MS);
  };
  const attachLink = (l: WaiterLink) => {
    link = l;
    l.onClose(() => {
      if (link === l) lost();
    });
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
    const items = await l.messages(conv).catch(() => null);
    // Lost again meanwhile: lost() has scheduled the next try.
    if (link !== l || items === null) return void (link === l && lost());
    transcript.load(items);
    transcript.notice(`reconnected to homed at ${l.where}`);
    state = "connected";
    await refresh();
    if (!turn && !follow) void runTurn(null);
  };
  /** Asks for the status (plugins, and whether a remote link still answers); set once connected. */
  let poller: ReturnType<typeof setInterval> | undefined;

  // --- keys ---
  const leave = async (status: number) => {
    if (leaving) return;
    if (turn) await link?.cancel().catch(() => 0);
    leaving = true;
    clearInterval(poller);
    if (retry) clearTimeout(retry);
    dropAsks();
    link?.close();
    link = null;
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
  const stop = () => {
    if (!turn) return;
    turn.stopping = true;
    transcript.notice("stopping the reply…");
    // The cancel goes out before the approval's "no": the daemon sees the turn stopped, not a denial.
    void link?.cancel().catch(() => 0);
    dropAsks();
    draw();
  };
  const answer = async (key: string) => {
    const a = asks[0];
    if (!a) return;
    if (key === "a") {
      try {
        await link?.allowTool(a.q.tool);
      } catch (err) {
        return say(`could not allow ${a.q.tool} always: ${(err as Error).message}`);
      }
    }
    if (asks[0] !== a) return;
    asks.shift();
    transcript.answered(
      a.q.callId,
      key === "y" ? "approved" : key === "a" ? "always" : key === "c" ? "approved for this conversation" : "denied",
    );
    a.resolve(key === "c" ? "conversation" : key !== "n");
    draw();
  };
  const submit = () => {
    if (!line.text.trim()) return;
    if (state !== "connected")
      return say(state === "lost" ? "not connected: wait for the reconnect" : "still connecting: a moment");
    if (turn) return say("a reply is running: wait for it, or Esc to stop it");
    void runTurn(line.take());
  };
  const inList = (k: Key) => {
    const ids = listedConvs(convs, conv);
    if (!("name" in k)) return;
    if (k.name === "up") selected = Math.max(0, selected - 1);
    else if (k.name === "down") selected = Math.min(ids.length - 1, selected + 1);
    else if (k.name === "enter") {
      focus = "input";
      const id = ids[selected];
      if (id && id !== conv) void openConv(id);
    } else if (k.name === "tab" || k.name === "esc" || k.name === "shift-tab") focus = "input";
  };
  const onKey = (k: Key) => {
    const name = "name" in k ? k.name : null;
    if (name !== "ctrl-c") armed = false;
    flash = "";
    if (name === "ctrl-c") {
      if (turn && !turn.stopping) return stop();
      if (turn || armed || state === "lost") return void leave(0);
      if (line.text) {
        line.clear();
        return;
      }
      armed = true;
      return say("Ctrl-C again or Ctrl-D quits");
    }
    if (name === "ctrl-d" && !line.text && !asks.length) return void leave(0);
    if (name === "ctrl-l") return out.write("\x1b[2J");
    if (name === "pageup" || name === "pagedown") {
      const page = Math.max(1, (out.rows || 24) - 5);
      scroll = Math.max(0, scroll + (name === "pageup" ? page : -page));
      return;
    }
    if (name === "ctrl-p") {
      showPlugins = !showPlugins;
      return;
    }
    if (asks.length) {
      const t = "text" in k ? k.text.toLowerCase() : null;
      if (t === "y" || t === "n" || t === "a" || t === "c") return void answer(t);
      if (name === "esc") return stop();
      return say("answer y (yes), c (yes in this conversation), n (no) or a (always)");
    }
    if (name === "esc" && turn) return stop();
    if (focus === "list") return inList(k);
    if (name === "tab") {
      if (turn) return say("a reply is running: the list opens when it is done");
      focus = "list";
      selected = Math.max(0, listedConvs(convs, conv).indexOf(conv));
      return;
    }
    if (name === "ctrl-n") {
      if (turn) return say("a reply is running: wait for it, or Esc to stop it");
      return void openConv(newConvId());
    }
    if (name === "enter") return submit();
    line.key(k);
  };
  const keys = new KeyDecoder();
  const onData = (chunk: Buffer | string) => {
    for (const k of keys.feed(chunk.toString())) onKey(k);
    draw();
  };

  // --- start ---
  attachLink(await open(handlers));
  // Killed or hung up: give the terminal back as it was (the normal screen, cooked mode).
  for (const [sig, n] of [
    ["SIGTERM", 15],
    ["SIGHUP", 1],
  ] as const)
    process.once(sig, () => void leave(128 + n));
  // Every STATUS_MS while idle: the plugins, and a reply started elsewhere (the web UI) in this
  // conversation, which is then followed here.
  poller = setInterval(() => {
    if (state !== "connected" || turn || follow) return;
    void refresh();
    void runTurn(null);
  }, STATUS_MS);
  if (term.input.isTTY) term.input.setRawMode(true);
  term.input.setEncoding("utf8");
  term.input.on("data", onData);
  // The terminal closed without a hang-up signal reaching us: the same as one.
  term.input.once("end", () => void leave(128 + 1));
  term.input.once("error", () => void leave(128 + 1));
  term.input.resume();
  out.on("resize", draw);
  // The alternate screen, and bracketed paste: a pasted paragraph arrives as one piece.
  out.write("\x1b[?1049h\x1b[?2004h\x1b[2J");
  await refresh();
  await openConv(conv);
  return await finished;
}
