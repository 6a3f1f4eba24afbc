/**
 * Every turn the kernel runs for a channel, as one numbered stream (src/protocol/turn-stream.ts).
 * A turn is registered when it is sent, so it can be followed while it waits behind another of
 * its conversation; its events are kept while it runs (consecutive text deltas merged, so a long
 * reply stays one entry) and sent to each follower from the point it asks for. Approval questions
 * are events too, with one open record each: the first entitled answer settles it, and so does
 * the turn's own signal (the executor's timeout, a cancel). Nobody is sent a request.
 */
import type { ApprovalQuestion } from "../agent/tool-executor.ts";
import type { ApprovalAnswer, ApprovalScope } from "../protocol/turn-stream.ts";
import type { TurnEvent } from "../agent/turn.ts";
import type { TurnResultView } from "../protocol/control.ts";
import { HomedError } from "../protocol/errors.ts";
import type { StreamEvent } from "../protocol/turn-stream.ts";

/** Who may answer a question: the owner at the control socket, or the plugin that sent the turn. */
export type Answerer = { owner: true } | { plugin: string };

/** Where a follower is sent each event, with its number. */
export type Deliver = (seq: number, e: StreamEvent) => void;

/** One kept entry: an event and the number of the last event it holds. */
interface Kept {
  seq: number;
  event: StreamEvent;
  /** A merged text delta: the number of its first delta, and the text's length after each. */
  first?: number;
  cuts?: number[];
}

interface Turn {
  conv: string;
  /** The sender: "control" for the control socket, else the plugin's name. */
  origin: string;
  /** The sender's id for it. */
  stream: string;
  /** Questions may be asked (the sender said someone there can answer). */
  askable: boolean;
  kept: Kept[];
  seq: number;
  open: Map<string, (approved: boolean, scope?: ApprovalScope) => void>;
  followers: Set<Deliver>;
  cancel: AbortController;
  ended: Promise<TurnResultView | null>;
  resolveEnded(r: TurnResultView | null): void;
  over: boolean;
}

/** What the turn's sink uses. */
export interface TurnProducer {
  event(e: TurnEvent): void;
  /** Absent when nobody can be asked (then the approval policy says no). */
  ask?: (q: ApprovalQuestion, signal: AbortSignal) => Promise<ApprovalAnswer>;
  /** The turn ended: with its result, or with the error that stopped it. */
  end(r: { result: TurnResultView } | { error: string }): void;
}

/** Events kept per turn for a late follower; past this, only the newest are replayed. */
export const MAX_KEPT_EVENTS = 2000;
/** Ended turns kept for their senders to follow by id. */
export const RECENT_TURNS = 64;

export class TurnStreams {
  /** Registered turns by conversation, in the order they were sent (the queue's order). */
  private readonly byConv = new Map<string, Turn[]>();
  /** The same turns by sender and id. */
  private readonly byStream = new Map<string, Turn>();
  /**
   * Turns that ended, newest last, at most RECENT_TURNS: their sender may still follow one by its
   * id (a page whose request to follow arrives after a quick turn already ended gets it all).
   */
  private readonly recent = new Map<string, Turn>();

  /**
   * Register a turn of `conv` sent by `origin` as `stream`; `deliver` reaches the sender (it
   * follows from the start). Throws when the sender already has a live turn by that id.
   */
  begin(o: {
    conv: string;
    origin: string;
    stream: string;
    askable: boolean;
    cancel: AbortController;
    deliver: Deliver;
  }): TurnProducer {
    const key = streamKey(o.origin, o.stream);
    if (this.byStream.has(key)) throw new Error(`stream ${o.stream} is already running`);
    this.recent.delete(key);
    let resolveEnded: (r: TurnResultView | null) => void = () => {};
    const turn: Turn = {
      conv: o.conv,
      origin: o.origin,
      stream: o.stream,
      askable: o.askable,
      kept: [],
      seq: 0,
      open: new Map(),
      followers: new Set([o.deliver]),
      cancel: o.cancel,
      ended: new Promise((r) => (resolveEnded = r)),
      resolveEnded: (r) => resolveEnded(r),
      over: false,
    };
    this.byStream.set(key, turn);
    this.byConv.set(o.conv, [...(this.byConv.get(o.conv) ?? []), turn]);
    return {
      event: (e) => this.push(turn, e),
      ask: o.askable ? (q, signal) => this.ask(turn, q, signal) : undefined,
      end: (r) => this.end(turn, r),
    };
  }

