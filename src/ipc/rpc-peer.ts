/**
 * One end of a JSON-RPC 2.0 conversation over a line-oriented byte stream. Transport-free: the
 * owner feeds received bytes in and gives a `send` function out, so the same peer serves the
 * control socket, plugin stdio and tests.
 *
 * Promises: every inbound frame is parsed and valibot-checked before use; a bad frame gets a
 * JSON-RPC error back (when it has an id to answer) and a log line, never a throw. Outbound
 * request ids are a per-peer counter, so they never collide. A request that outlives its
 * timeout rejects with `Timeout`; its reply, if it comes later, is dropped with a log line.
 */
import * as v from "valibot";
import {
  describeIssues,
  Frame,
  JSONRPC_VERSION,
  RpcErrorCode,
  type ErrorObject,
  type RequestFrame,
  type RpcId,
} from "../protocol/jsonrpc.ts";
import { RpcError, toErrorObject } from "../protocol/errors.ts";
import { LineDecoder } from "./line-decoder.ts";

export interface RpcLog {
  warn(msg: string, fields?: Record<string, unknown>): void;
  debug(msg: string, fields?: Record<string, unknown>): void;
}

export interface RequestContext {
  method: string;
  id: RpcId;
  peer: RpcPeer;
}

export type RequestHandler = (method: string, params: unknown, ctx: RequestContext) => unknown | Promise<unknown>;
export type NotificationHandler = (method: string, params: unknown) => void;

export interface RpcPeerOptions {
  /** Write one complete line (newline included). */
  send: (line: string) => void;
  onRequest?: RequestHandler;
  onNotification?: NotificationHandler;
  log: RpcLog;
  /** Frames larger than this are refused in both directions. */
  maxFrameBytes?: number;
  /** Default time a request waits for its reply. */
  timeoutMs?: number;
  /** Name of the other side, for log lines. */
  name?: string;
}

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (err: RpcError) => void;
  timer: ReturnType<typeof setTimeout>;
}

export const DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
/** How many timed-out ids we remember, to tell a late reply from a bogus one. */
const LATE_MEMORY = 1024;

export class RpcPeer {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly timedOut = new Set<number>();
  private readonly closeHooks: (() => void)[] = [];
  private readonly decoder: LineDecoder;
  private closed = false;
  private maxFrame: number;
  readonly timeoutMs: number;
  /**
   * Counters a supervisor can show: frames rejected as malformed, oversized lines, late
   * replies, and every frame read and written (what a path costs in messages).
   */
  readonly stats = { badFrames: 0, oversized: 0, lateReplies: 0, framesIn: 0, framesOut: 0 };

  constructor(private readonly opts: RpcPeerOptions) {
    this.maxFrame = opts.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.decoder = new LineDecoder(
      {
        line: (text) => {
          this.stats.framesIn++;
          this.onLine(text);
        },
        oversized: (bytes) => {
          this.stats.oversized++;
          this.opts.log.warn("rpc frame too large, dropped", { peer: opts.name, bytes, limit: this.maxFrameBytes });
          this.sendError(null, {
            code: RpcErrorCode.FrameTooLarge,
            message: `frame of ${bytes} bytes exceeds ${this.maxFrameBytes}`,
          });
        },
      },
      this.maxFrameBytes,
    );
  }

  get maxFrameBytes(): number {
    return this.maxFrame;
  }

  /** Change the frame limit (both directions), e.g. once a handshake told us the peer's. */
  setMaxFrameBytes(bytes: number): void {
    this.maxFrame = bytes;
    this.decoder.maxLineBytes = bytes;
  }

