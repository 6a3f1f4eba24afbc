/**
 * Web turns that outlive the page. A turn started from the UI belongs to the conversation, not
 * to the HTTP response that started it: a page that reloads or closes only stops watching, and
 * the turn runs to its end unless someone presses Stop. Any page may watch a live turn: it is
 * sent what the turn has streamed so far, then the rest as it comes, and it sees (and may answer)
 * the approval questions still open.
 */
import type { AttachmentRef } from "../../src/protocol/attachments.ts";
import type { TurnResultView } from "../../src/protocol/control.ts";
import type { LiveTurnHeader } from "../../src/protocol/web.ts";
import type { ChatHub } from "./chat-hub.ts";

/** One event as the page reads it (`type` plus fields). */
export type LiveEvent = Record<string, unknown>;

interface LiveTurn {
  stream: string;
  conv: string;
  text: string;
  /** The files sent with the message (a page that attaches later shows them too). */
  attachments: AttachmentRef[];
  /**
   * What a page that attaches late is sent: everything so far, consecutive text deltas merged so
   * a long reply stays one entry, and past MAX_KEPT_EVENTS only the newest.
   */
  events: LiveEvent[];
  /** The turn began running (its turn-start may have left `events`). */
  started: boolean;
  watchers: Set<(e: LiveEvent) => void>;
  ended: Promise<void>;
}

/**
 * Events kept per live turn for a page that attaches late, as the kernel keeps for its own
 * watchers (src/kernel/live-chats.ts): a turn of many tool calls, each result up to the tool
 * output cap, otherwise held all of them until it ended.
 */
export const MAX_KEPT_EVENTS = 2000;

/** Add `e` to what a late page is sent. */
function keep(turn: LiveTurn, e: LiveEvent): void {
  const last = turn.events.at(-1);
  if (e.type === "text-delta" && last?.type === "text-delta")
    turn.events[turn.events.length - 1] = { type: "text-delta", text: `${last.text}${e.text}` };
  else turn.events.push(e);
  if (turn.events.length > MAX_KEPT_EVENTS) turn.events.splice(0, turn.events.length - MAX_KEPT_EVENTS);
  if (e.type === "turn-start") turn.started = true;
}

/** What `watch` returns: stop watching (the turn goes on). */
export type Unwatch = () => void;

export class LiveTurns {
  /** Live turns by stream id, oldest first (a conversation's later turns wait in the kernel's queue). */
  private readonly turns = new Map<string, LiveTurn>();

  constructor(private readonly hub: ChatHub) {}

  /**
   * Start a turn of `conv`; it runs to its end whoever watches. `model`: this conversation's
   * model when it is not the configured one (already checked); `scene`: the scene it declares.
   */
  start(
    conv: string,
    text: string,
    opts: { model?: string; scene?: string; attachments?: AttachmentRef[] } = {},
  ): string {
    const stream = crypto.randomUUID();
    let end = () => {};
    const turn: LiveTurn = {
      stream,
      conv,
      text,
      attachments: opts.attachments ?? [],
      events: [],
      started: false,
      watchers: new Set(),
      ended: new Promise<void>((r) => (end = r)),
    };
    this.turns.set(stream, turn);
    const push = (e: LiveEvent) => {
      keep(turn, e);
      for (const w of turn.watchers) w(e);
    };
    this.hub
      .run(stream, conv, text, { event: push, approval: (q) => push({ type: "approval", ...q }) }, "web", {
        ...(opts.model === undefined ? {} : { model: opts.model }),
        ...(opts.scene === undefined ? {} : { scene: opts.scene }),
        ...(opts.attachments?.length ? { attachments: opts.attachments } : {}),
      })
      .then(
        (result: TurnResultView) => push({ type: "done", result }),
        (err: Error) => push({ type: "error", message: err.message }),
      )
      .finally(() => {
        this.turns.delete(stream);
        turn.watchers.clear();
        end();
      });
    return stream;
  }

  /** The oldest live turn of `conv`, or null. */
  of(conv: string): string | null {
    for (const t of this.turns.values()) if (t.conv === conv) return t.stream;
    return null;
  }

  /**
   * Send `onEvent` the turn's header (LiveTurnHeader, src/protocol/web.ts), what it
   * has streamed so far, and then each new event; resolves when the turn has ended (at once if
   * it already has). `unwatch` stops the events without touching the turn.
   */
  watch(stream: string, onEvent: (e: LiveEvent) => void): { ended: Promise<void>; unwatch: Unwatch } {
    const t = this.turns.get(stream);
    if (!t) return { ended: Promise.resolve(), unwatch: () => {} };
    const header: LiveTurnHeader = {
      type: "stream",
      stream,
      conv: t.conv,
      text: t.text,
      attachments: t.attachments,
      started: t.started,
    };
    onEvent(header);
    for (const e of t.events) onEvent(e);
    t.watchers.add(onEvent);
    return { ended: t.ended, unwatch: () => t.watchers.delete(onEvent) };
  }

  /** A person's answer, from any page; every page watching is told it was answered. */
  answer(stream: string, callId: string, approved: boolean): boolean {
    if (!this.hub.answer(stream, callId, approved)) return false;
    const t = this.turns.get(stream);
    if (t) {
      const e = { type: "approval-answered", callId, approved };
      keep(t, e);
      for (const w of t.watchers) w(e);
    }
    return true;
  }
}
