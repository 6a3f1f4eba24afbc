/**
 * The one client of a turn's stream (src/protocol/turn-stream.ts), for every channel: the web
 * plugin, QQ, scheduled jobs, `homed chat`, waiter's terminal and the ACP bridge. It sends turns
 * and follows them, hands each event (checked against the stream's schema; unknown kinds
 * skipped) to the listener with its number, and answers approval questions: through the
 * listener's `approve` when it has one, or later through `answer` (a web page's button).
 *
 * The owner routes the kernel's frame notifications here (`frame`); the client needs only a way
 * to make requests, so it serves a plugin's connection and the control socket alike.
 */
import * as v from "valibot";
import { TurnResultSchema, type TurnResultView } from "../protocol/control.ts";
import { HomedError } from "../protocol/errors.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import {
  AnswerResult,
  type ApprovalQuestion,
  type ApprovalAnswer,
  type ApprovalScope,
  StreamEvent,
  StreamFrame,
  type StreamMethods,
} from "../protocol/turn-stream.ts";

export interface StreamRequester {
  request(method: string, params: unknown, opts?: { timeoutMs?: number }): Promise<unknown>;
}

export interface TurnListener {
  /** One event of the turn (approval questions and their answers included), with its number. */
  event(e: StreamEvent, seq: number): void;
  /**
   * May this tool call run? The answer is sent for you (anything but true is a no). Absent: the
   * questions are answered with `answer`, or the turn was sent as one nobody is asked about.
   */
  approve?(q: ApprovalQuestion): Promise<ApprovalAnswer>;
}

interface Followed {
  conv: string;
  listener: TurnListener;
  /** The newest event number handed on: a frame at or below it is a repeat. */
  seq: number;
}

/** A turn may take as long as a person takes to answer its questions. */
const TURN_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export class TurnStreamClient {
  private readonly followed = new Map<string, Followed>();

  constructor(
    private readonly peer: StreamRequester,
    private readonly methods: StreamMethods,
  ) {}

  /** Route one frame notification (`methods.event`) here; false when it was not well-formed. */
  frame(params: unknown): boolean {
    const f = v.safeParse(StreamFrame, params);
    if (!f.success) return false;
    const at = this.followed.get(f.output.stream);
    if (!at || f.output.seq <= at.seq) return true;
    at.seq = f.output.seq;
    const e = v.safeParse(StreamEvent, f.output.event);
    if (!e.success) return true;
    const event = e.output;
    if (event.type === "turn-start") at.conv = event.conv;
    at.listener.event(event, f.output.seq);
    if (event.type === "approval" && at.listener.approve) {
      const { type: _, ...q } = event;
      const conv = at.conv;
      void at.listener
        .approve(q)
        .then(
          (yes) => this.answer(conv, q.callId, yes !== false, yes === "conversation" ? "conversation" : "call"),
          () => this.answer(conv, q.callId, false),
        )
        .catch(() => {});
    }
    return true;
  }

  /**
   * Send a turn: `params` are the side's own send params (conv, text, …) without `stream`, which
   * the client adds (`opts.stream`, or one it makes up). Resolves with the turn's result; its
   * events reach `listener` on the way. `opts.timeoutMs`: give up waiting after this long.
   */
  async send(
    params: { conv: string } & Record<string, unknown>,
    listener: TurnListener,
    opts: { stream?: string; timeoutMs?: number } = {},
  ): Promise<TurnResultView> {
    const stream = opts.stream ?? crypto.randomUUID();
    this.followed.set(stream, { conv: params.conv, listener, seq: 0 });
    try {
      const raw = await this.peer.request(
        this.methods.send,
        { ...params, stream },
        { timeoutMs: opts.timeoutMs ?? TURN_TIMEOUT_MS },
      );
      return checkResult(raw, this.methods.send);
    } finally {
      this.followed.delete(stream);
    }
  }

  /**
   * Follow a turn from event `from` on (0: from its start): the live one of `conv`, or this
   * client's own by `stream`. Resolves with its result when it ends, null when none was live (or
   * it failed: its `error` event said why). `watch` names this following, for `unwatch`.
   */
  async watch(
    which: { conv: string } | { stream: string; conv: string },
    listener: TurnListener,
    from = 0,
    watch: string = crypto.randomUUID(),
  ): Promise<TurnResultView | null> {
    this.followed.set(watch, { conv: which.conv, listener, seq: from });
    try {
      const target = "stream" in which ? { stream: which.stream } : { conv: which.conv };
      const raw = await this.peer.request(
        this.methods.watch,
        { ...target, from, watch },
        { timeoutMs: TURN_TIMEOUT_MS },
      );
      return raw === null ? null : checkResult(raw, this.methods.watch);
    } finally {
      this.followed.delete(watch);
    }
  }

  /** Stop following under `watch` (the turn goes on). */
  async unwatch(watch: string): Promise<void> {
    this.followed.delete(watch);
    if (this.methods.unwatch) await this.peer.request(this.methods.unwatch, { watch });
  }

  /** Answer an approval question of `conv`'s live turn; false when nothing was waiting for it. */
  async answer(conv: string, callId: string, approved: boolean, scope: ApprovalScope = "call"): Promise<boolean> {
    const raw = await this.peer.request(this.methods.answer, { conv, callId, approved, scope });
    const r = v.safeParse(AnswerResult, raw);
    if (!r.success)
      throw new HomedError("upstream", `malformed ${this.methods.answer} answer: ${describeIssues(r.issues)}`);
    return r.output.answered;
  }
}

function checkResult(raw: unknown, method: string): TurnResultView {
  const r = v.safeParse(TurnResultSchema, raw);
  if (!r.success) throw new HomedError("upstream", `malformed ${method} result: ${describeIssues(r.issues)}`);
  return r.output;
}