  private push(turn: Turn, e: StreamEvent): void {
    if (turn.over) return;
    const seq = ++turn.seq;
    const last = turn.kept.at(-1);
    if (e.type === "text-delta" && last?.event.type === "text-delta") {
      const text = `${last.event.text}${e.text}`;
      const cuts = last.cuts ?? [last.event.text.length];
      cuts.push(text.length);
      turn.kept[turn.kept.length - 1] = {
        seq,
        event: { type: "text-delta", text },
        first: last.first ?? last.seq,
        cuts,
      };
    } else turn.kept.push({ seq, event: e });
    if (turn.kept.length > MAX_KEPT_EVENTS) turn.kept.splice(0, turn.kept.length - MAX_KEPT_EVENTS);
    for (const f of turn.followers) f(seq, e);
  }

  /** Ask the question on the stream; the first entitled answer, or the signal, settles it. */
  private ask(turn: Turn, q: ApprovalQuestion, signal: AbortSignal): Promise<ApprovalAnswer> {
    return new Promise<ApprovalAnswer>((resolve) => {
      let settled = false;
      const settle = (approved: boolean, scope: ApprovalScope = "call") => {
        if (settled) return;
        settled = true;
        turn.open.delete(q.callId);
        signal.removeEventListener("abort", stop);
        const whole = approved && scope === "conversation";
        this.push(turn, { type: "approval-answered", callId: q.callId, approved, ...(whole ? { scope } : {}) });
        resolve(whole ? "conversation" : approved);
      };
      const stop = () => settle(false);
      if (signal.aborted || turn.over) return settle(false);
      signal.addEventListener("abort", stop, { once: true });
      turn.open.set(q.callId, settle);
      this.push(turn, { type: "approval", ...q });
    });
  }

  private end(turn: Turn, r: { result: TurnResultView } | { error: string }): void {
    if (turn.over) return;
    for (const settle of [...turn.open.values()]) settle(false);
    this.push(turn, "result" in r ? { type: "done", result: r.result } : { type: "error", message: r.error });
    turn.over = true;
    turn.followers.clear();
    const key = streamKey(turn.origin, turn.stream);
    this.byStream.delete(key);
    this.recent.set(key, turn);
    for (const old of this.recent.keys()) {
      if (this.recent.size <= RECENT_TURNS) break;
      this.recent.delete(old);
    }
    const rest = (this.byConv.get(turn.conv) ?? []).filter((t) => t !== turn);
    if (rest.length) this.byConv.set(turn.conv, rest);
    else this.byConv.delete(turn.conv);
    turn.resolveEnded("result" in r ? r.result : null);
  }

  /**
   * Follow a turn: the live one of `conv` (running, else the next queued), or the caller's own by
   * `origin` and `stream` (live, or one of the RECENT_TURNS that ended last). `deliver` is sent the kept events numbered above `from`, then each new
   * one. `ended` resolves with the turn's result (null: it failed, or there was no turn).
   */
  follow(
    which: { conv: string } | { origin: string; stream: string },
    from: number,
    deliver: Deliver,
  ): { live: boolean; ended: Promise<TurnResultView | null>; stop(): void } {
    const key = "conv" in which ? "" : streamKey(which.origin, which.stream);
    const turn = "conv" in which ? this.byConv.get(which.conv)?.[0] : (this.byStream.get(key) ?? this.recent.get(key));
    if (!turn) return { live: false, ended: Promise.resolve(null), stop: () => {} };
    for (const k of turn.kept) {
      if (k.seq <= from) continue;
      const first = k.first ?? k.seq;
      if (k.event.type === "text-delta" && k.cuts && from >= first)
        deliver(k.seq, { type: "text-delta", text: k.event.text.slice(k.cuts[from - first]) });
      else deliver(k.seq, k.event);
    }
    if (turn.over) return { live: true, ended: turn.ended, stop: () => {} };
    turn.followers.add(deliver);
    return { live: true, ended: turn.ended, stop: () => turn.followers.delete(deliver) };
  }

  /**
   * Answer a question of `conv`'s live turn; false when nothing is waiting for `callId`.
   * A forbidden error when `by` may not answer it (another plugin's turn).
   */
  answer(conv: string, callId: string, approved: boolean, by: Answerer, scope: ApprovalScope = "call"): boolean {
    const turn = this.byConv.get(conv)?.find((t) => t.open.has(callId));
    const settle = turn?.open.get(callId);
    if (!turn || !settle) return false;
    if (!("owner" in by) && by.plugin !== turn.origin)
      throw new HomedError("forbidden", `${by.plugin} may answer only the questions of turns it sent`);
    settle(approved, scope);
    return true;
  }

  /** Stop the live turn of `conv` (a follower's Ctrl-C); whether there was one. */
  cancel(conv: string): boolean {
    const turn = this.byConv.get(conv)?.[0];
    turn?.cancel.abort();
    return turn !== undefined;
  }
}

function streamKey(origin: string, stream: string): string {
  return `${origin}\u0000${stream}`;
}
