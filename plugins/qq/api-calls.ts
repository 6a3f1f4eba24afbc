/**
 * API calls over a WebSocket, matched to their answers by `echo` (OneBot v11: the answer carries
 * the request's echo back). Frames that are not answers are events, handed on. A frame that is
 * not JSON, or not a OneBot frame, is logged and dropped: the channel keeps running.
 */
import * as v from "valibot";
import type { PluginLogger } from "../sdk/index.ts";
import { AnyEvent, ApiResponse, apiResult } from "./onebot.ts";

/** How long an API call waits for its answer. */
export const API_TIMEOUT_MS = 30_000;

interface Pending {
  action: string;
  resolve(data: unknown): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

export class ApiCalls {
  private readonly pending = new Map<string, Pending>();
  private seq = 0;

  constructor(
    private readonly onEvent: (event: unknown) => void,
    private readonly log: PluginLogger,
  ) {}

  /** Send `action` through `send` and wait for its answer. */
  call(send: (frame: string) => void, action: string, params: Record<string, unknown>): Promise<unknown> {
    const echo = `homed-${++this.seq}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(echo);
        reject(new Error(`${action}: no answer in ${API_TIMEOUT_MS} ms`));
      }, API_TIMEOUT_MS);
      this.pending.set(echo, { action, resolve, reject, timer });
      try {
        send(JSON.stringify({ action, params, echo }));
      } catch (err) {
        clearTimeout(timer);
        this.pending.delete(echo);
        reject(err as Error);
      }
    });
  }

  /** One frame from the socket: an answer, an event, or garbage (logged). */
  frame(text: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      this.log.warn("qq frame is not JSON; dropped", { bytes: text.length });
      return;
    }
    const answer = v.safeParse(ApiResponse, raw);
    if (answer.success && answer.output.echo === null && answer.output.status === "failed") {
      // NapCat's answer to a connection it refuses (retcode 1403: wrong token), before it closes.
      this.log.error("qq connection refused by the OneBot implementation", {
        retcode: answer.output.retcode,
        message: answer.output.wording || answer.output.message,
      });
      return;
    }
    if (answer.success && answer.output.echo !== undefined) {
      const p = this.pending.get(String(answer.output.echo));
      if (!p) return;
      this.pending.delete(String(answer.output.echo));
      clearTimeout(p.timer);
      try {
        p.resolve(apiResult(p.action, answer.output));
      } catch (err) {
        p.reject(err as Error);
      }
      return;
    }
    if (v.is(AnyEvent, raw)) this.onEvent(raw);
    else this.log.warn("qq frame is neither an event nor an answer; dropped");
  }

  /** The socket closed: every call still waiting fails now. */
  failAll(why: string): void {
    for (const [echo, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new Error(`${p.action}: ${why}`));
      this.pending.delete(echo);
    }
  }
}
