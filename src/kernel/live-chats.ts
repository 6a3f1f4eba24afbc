/**
 * Turns as the kernel runs them, by conversation, so a client other than the one that started
 * a turn can re-attach to it: `homed chat` on a conversation whose reply is streaming in the web
 * UI is sent what the turn has said so far, then the rest as it comes, and is asked the approval
 * questions still open. The first answer from anyone who can be asked wins; everyone else (the
 * starting channel too) is told with an `approval-answered` event. A turn nobody could be asked
 * about when it started (the /v1 API, scheduled jobs) stays that way: watchers only watch it.
 */
import type { ApprovalQuestion } from "../agent/tool-executor.ts";
import type { TurnEvent } from "../agent/turn.ts";
import type { TurnResultView } from "../protocol/control.ts";

/** An event as clients read it: a turn event, or the kernel's own about approvals. */
export type LiveEvent =
  | TurnEvent
  | { type: "approval"; tool: string; arguments: unknown; callId: string }
  | {
      type: "approval-answered";
      callId: string;
      approved: boolean;
    };

/** Someone attached to a live turn. */
export interface LiveWatcher {
  event(e: LiveEvent): void;
  /** Ask this watcher about a tool call; absent when it cannot answer. */
  ask?(q: ApprovalQuestion): Promise<boolean>;
}

interface OpenQuestion {
  q: ApprovalQuestion;
  settle(approved: boolean): void;
}

interface LiveChat {
  conv: string;
  /** What the turn streamed so far; consecutive text deltas merged into one entry. */
  events: LiveEvent[];
  /** The starting channel can be asked: watchers may answer too. */
  askable: boolean;
  open: Map<string, OpenQuestion>;
  watchers: Set<LiveWatcher>;
  cancel: AbortController;
  ended: Promise<TurnResultView | null>;
  end(r: TurnResultView | null): void;
}

/** Events kept per live turn for a late watcher; past this, only the newest are replayed. */
const MAX_KEPT_EVENTS = 2000;

export class LiveChats {
  /** Live turns by conversation: one at a time runs (the conversation queue), the rest wait. */
  private readonly byConv = new Map<string, LiveChat>();

  /**
   * A turn of `conv` begins. `emit` reaches the starting channel; `ask` is its way to ask (absent
   * when nobody there can be asked). Returns what the turn's sink uses instead of those two.
   */
  begin(
    conv: string,
    cancel: AbortController,
    emit: (e: LiveEvent) => void,
    ask: ((q: ApprovalQuestion) => Promise<boolean>) | undefined,
  ): {
    event(e: TurnEvent): void;
    ask?(q: ApprovalQuestion): Promise<boolean>;
    end(r: TurnResultView | null): void;
  } {
    let end: (r: TurnResultView | null) => void = () => {};
    const chat: LiveChat = {
      conv,
      events: [],
      askable: ask !== undefined,
      open: new Map(),
      watchers: new Set(),
      cancel,
      ended: new Promise((resolve) => (end = resolve)),
      end: (r) => end(r),
    };
    // A queued turn of the same conversation starts only after this one: the newest wins the slot.
    this.byConv.set(conv, chat);
    const push = (e: LiveEvent) => {
      const last = chat.events.at(-1);
      if (e.type === "text-delta" && last?.type === "text-delta")
        chat.events[chat.events.length - 1] = { type: "text-delta", text: `${last.text}${e.text}` };
      else chat.events.push(e);
      if (chat.events.length > MAX_KEPT_EVENTS) chat.events.splice(0, chat.events.length - MAX_KEPT_EVENTS);
      for (const w of chat.watchers) w.event(e);
    };
    return {
      event: (e) => {
        push(e);
        emit(e);
      },
      ask: ask && ((q) => this.ask(chat, q, ask, push, emit)),
      end: (r) => {
        if (this.byConv.get(conv) === chat) this.byConv.delete(conv);
        for (const o of chat.open.values()) o.settle(false);
        chat.watchers.clear();
        chat.end(r);
      },
    };
  }

  /** Ask the starting channel and every watcher that can answer; the first answer counts. */
  private ask(
    chat: LiveChat,
    q: ApprovalQuestion,
    origin: (q: ApprovalQuestion) => Promise<boolean>,
    push: (e: LiveEvent) => void,
    emit: (e: LiveEvent) => void,
  ): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      let settled = false;
      const settle = (approved: boolean) => {
        if (settled) return;
        settled = true;
        chat.open.delete(q.callId);
        const answered: LiveEvent = { type: "approval-answered", callId: q.callId, approved };
        push(answered);
        emit(answered);
        resolve(approved);
      };
      chat.open.set(q.callId, { q, settle });
      push({ type: "approval", ...q });
      origin(q).then(settle, () => settle(false));
      for (const w of chat.watchers) this.askWatcher(w, q, settle);
    });
  }

  private askWatcher(w: LiveWatcher, q: ApprovalQuestion, settle: (approved: boolean) => void): void {
    // A watcher that goes away without answering leaves the question to the others.
    w.ask?.(q).then(settle, () => {});
  }

  /**
   * Attach `w` to the live turn of `conv`: it is sent what the turn said so far, then each new
   * event, and asked the open questions. Resolves with the turn's result when it ends (null when
   * there was none, or it ended in an error); `detach` stops watching without touching the turn.
   */
  attach(conv: string, w: LiveWatcher): { live: boolean; ended: Promise<TurnResultView | null>; detach(): void } {
    const chat = this.byConv.get(conv);
    if (!chat) return { live: false, ended: Promise.resolve(null), detach: () => {} };
    for (const e of chat.events) w.event(e);
    if (!chat.askable) w = { event: w.event };
    chat.watchers.add(w);
    for (const o of chat.open.values()) this.askWatcher(w, o.q, o.settle);
    return { live: true, ended: chat.ended, detach: () => chat.watchers.delete(w) };
  }

  /** Stop the live turn of `conv` (a watcher's Ctrl-C); whether there was one. */
  cancel(conv: string): boolean {
    const chat = this.byConv.get(conv);
    chat?.cancel.abort();
    return chat !== undefined;
  }
}
