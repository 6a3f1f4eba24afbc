/**
 * The ACP agent `homed acp` plays for an editor, bridged to the daemon on DATA: each ACP session
 * is the conversation `acp:<sessionId>` with the scene `chan:acp/peer:<editor>`, run over a
 * control-socket connection of its own (so session/cancel stops that session's turn only, and
 * an approval question is known to be that session's). The bridge starts nothing: without a
 * daemon, `initialize` still answers, and session/new fails with "homed is not running on DIR".
 *
 * The editor is the owner's, so its turns are trusted input; a tool call that needs approval is
 * still asked, as session/request_permission (allow once, allow always, reject). "Allow always"
 * adds the tool to approval.allow, as the web UI's card does.
 */
import * as v from "valibot";
import { randomUUID } from "node:crypto";
import { ControlMethod } from "../protocol/control.ts";
import { SettingsSaveResult } from "../protocol/settings.ts";
import { TranscriptItem } from "../protocol/channel.ts";
import { errorCodeOf, HomedError, RpcError } from "../protocol/errors.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import type { RpcPeer } from "../ipc/rpc-peer.ts";
import { callDaemon } from "../client/control-client.ts";
import { type ApprovalQuestion, ChatConnection } from "../client/chat-connection.ts";
import type { ApprovalAnswer } from "../protocol/turn-stream.ts";
import { VERSION } from "../version.ts";
import {
  ACP_PROTOCOL_VERSION,
  AcpErrorCode,
  AcpMethod,
  CancelParams,
  type ContentBlock,
  InitializeParams,
  LoadSessionParams,
  NewSessionParams,
  PromptParams,
} from "./acp-schema.ts";
import { type AcpUpdate, replayUpdates, TurnUpdates } from "./acp-updates.ts";
import { type AcpLog, askEditor } from "./acp-permission.ts";

interface AcpSession {
  id: string;
  conv: string;
  conn: ChatConnection | null;
  /** The running prompt, if any: its updates, and whether session/cancel stopped it. */
  turn: { updates: TurnUpdates; cancelled: boolean } | null;
  turns: number;
  /** The end of the last prompt asked: prompts of a session run one after another. */
  queue: Promise<void>;
  /** Counts session/cancel: a prompt still waiting its turn when one came is cancelled too. */
  cancels: number;
}

function newSession(id: string): AcpSession {
  return { id, conv: `acp:${id}`, conn: null, turn: null, turns: 0, queue: Promise.resolve(), cancels: 0 };
}

/** How much of a conversation session/load replays. */
const REPLAY_EVENTS = 5000;

const invalid = (issues: readonly v.BaseIssue<unknown>[]) =>
  new RpcError(AcpErrorCode.InvalidParams, `invalid params: ${describeIssues(issues)}`);

function parse<S extends v.GenericSchema>(schema: S, params: unknown): v.InferOutput<S> {
  const r = v.safeParse(schema, params);
  if (!r.success) throw invalid(r.issues);
  return r.output;
}

/** The editor's name as the peer of a scene key: lower case, no spaces or slashes, "editor" when it gave none. */
export function scenePeer(name: string | undefined): string {
  const p = (name ?? "")
    .trim()
    .toLowerCase()
    .replace(/[\s/]+/g, "-")
    .slice(0, 160);
  return p || "editor";
}

/** A prompt's blocks as the one message homed's turn takes. */
export function promptText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const b of blocks) {
    if (b.type === "text") parts.push(b.text);
    else if (b.type === "resource_link") parts.push(`[${b.title || b.name || b.uri}](${b.uri})`);
    else if (b.type === "resource")
      parts.push(
        b.resource.text === undefined
          ? `[${b.resource.uri}]`
          : `${b.resource.uri}:\n\`\`\`\n${b.resource.text}\n\`\`\``,
      );
    else throw new RpcError(AcpErrorCode.InvalidParams, `homed does not take ${b.type} in a prompt`);
  }
  return parts.join("\n\n").trim();
}

/** homed's stop reasons as ACP's; "error" is not one: it becomes the prompt's JSON-RPC error. */
const STOP_REASONS: Record<string, string> = {
  done: "end_turn",
  short_circuit: "end_turn",
  denied: "end_turn",
  tool_calls: "end_turn",
  blocked: "refusal",
  iteration_limit: "max_turn_requests",
  cancelled: "cancelled",
};

const ACP_CODES: ReadonlySet<number> = new Set(Object.values(AcpErrorCode));

