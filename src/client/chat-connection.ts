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
  ChatCancelResult,
  ChatStreamMethods,
  ControlMethod,
  type ControlClientKind,
  type TurnResultView,
} from "../protocol/control.ts";
import { HomedError, RpcError } from "../protocol/errors.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import type { StreamEvent } from "../protocol/turn-stream.ts";
import { connectUnixRpc } from "../ipc/unix-rpc.ts";
import { TurnStreamClient } from "../ipc/turn-stream-client.ts";
import { throwDaemonGone } from "./control-client.ts";

const quietLog = { warn: () => {}, debug: () => {} };

/** A turn event as the daemon streams it (src/protocol/turn-stream.ts). */
export type ChatEvent = StreamEvent;

export type { ApprovalQuestion } from "../protocol/turn-stream.ts";
import type { ApprovalAnswer, ApprovalQuestion } from "../protocol/turn-stream.ts";

export interface ChatHandlers {
  /** One event of the running turn. */
  event(e: ChatEvent): void;
  /** May this tool call run? false is a no; "conversation" a yes for the rest of the conversation. */
  approve(q: ApprovalQuestion): Promise<ApprovalAnswer>;
}

/** How long a turn may take before the client gives up on it: a day (a person can always Ctrl-C). */
const TURN_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export class ChatConnection {
  private constructor(
    private readonly client: Awaited<ReturnType<typeof connectUnixRpc>>,
    private readonly turns: TurnStreamClient,
    private readonly handlers: ChatHandlers,
  ) {}

  /**
   * Connect to the daemon at `socketPath`; HomedError not_running when there is none. `kind`
   * tells the daemon what this client is, for `homed status` (an older daemon that does not
   * know `client.hello` is fine: the answer is not needed).
   */
  static async open(socketPath: string, handlers: ChatHandlers, kind?: ControlClientKind): Promise<ChatConnection> {
    if (!existsSync(socketPath))
      throw new HomedError("not_running", `homed is not running (no control socket at ${socketPath})`);
    let turns: TurnStreamClient | null = null;
    const client = await connectUnixRpc(socketPath, quietLog, {
      timeoutMs: TURN_TIMEOUT_MS,
      onNotification: (method, params) => {
        if (method === ControlMethod.ChatEvent) turns?.frame(params);
      },
      onRequest: async (method) => {
        throw new RpcError(-32601, `unknown method ${method}`);
      },
    }).catch((err: Error) => {
      throw new HomedError("not_running", `homed is not running (cannot connect to ${socketPath}: ${err.message})`);
    });
    turns = new TurnStreamClient(client.peer, ChatStreamMethods);
    if (kind) await client.peer.request(ControlMethod.ClientHello, { client: kind }).catch(() => {});
    return new ChatConnection(client, turns, handlers);
  }

  /** The handlers as the stream client takes them: every event, and the questions to answer. */
  private get listener() {
    return {
      event: (e: StreamEvent) => this.handlers.event(e),
      approve: (q: ApprovalQuestion) => this.handlers.approve(q),
    };
  }

  /**
   * Run one turn on conversation `conv`; resolves when it ends (done, cancelled, error…). `via`
   * names the channel and scene the turn declares (default: channel "cli", no scene).
   */
  async send(text: string, conv: string, via: { channel?: string; scene?: string } = {}): Promise<TurnResultView> {
    return await this.turns.send({ text, conv, ...via }, this.listener).catch(throwDaemonGone);
  }

  /**
   * Re-attach to the running turn of `conv`, whichever channel started it: its events so far and
   * then as they come reach the handlers, and so do its open approval questions. Resolves with
   * the turn's result when it ends, or null at once when none is running.
   */
  async attach(conv: string): Promise<TurnResultView | null> {
    return await this.turns.watch({ conv }, this.listener).catch(throwDaemonGone);
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
