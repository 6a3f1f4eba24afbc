/**
 * One full screen of waiter's TUI from what it shows: a title bar (where, the connection, the
 * plugins), the conversation list on the left, the transcript (or the plugin table) on the
 * right with its newest lines at the bottom, a hint line and the input line. Pure: the app
 * decides what is in it, this decides where it goes.
 */
import type { ConversationSummary } from "../protocol/channel.ts";
import type { PluginInfo } from "../protocol/plugin.ts";
import type { ChannelStatus } from "../protocol/control.ts";
import { formatChannel } from "./format-status.ts";
import { cells, fit, oneLine, style } from "./tui-text.ts";
import type { Line } from "./tui-transcript.ts";

export interface FrameView {
  width: number;
  height: number;
  title: string;
  /** The right end of the title bar: the connection and the plugins. */
  status: string;
  convs: readonly ConversationSummary[];
  /** The open conversation (it may not be in the list yet: no turn so far). */
  conv: string;
  /** The list has the keyboard; `selected` is its highlighted row. */
  listFocused: boolean;
  selected: number;
  body: readonly Line[];
  /** Lines scrolled up from the bottom of the body. */
  scroll: number;
  hint: Line;
  prompt: string;
  input: string;
  cursor: number;
}

/** Below this width there is no room for a list beside the transcript. */
const MIN_WIDTH_FOR_LIST = 70;

const listWidth = (width: number) => (width >= MIN_WIDTH_FOR_LIST ? Math.min(32, Math.floor(width / 4)) : 0);

/** Columns the transcript gets at a terminal `width` (the list takes its share and a bar). */
export function bodyWidth(width: number): number {
  const list = listWidth(width);
  return list ? width - list - 1 : width;
}

/** Rows the transcript gets: all but the title bar, the hint and the input line. */
export function bodyRows(height: number): number {
  return Math.max(1, height - 3);
}

export function frameLines(v: FrameView): { lines: string[]; cursor: { row: number; col: number } } {
  const { width, height } = v;
  const lines: string[] = [];
  // The status (connection, plugins) matters more than the full path: the title gives way first.
  const right = fit(v.status, Math.max(0, Math.floor(width * 0.6)));
  const title = fit(v.title, Math.max(0, width - cells(right) - 1));
  const bar = `${title}${" ".repeat(Math.max(1, width - cells(title) - cells(right)))}${right}`;
  lines.push(style.inverse(fit(bar, width, true)));

  const rows = bodyRows(height);
  const listW = listWidth(width);
  const bodyW = bodyWidth(width);
  const list = listW ? listLines(v, listW, rows) : [];
  const start = Math.max(0, v.body.length - rows - v.scroll);
  const shown = v.body.slice(start, start + rows);
  // The transcript sits on the bottom edge, like a terminal's own output.
  const pad = rows - shown.length;
  for (let r = 0; r < rows; r++) {
    const b = r >= pad ? (shown[r - pad] as Line) : { text: "" };
    const text = fit(b.text, bodyW, true);
    const body = b.paint ? b.paint(text) : text;
    lines.push(listW ? `${list[r] ?? " ".repeat(listW)}${style.dim("│")}${body}` : body);
  }
  const hint = fit(v.hint.text, width, true);
  lines.push(v.hint.paint ? v.hint.paint(hint) : style.dim(hint));

  // The input line scrolls sideways to keep the cursor on screen.
  // A pasted newline is part of the message: shown as ↵ (one character for one, so the cursor stays put).
  const input = oneLine(v.input);
  const before = input.slice(0, v.cursor);
  const room = Math.max(1, width - cells(v.prompt) - 1);
  let from = 0;
  while (cells(before.slice(from)) > room) from++;
  const visible = fit(input.slice(from), room);
  lines.push(`${v.prompt}${visible}`);
  return { lines, cursor: { row: height - 1, col: cells(v.prompt) + cells(before.slice(from)) } };
}

function listLines(v: FrameView, w: number, rows: number): string[] {
  const out = [style.bold(fit(" Conversations", w, true))];
  const items = v.convs.some((c) => c.id === v.conv)
    ? v.convs
    : [{ id: v.conv, title: "(new)", turns: 0 } as ConversationSummary, ...v.convs];
  const room = rows - 1;
  const first = Math.max(0, Math.min(v.selected - room + 1, items.length - room));
  items.slice(first, first + room).forEach((c, i) => {
    const idx = first + i;
    const mark = c.id === v.conv ? "▸" : " ";
    const turns = ` ${c.turns}`;
    const text = `${mark}${fit(c.title || c.id, w - 1 - cells(turns), true)}${turns}`;
    out.push(v.listFocused && idx === v.selected ? style.inverse(fit(text, w, true)) : fit(text, w, true));
  });
  return out;
}

/** The list as shown, with the open conversation first when it has no turn yet. */
export function listedConvs(convs: readonly ConversationSummary[], conv: string): string[] {
  const ids = convs.map((c) => c.id);
  return ids.includes(conv) ? ids : [conv, ...ids];
}

/** The plugin table the TUI shows instead of the transcript (Ctrl-P), then the channels. */
export function pluginLines(plugins: readonly PluginInfo[], channels: readonly ChannelStatus[] = []): Line[] {
  const out: Line[] = [{ text: "Plugins (Ctrl-P back to the conversation)", paint: style.bold }, { text: "" }];
  out.push({
    text: `${"name".padEnd(14)}${"state".padEnd(12)}${"pid".padEnd(9)}${"restarts".padEnd(10)}detail`,
    paint: style.dim,
  });
  for (const p of plugins) {
    const bad = ["failed", "blocked", "exited", "stopped", "restarting"].includes(p.state);
    out.push({
      text: `${fit(p.name, 13, true)} ${p.state.padEnd(12)}${String(p.pid ?? "–").padEnd(9)}${String(p.restarts).padEnd(10)}${p.detail}`,
      paint: bad ? style.red : undefined,
    });
  }
  if (channels.length === 0) return out;
  out.push({ text: "" }, { text: "Channels", paint: style.bold }, { text: "" });
  const now = Date.now();
  for (const c of channels) out.push({ text: formatChannel(c, now) });
  return out;
}

/** The title bar's word on the plugins: how many run, and the names of those in trouble. */
export function pluginSummary(plugins: readonly PluginInfo[]): string {
  const up = plugins.filter((p) => p.state === "ready" || p.state === "idle").length;
  const bad = plugins.filter((p) => ["failed", "blocked", "exited", "stopped", "restarting"].includes(p.state));
  const named = bad.map((p) => `${p.name} ${p.state}`).join(", ");
  return `plugins ${up}/${plugins.filter((p) => p.state !== "disabled").length} up${named ? ` (${named})` : ""}`;
}
