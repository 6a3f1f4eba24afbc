/**
 * One connection to the daemon's control socket that carries chat turns: `send` runs a turn,
 * `cancel` stops the turns this connection has running (the daemon's `chat.cancel`), and the
 * turn's events and approval questions arrive through the handlers given at `open`. Shared by
 * `homed chat` (one turn), its interactive session (many) and, later, waiter's full-screen TUI.
 * Everything the daemon sends is valibot-checked: it is another process, possibly another version.
 */
import * as v from "valibot";
import { existsSync } from "node:fs";
import {
  ChatApproveParams,
  ChatCancelResult,
  ChatEventParams,
  ControlMethod,
  type ControlClientKind,
  TurnResultSchema,
  type TurnResultView,
} from "../protocol/control.ts";
import { HomedError, RpcError } from "../protocol/errors.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import { parseParams } from "../protocol/parse-params.ts";
import { connectUnixRpc } from "../ipc/unix-rpc.ts";
import { throwDaemonGone } from "./control-client.ts";

const quietLog = { warn: () => {}, debug: () => {} };

/** A turn event as the daemon streams it (`type` plus fields that depend on it). */
export type ChatEvent = Record<string, unknown> & { type?: unknown };

/** A tool call waiting for a person's yes or no. */
export type ApprovalQuestion = v.InferOutput<typeof ChatApproveParams>;

export interface ChatHandlers {
  /** One event of the running turn. */
  event(e: ChatEvent): void;
  /** May this tool call run? Anything but true is a no. */
  approve(q: ApprovalQuestion): Promise<boolean>;
}

/** How long a turn may take before the client gives up on it: a day (a person can always Ctrl-C). */
const TURN_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export class ChatConnection {
  private constructor(private readonly client: Awaited<ReturnType<typeof connectUnixRpc>>) {}

  /**
   * Connect to the daemon at `socketPath`; HomedError not_running when there is none. `kind`
   * tells the daemon what this client is, for `homed status` (an older daemon that does not
   * know `client.hello` is fine: the answer is not needed).
   */
  static async open(socketPath: string, handlers: ChatHandlers, kind?: ControlClientKind): Promise<ChatConnection> {
    if (!existsSync(socketPath))
      throw new HomedError("not_running", `homed is not running (no control socket at ${socketPath})`);
    const client = await connectUnixRpc(socketPath, quietLog, {
      timeoutMs: TURN_TIMEOUT_MS,
      onNotification: (method, params) => {
        if (method !== ControlMethod.ChatEvent) return;
        const p = v.safeParse(ChatEventParams, params);
        if (p.success) handlers.event(p.output.event);
      },
      onRequest: async (method, params) => {
        if (method !== ControlMethod.ChatApprove) throw new RpcError(-32601, `unknown method ${method}`);
        return { approved: (await handlers.approve(parseParams(ChatApproveParams, params))) === true };
      },
    }).catch((err: Error) => {
      throw new HomedError("not_running", `homed is not running (cannot connect to ${socketPath}: ${err.message})`);
    });
    if (kind) await client.peer.request(ControlMethod.ClientHello, { client: kind }).catch(() => {});
    return new ChatConnection(client);
  }

  /**
   * Run one turn on conversation `conv`; resolves when it ends (done, cancelled, error…). `via`
   * names the channel and scene the turn declares (default: channel "cli", no scene).
   */
  async send(text: string, conv: string, via: { channel?: string; scene?: string } = {}): Promise<TurnResultView> {
    const raw = await this.client.peer.request(ControlMethod.ChatSend, { text, conv, ...via }).catch(throwDaemonGone);
    const r = v.safeParse(TurnResultSchema, raw);
    if (!r.success)
      throw new HomedError("upstream", `daemon sent a malformed chat result: ${describeIssues(r.issues)}`);
    return r.output;
  }

  /**
   * Re-attach to the running turn of `conv`, whichever channel started it: its events so far and
   * then as they come reach the handlers, and so do its open approval questions. Resolves with
   * the turn's result when it ends, or null at once when none is running.
   */
  async attach(conv: string): Promise<TurnResultView | null> {
    const raw = await this.client.peer.request(ControlMethod.ChatAttach, { conv }).catch(throwDaemonGone);
    if (raw === null) return null;
    const r = v.safeParse(TurnResultSchema, raw);
    if (!r.success)
      throw new HomedError("upstream", `daemon sent a malformed chat.attach result: ${describeIssues(r.issues)}`);
    return r.output;
  }

  /** Stop this connection's running turns (and those it re-attached to); resolves with how many there were. */
  async cancel(): Promise<number> {
    const raw = await this.client.peer.request(ControlMethod.ChatCancel, {}).catch(throwDaemonGone);
    const r = v.safeParse(ChatCancelResult, raw);
    if (!r.success)
      throw new HomedError("upstream", `daemon sent a malformed chat.cancel result: ${describeIssues(r.issues)}`);
    return r.output.cancelled;
  }

  /** The daemon hung up (it stopped or restarted) or close() was called. */
  get closed(): boolean {
    return this.client.peer.isClosed;
  }

  /** Any other control method on this connection, its result valibot-checked. */
  async call<S extends v.GenericSchema>(method: string, params: unknown, schema: S): Promise<v.InferOutput<S>> {
    const raw = await this.client.peer.request(method, params).catch(throwDaemonGone);
    const r = v.safeParse(schema, raw);
    if (!r.success)
      throw new HomedError("upstream", `daemon sent a malformed ${method} result: ${describeIssues(r.issues)}`);
    return r.output;
  }

  /** Call `fn` once when the connection ends (the daemon stopped, or `close`); returns an unsubscribe. */
  onClose(fn: () => void): () => void {
    return this.client.peer.onClose(fn);
  }

  close(): void {
    this.client.close();
  }
}