  /** Feed bytes read from the other side. */
  feed(chunk: Uint8Array): void {
    if (!this.closed) this.decoder.push(chunk);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  request(method: string, params?: unknown, opts: { timeoutMs?: number } = {}): Promise<unknown> {
    if (this.closed)
      return Promise.reject(new RpcError(RpcErrorCode.Disconnected, `${this.opts.name ?? "peer"} is disconnected`));
    const id = this.nextId++;
    const frame: Record<string, unknown> = { jsonrpc: JSONRPC_VERSION, id, method };
    if (params !== undefined) frame.params = params;
    return new Promise((resolve, reject) => {
      const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.rememberTimedOut(id);
        reject(new RpcError(RpcErrorCode.Timeout, `${method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { method, resolve, reject, timer });
      try {
        this.write(frame);
      } catch (err) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(err instanceof RpcError ? err : new RpcError(RpcErrorCode.InternalError, String(err)));
      }
    });
  }

  notify(method: string, params?: unknown): void {
    if (this.closed) return;
    const frame: Record<string, unknown> = { jsonrpc: JSONRPC_VERSION, method };
    if (params !== undefined) frame.params = params;
    this.write(frame);
  }

  /** Run `fn` when the peer closes (at once if it already has). Returns a function that forgets it. */
  onClose(fn: () => void): () => void {
    if (this.closed) {
      fn();
      return () => {};
    }
    this.closeHooks.push(fn);
    return () => {
      const i = this.closeHooks.indexOf(fn);
      if (i >= 0) this.closeHooks.splice(i, 1);
    };
  }

  /** Fail every outstanding request and refuse new ones. */
  close(reason = "connection closed"): void {
    if (this.closed) return;
    this.closed = true;
    for (const fn of this.closeHooks.splice(0)) {
      try {
        fn();
      } catch (err) {
        this.opts.log.warn("close hook failed", { peer: this.opts.name, err });
      }
    }
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new RpcError(RpcErrorCode.Disconnected, `${p.method}: ${reason}`));
      this.pending.delete(id);
    }
  }

  private write(frame: Record<string, unknown>): void {
    const line = JSON.stringify(frame);
    if (line.length > this.maxFrame) {
      throw new RpcError(
        RpcErrorCode.FrameTooLarge,
        `outgoing frame of ${line.length} bytes exceeds ${this.maxFrameBytes}`,
      );
    }
    this.stats.framesOut++;
    this.opts.send(`${line}\n`);
  }

  private rememberTimedOut(id: number): void {
    this.timedOut.add(id);
    if (this.timedOut.size > LATE_MEMORY) {
      const oldest = this.timedOut.values().next().value;
      if (oldest !== undefined) this.timedOut.delete(oldest);
    }
  }

  private sendError(id: RpcId | null, error: ErrorObject): void {
    if (this.closed) return;
    try {
      this.write({ jsonrpc: JSONRPC_VERSION, id, error });
    } catch {
      // An error reply that cannot be sent is not worth a second error.
    }
  }

  private onLine(text: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      this.stats.badFrames++;
      this.opts.log.warn("rpc frame is not JSON", { peer: this.opts.name, head: text.slice(0, 120) });
      this.sendError(null, { code: RpcErrorCode.ParseError, message: "frame is not valid JSON" });
      return;
    }
    const parsed = v.safeParse(Frame, raw);
    if (!parsed.success) {
      this.stats.badFrames++;
      const reason = describeIssues(parsed.issues);
      this.opts.log.warn("rpc frame rejected", { peer: this.opts.name, reason });
      // Answer only what looks like a request; answering a bad reply could loop forever.
      const id = extractId(raw);
      if (id !== undefined && typeof raw === "object" && raw !== null && "method" in raw) {
        this.sendError(id, { code: RpcErrorCode.InvalidRequest, message: `invalid request: ${reason}` });
      }
      return;
    }
    const frame = parsed.output;
    if ("method" in frame) {
      if ("id" in frame) void this.handleRequest(frame as RequestFrame);
      else this.handleNotification(frame.method, frame.params);
      return;
    }
    this.handleReply(
      frame.id,
      "error" in frame ? frame.error : undefined,
      "result" in frame ? frame.result : undefined,
    );
  }

  private handleReply(id: RpcId | null, error: ErrorObject | undefined, result: unknown): void {
    const p = typeof id === "number" ? this.pending.get(id) : undefined;
    if (!p) {
      if (typeof id === "number" && this.timedOut.delete(id)) {
        this.stats.lateReplies++;
        this.opts.log.warn("late rpc reply dropped", { peer: this.opts.name, id });
      } else if (error) {
        this.opts.log.warn("rpc error from peer", { peer: this.opts.name, id, code: error.code, error: error.message });
      } else {
        this.stats.badFrames++;
        this.opts.log.warn("rpc reply to unknown id dropped", { peer: this.opts.name, id });
      }
      return;
    }
    this.pending.delete(id as number);
    clearTimeout(p.timer);
    if (error) p.reject(RpcError.from(error));
    else p.resolve(result);
  }

  private handleNotification(method: string, params: unknown): void {
    if (!this.opts.onNotification) return;
    try {
      this.opts.onNotification(method, params);
    } catch (err) {
      this.opts.log.warn("notification handler failed", { peer: this.opts.name, method, err });
    }
  }

  private async handleRequest(frame: RequestFrame): Promise<void> {
    if (!this.opts.onRequest) {
      this.sendError(frame.id, { code: RpcErrorCode.MethodNotFound, message: `method not found: ${frame.method}` });
      return;
    }
    try {
      const result = await this.opts.onRequest(frame.method, frame.params, {
        method: frame.method,
        id: frame.id,
        peer: this,
      });
      if (this.closed) return;
      this.write({ jsonrpc: JSONRPC_VERSION, id: frame.id, result: result ?? null });
    } catch (err) {
      this.sendError(frame.id, toErrorObject(err));
    }
  }
}

function extractId(raw: unknown): RpcId | undefined {
  if (typeof raw !== "object" || raw === null || !("id" in raw)) return undefined;
  const id = (raw as { id: unknown }).id;
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? id : undefined;
}