/**
 * An error as the editor gets it. The daemon's own codes are not ACP's (its -32000, a domain
 * error, is ACP's "authentication required"), so anything but ACP's codes is reported as an
 * internal error with its message; what the daemon calls invalid or missing keeps that meaning.
 */
export function toAcpError(err: unknown): RpcError {
  if (err instanceof RpcError && ACP_CODES.has(err.code)) return err;
  const code = errorCodeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  if (code === "invalid_params") return new RpcError(AcpErrorCode.InvalidParams, message);
  if (code === "not_found") return new RpcError(AcpErrorCode.ResourceNotFound, message);
  return new RpcError(AcpErrorCode.InternalError, message);
}

export class AcpBridge {
  private readonly sessions = new Map<string, AcpSession>();
  private peer = "editor";
  private editor: RpcPeer | null = null;

  constructor(
    private readonly dataDir: string,
    private readonly socketPath: string,
    private readonly log: AcpLog,
  ) {}

  /** The connection to the editor, once made (the bridge and the peer need each other). */
  attach(editor: RpcPeer): void {
    this.editor = editor;
  }

  /** Every daemon connection closes (the editor went away). */
  close(): void {
    for (const s of this.sessions.values()) s.conn?.close();
    this.sessions.clear();
  }

  /** Answer one request of the editor; a failure is an error with a code ACP knows. */
  async request(method: string, params: unknown): Promise<unknown> {
    try {
      return await this.dispatch(method, params);
    } catch (err) {
      throw toAcpError(err);
    }
  }

  private async dispatch(method: string, params: unknown): Promise<unknown> {
    switch (method) {
      case AcpMethod.Initialize:
        return this.initialize(params);
      case AcpMethod.SessionNew:
        return await this.newSession(params);
      case AcpMethod.SessionLoad:
        return await this.loadSession(params);
      case AcpMethod.SessionPrompt:
        return await this.prompt(params);
      default:
        throw new RpcError(AcpErrorCode.MethodNotFound, `method not found: ${method}`);
    }
  }

  /** Stop every running turn (the editor went away). */
  cancelAll(): void {
    for (const s of this.sessions.values()) this.cancel(s);
  }

  private cancel(s: AcpSession): void {
    s.cancels++;
    if (!s.turn || !s.conn) return;
    s.turn.cancelled = true;
    s.conn.cancel().catch((err: Error) => this.log("warn", "chat.cancel failed", { err: err.message }));
  }

  notification(method: string, params: unknown): void {
    if (method !== AcpMethod.SessionCancel) {
      this.log("warn", "unknown ACP notification ignored", { method });
      return;
    }
    const r = v.safeParse(CancelParams, params);
    if (!r.success) {
      this.log("warn", "bad session/cancel ignored", { reason: describeIssues(r.issues) });
      return;
    }
    const s = this.sessions.get(r.output.sessionId);
    if (s) this.cancel(s);
  }

  private initialize(params: unknown) {
    const p = parse(InitializeParams, params);
    this.peer = scenePeer(p.clientInfo?.name);
    this.log("info", "editor connected", { peer: this.peer, protocol: p.protocolVersion });
    return {
      // Only v1 exists; an editor that asked for another decides whether it can speak this one.
      protocolVersion: ACP_PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: false, audio: false, embeddedContext: true },
        mcpCapabilities: { http: false, sse: false },
      },
      agentInfo: { name: "homed", title: "homed", version: VERSION },
      authMethods: [],
    };
  }

  private notRunning(): RpcError {
    return new RpcError(AcpErrorCode.InternalError, `homed is not running on ${this.dataDir}`);
  }

  /** A control-socket connection for session `s`: its turn events and approval questions go to the editor. */
  private async connect(s: AcpSession): Promise<ChatConnection> {
    // A daemon that restarted since the last prompt is connected to again, not reported gone.
    if (s.conn && !s.conn.closed) return s.conn;
    try {
      s.conn = await ChatConnection.open(
        this.socketPath,
        {
          event: (e) => {
            for (const u of s.turn?.updates.updates(e) ?? []) this.update(s.id, u);
          },
          approve: (q) => this.askPermission(s, q),
        },
        "acp",
      );
    } catch (err) {
      if (err instanceof HomedError && err.code === "not_running") throw this.notRunning();
      throw err;
    }
    return s.conn;
  }

  /** homed's MCP servers are the owner's config.toml's, for every channel; an editor's own are not used. */
  private ignoredMcp(servers: readonly unknown[] | null | undefined): void {
    if (servers?.length)
      this.log("info", "the editor's MCP servers are not used: homed's come from [[mcp.servers]] in config.toml", {
        count: servers.length,
      });
  }

  private session(id: string): AcpSession {
    const s = this.sessions.get(id);
    if (!s) throw new RpcError(AcpErrorCode.ResourceNotFound, `no session ${id}: start one with session/new`);
    return s;
  }

  private async newSession(params: unknown) {
    const p = parse(NewSessionParams, params);
    this.ignoredMcp(p.mcpServers);
    const id = randomUUID();
    const s = newSession(id);
    await this.connect(s);
    this.sessions.set(id, s);
    this.log("info", "session started", { session: id });
    return { sessionId: id };
  }

  private async loadSession(params: unknown) {
    const p = parse(LoadSessionParams, params);
    this.ignoredMcp(p.mcpServers);
    const s = this.sessions.get(p.sessionId) ?? newSession(p.sessionId);
    await this.connect(s);
    const items = await callDaemon(
      this.socketPath,
      ControlMethod.ConversationsMessages,
      { conv: s.conv, limit: REPLAY_EVENTS },
      v.array(TranscriptItem),
    ).catch((err) => {
      throw err instanceof HomedError && err.code === "not_running" ? this.notRunning() : err;
    });
    if (items.length === 0 && !this.sessions.has(s.id)) {
      s.conn?.close();
      throw new RpcError(AcpErrorCode.ResourceNotFound, `no session ${s.id} on this homed`);
    }
    this.sessions.set(s.id, s);
    // The whole history goes out before the answer, as ACP asks.
    for (const u of replayUpdates(items)) this.update(s.id, u);
    this.log("info", "session loaded", { session: s.id, items: items.length });
    return {};
  }

  private async prompt(params: unknown) {
    const p = parse(PromptParams, params);
    const s = this.session(p.sessionId);
    const text = promptText(p.prompt);
    if (!text) throw new RpcError(AcpErrorCode.InvalidParams, "the prompt is empty");
    // An editor may send the next prompt right after session/cancel, before the stopped turn
    // has answered: it waits for that one (the daemon would queue it behind it anyway).
    const cancels = s.cancels;
    const before = s.queue;
    let settled = () => {};
    s.queue = new Promise<void>((resolve) => {
      settled = resolve;
    });
    try {
      await before;
      if (s.cancels !== cancels) return { stopReason: "cancelled" };
      return await this.runPrompt(s, text);
    } finally {
      settled();
    }
  }

  private async runPrompt(s: AcpSession, text: string) {
    const conn = await this.connect(s);
    const turn = { updates: new TurnUpdates(`${s.id}-${++s.turns}`, text), cancelled: false };
    s.turn = turn;
    try {
      const r = await conn.send(text, s.conv, { channel: "acp", scene: `chan:acp/peer:${this.peer}` });
      // ACP: after session/cancel the answer is "cancelled", whatever the turn managed to do.
      if (turn.cancelled || r.stopReason === "cancelled") return { stopReason: "cancelled" };
      if (r.stopReason === "error") throw new RpcError(AcpErrorCode.InternalError, r.error ?? "the turn failed");
      return { stopReason: STOP_REASONS[r.stopReason] ?? "end_turn" };
    } catch (err) {
      if (err instanceof HomedError && err.code === "not_running") {
        // The daemon went away: the next prompt connects again.
        s.conn?.close();
        s.conn = null;
        throw this.notRunning();
      }
      throw err;
    } finally {
      s.turn = null;
    }
  }

  private update(sessionId: string, update: AcpUpdate): void {
    this.editor?.notify(AcpMethod.SessionUpdate, { sessionId, update });
  }

  /** The daemon asks about a tool call of session `s`'s turn: the editor's person answers. */
  private async askPermission(s: AcpSession, q: ApprovalQuestion): Promise<ApprovalAnswer> {
    const turn = s.turn;
    if (!this.editor || !turn || turn.cancelled) return false;
    const toolCallId = turn.updates.toolCallId(q.callId);
    const answer = await askEditor(this.editor, s.id, toolCallId, q, this.log);
    // An answer that comes after session/cancel is moot: the turn is stopping.
    if (answer === "reject" || turn.cancelled) return false;
    if (answer === "always") {
      await callDaemon(this.socketPath, ControlMethod.ApprovalAllow, { tool: q.tool }, SettingsSaveResult)
        .then(() => this.log("info", "tool always allowed", { tool: q.tool }))
        .catch((err: Error) => this.log("warn", "could not save allow-always", { tool: q.tool, err: err.message }));
    }
    this.update(s.id, { sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" });
    return answer === "session" ? "conversation" : true;
  }
}
