/**
 * What a TypeScript plugin imports to join the kernel (DESIGN §2, §3).
 *
 *   const plugin = await connectPlugin();
 *   plugin.handle("my/method", (params) => ...);
 *   await plugin.ready("channel.web");   // or plugin.ready() if it provides nothing
 *
 * The kernel starts the plugin with HOMED_PLUGIN_NAME and HOMED_PLUGIN_TRANSPORT in its
 * environment. Control is JSON-RPC on stdin/stdout; with the `shm` transport fd 3 is the shared
 * segment and fd 4 the doorbell, and bulk data and events go through shared memory; with `stdio`
 * they travel inline (base64) in JSON-RPC frames. The API is the same either way.
 *
 * Lifetime: the plugin exits when the kernel asks (`plugin/shutdown`) or when its stdin closes
 * (the kernel is gone) — a plugin never outlives its kernel.
 */
import * as v from "valibot";
import { RpcPeer } from "../../src/ipc/rpc-peer.ts";
import { SharedSegment } from "../../src/ipc/shared-memory.ts";
import { readLayout } from "../../src/ipc/segment-layout.ts";
import { ShmLink } from "../../src/ipc/shm-link.ts";
import { HomedError, RpcError } from "../../src/protocol/errors.ts";
import { describeIssues, RpcErrorCode } from "../../src/protocol/jsonrpc.ts";
import { parseParams } from "../../src/protocol/parse-params.ts";
import type { LogLevel } from "../../src/protocol/logfmt.ts";
import {
  BulkRefSchema,
  EventParams,
  HelloResult,
  PLUGIN_PROTOCOL_VERSION,
  PluginMethod,
  type BulkRefFrame,
} from "../../src/protocol/plugin.ts";
import { createPluginLogger, type PluginLogger } from "./log.ts";
import { toJsonSchema } from "@valibot/to-json-schema";
import {
  AgentMethod,
  RegisterStagesResult,
  RunToolParams,
  StageRunParams,
  type StageName,
  type RiskClass,
  type StagePayloads,
  type StageResult,
} from "../../src/protocol/agent.ts";

export { PLUGIN_EXIT_CONFIG } from "../../src/protocol/plugin.ts";
export { EventType } from "../../src/protocol/events.ts";
export type { BulkRefFrame, HelloResult, PluginLogger };

export type Handler = (params: unknown) => unknown | Promise<unknown>;

export interface ToolContext {
  callId: string;
  conv: string;
  /** The call came from input marked untrusted (a group chat, a web page): be careful. */
  untrusted: boolean;
}

export interface ToolOptions<S extends v.GenericSchema> {
  /** ^[a-zA-Z0-9_-]{1,64}$, e.g. files_read. */
  name: string;
  description: string;
  /** The arguments, as a valibot schema; published to the model as JSON Schema. */
  input: S;
  /**
   * What the tool can do (required): "read" (no side effects; may run unasked), "write",
   * "exec", "network" or "secret" (asked about unless the owner allows them).
   */
  risk: RiskClass;
  /** "ask": a person should approve each call unless the policy says otherwise. */
  approval?: "auto" | "ask";
  run(args: v.InferOutput<S>, ctx: ToolContext): string | { content: string; isError?: boolean } | Promise<string | { content: string; isError?: boolean }>;
}

/** A tool described by a JSON Schema (for jsonSchemaTools). */
export interface JsonSchemaTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  risk: RiskClass;
  approval?: "auto" | "ask";
  run(args: unknown, ctx: ToolContext): ReturnType<ToolOptions<v.GenericSchema>["run"]>;
}

export type StageHandlerFn<S extends StageName> = (payload: StagePayloads[S]) => StageResult<S> | void | Promise<StageResult<S> | void>;
export type EventHandler = (payload: Uint8Array, type: number) => void;

export interface Plugin {
  readonly name: string;
  readonly transport: "shm" | "stdio";
  /** What the kernel said in reply to hello: config and paths. */
  readonly hello: HelloResult;
  readonly log: PluginLogger;
  /** Call the kernel. */
  request(method: string, params?: unknown, opts?: { timeoutMs?: number }): Promise<unknown>;
  /** Call the kernel and validate the result. */
  call<S extends v.GenericSchema>(method: string, params: unknown, schema: S): Promise<v.InferOutput<S>>;
  /** Answer the kernel's requests for `method`. */
  handle(method: string, handler: Handler): void;
  /** Receive the kernel's notifications for `method`. */
  onNotify(method: string, fn: (params: unknown) => void): void;
  /**
   * Announce readiness: `ready(facility)` for each facility in the manifest's `provides` (the
   * last one makes the plugin ready), or `ready()` once handlers are registered when the plugin
   * provides nothing. Register handlers before announcing: requests may follow at once.
   */
  ready(facility?: string): Promise<void>;
  /** Send an event to the kernel (ring record, or a notification on stdio). */
  emit(type: number, payload: Uint8Array): Promise<void>;
  /** Receive events of `type` (or every type with "*"). Payload views are valid during the call. */
  onEvent(type: number | "*", handler: EventHandler): void;
  /** Hand bytes to the kernel: a segment reference (shm) or inline base64 (stdio). */
  sendBulk(bytes: Uint8Array): Promise<BulkRefFrame>;
  /** Bytes the kernel handed us. On shm a view into shared memory: call releaseBulk when done. */
  readBulk(ref: unknown): Uint8Array;
  releaseBulk(ref: unknown): void;
  /** Offer a tool to the model. Arguments are validated with `input` before `run` sees them. */
  tool<S extends v.GenericSchema>(opts: ToolOptions<S>): Promise<void>;
  /**
   * Offer tools whose arguments are described by JSON Schemas you already have (e.g. from an
   * MCP server), in one registration. The kernel validates arguments before `run` sees them.
   */
  jsonSchemaTools(tools: JsonSchemaTool[]): Promise<void>;
  /** Withdraw tools this plugin registered. */
  unregisterTools(names: string[]): Promise<void>;
  /** Act at one of the seven stages of every turn (lower priority runs first). */
  stage<S extends StageName>(stage: S, handler: StageHandlerFn<S>, opts?: { priority?: number; deadlineMs?: number }): Promise<number>;
  /** Run `fn` before exiting on shutdown or kernel loss. */
  onShutdown(fn: () => void | Promise<void>): void;
  /** Clean exit with `code` (78 = configuration error: the kernel will not restart us). */
  exit(code?: number): Promise<never>;
}

const encoder = new TextEncoder();

export async function connectPlugin(opts: { name?: string } = {}): Promise<Plugin> {
  const name = opts.name ?? process.env.HOMED_PLUGIN_NAME ?? "";
  const transport = process.env.HOMED_PLUGIN_TRANSPORT === "stdio" ? "stdio" : "shm";
  if (!name) throw new HomedError("usage", "HOMED_PLUGIN_NAME is not set: plugins are started by homed");
  const log = createPluginLogger(name);
  const handlers = new Map<string, Handler>();
  const notifyHandlers = new Map<string, (params: unknown) => void>();
  const tools = new Map<string, { input: v.GenericSchema | null; run: ToolOptions<v.GenericSchema>["run"] }>();
  const stageHandlers = new Map<number, (payload: unknown) => unknown>();
  const eventHandlers = new Map<number | "*", EventHandler[]>();
  const shutdownHooks: (() => void | Promise<void>)[] = [];
  let exiting = false;

  const out = Bun.stdout.writer();
  const dispatchEvent = (type: number, payload: Uint8Array) => {
    for (const h of eventHandlers.get(type) ?? []) h(payload, type);
    for (const h of eventHandlers.get("*") ?? []) h(payload, type);
  };

  const rpc = new RpcPeer({
    name: "kernel",
    log,
    send: (line) => {
      out.write(line);
      out.flush();
    },
    onRequest: async (method, params) => {
      if (method === PluginMethod.Ping) return { pid: process.pid };
      if (method === AgentMethod.RunTool) return await runTool(params);
      if (method === AgentMethod.RunStage) {
        const p = parseParams(StageRunParams, params);
        const h = stageHandlers.get(p.handler);
        if (!h) throw new RpcError(RpcErrorCode.MethodNotFound, `${name} has no stage handler ${p.handler}`);
        return (await h(p.payload)) ?? {};
      }
      const h = handlers.get(method);
      if (!h) throw new RpcError(RpcErrorCode.MethodNotFound, `${name} has no method ${method}`);
      return await h(params);
    },
    onNotification: (method, params) => {
      if (method === PluginMethod.Shutdown) void exit(0);
      else if (method === PluginMethod.Event) {
        const p = v.safeParse(EventParams, params);
        if (p.success) dispatchEvent(p.output.type, Buffer.from(p.output.data, "base64"));
        else log.warn("bad event notification", { reason: describeIssues(p.issues) });
      } else notifyHandlers.get(method)?.(params);
    },
  });

  async function runTool(params: unknown): Promise<{ content: string; isError: boolean }> {
    const p = parseParams(RunToolParams, params);
    const t = tools.get(p.name);
    if (!t) return { content: `error: ${name} has no tool ${p.name}`, isError: true };
    let input: unknown = p.arguments;
    if (t.input) {
      const args = v.safeParse(t.input, p.arguments);
      if (!args.success) return { content: `error: invalid arguments: ${describeIssues(args.issues)}`, isError: true };
      input = args.output;
    }
    try {
      const r = await t.run(input, { callId: p.callId, conv: p.conv, untrusted: p.untrusted });
      return typeof r === "string" ? { content: r, isError: false } : { content: r.content, isError: r.isError ?? false };
    } catch (err) {
      return { content: `error: ${(err as Error).message}`, isError: true };
    }
  }

  let link: ShmLink | null = null;
  if (transport === "shm") {
    const seg = SharedSegment.fromFd(3);
    link = new ShmLink({
      buffer: seg.buffer,
      layout: readLayout(seg.buffer),
      role: "plugin",
      doorbellFd: 4,
      onEvent: (type, payload) => dispatchEvent(type, payload),
      onHandlerError: (err, type) => log.warn("event handler failed", { type, err }),
      onCorrupt: (err) => {
        log.error("shared segment corrupt; exiting", { err });
        void exit(1);
      },
    });
    void link.run();
  }

  // stdin: frames from the kernel. EOF means the kernel is gone.
  void (async () => {
    try {
      for await (const chunk of Bun.stdin.stream()) rpc.feed(chunk);
    } catch (err) {
      log.warn("stdin failed", { err });
    }
    void exit(0);
  })();

  async function exit(code = 0): Promise<never> {
    if (!exiting) {
      exiting = true;
      for (const fn of shutdownHooks) {
        try {
          await fn();
        } catch (err) {
          log.warn("shutdown hook failed", { err });
        }
      }
      link?.close();
      rpc.close("plugin exiting");
      process.exit(code);
    }
    return await new Promise<never>(() => {});
  }

  const hello = await (async () => {
    const raw = await rpc.request(PluginMethod.Hello, { name, protocol: PLUGIN_PROTOCOL_VERSION, pid: process.pid });
    const r = v.safeParse(HelloResult, raw);
    if (!r.success) throw new HomedError("upstream", `kernel sent a malformed hello: ${describeIssues(r.issues)}`);
    return r.output;
  })();
  log.level = (hello.logLevel as LogLevel) ?? "info";
  // Inline bulk data (stdio) is base64 inside a frame: allow frames that large, plus room for JSON.
  rpc.setMaxFrameBytes(Math.max(rpc.maxFrameBytes, Math.ceil((hello.inlineBulkLimit * 4) / 3) + 64 * 1024));

  const plugin: Plugin = {
    name,
    transport,
    hello,
    log,
    request: (method, params, o) => rpc.request(method, params, o),
    async call(method, params, schema) {
      const raw = await rpc.request(method, params);
      const r = v.safeParse(schema, raw);
      if (!r.success) throw new HomedError("upstream", `kernel sent a malformed ${method} result: ${describeIssues(r.issues)}`);
      return r.output;
    },
    handle(method, handler) {
      handlers.set(method, handler);
    },
    onNotify(method, fn) {
      notifyHandlers.set(method, fn);
    },
    async ready(facility) {
      if (facility === undefined) await rpc.request(PluginMethod.Ready);
      else await rpc.request(PluginMethod.FacilityReady, { facility });
    },
    async emit(type, payload) {
      if (link) return await link.emit(type, payload);
      rpc.notify(PluginMethod.Event, { type, data: Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString("base64") });
    },
    onEvent(type, handler) {
      const list = eventHandlers.get(type) ?? [];
      list.push(handler);
      eventHandlers.set(type, list);
    },
    async sendBulk(bytes) {
      if (link) return await link.writeBulk(bytes);
      if (bytes.length > hello.inlineBulkLimit) {
        throw new HomedError("invalid_params", `payload of ${bytes.length} bytes exceeds the stdio transport's inline limit of ${hello.inlineBulkLimit}`);
      }
      return { b64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64") };
    },
    readBulk(ref) {
      const r = parseRef(ref);
      if ("b64" in r) return Buffer.from(r.b64, "base64");
      if (!link) throw new HomedError("invalid_params", "segment reference on the stdio transport");
      return link.readBulk(r);
    },
    releaseBulk(ref) {
      const r = parseRef(ref);
      if ("off" in r && link) link.releaseBulk(r);
    },
    async tool(opts) {
      const schema = toJsonSchema(opts.input, { errorMode: "ignore" }) as Record<string, unknown>;
      delete schema.$schema;
      tools.set(opts.name, { input: opts.input, run: opts.run as ToolOptions<v.GenericSchema>["run"] });
      await rpc.request(AgentMethod.RegisterTools, { tools: [{ name: opts.name, description: opts.description, parameters: schema, risk: opts.risk, approval: opts.approval ?? "auto" }] });
    },
    async jsonSchemaTools(list) {
      // One request for the lot, so the model never sees half of a server's tools.
      for (const t of list) tools.set(t.name, { input: null, run: t.run });
      await rpc.request(AgentMethod.RegisterTools, { tools: list.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters, risk: t.risk, approval: t.approval ?? "auto" })) });
    },
    async unregisterTools(names) {
      for (const n of names) tools.delete(n);
      await rpc.request(AgentMethod.UnregisterTools, { names });
    },
    async stage(stage, handler, opts = {}) {
      const raw = await rpc.request(AgentMethod.RegisterStages, { handlers: [{ stage, ...opts }] });
      const r = v.safeParse(RegisterStagesResult, raw);
      const id = r.success ? r.output.ids[0] : undefined;
      if (id === undefined) throw new HomedError("upstream", "kernel did not register the stage handler");
      stageHandlers.set(id, handler as (payload: unknown) => unknown);
      return id;
    },
    onShutdown(fn) {
      shutdownHooks.push(fn);
    },
    exit,
  };
  return plugin;
}

function parseRef(ref: unknown): BulkRefFrame {
  const r = v.safeParse(BulkRefSchema, ref);
  if (!r.success) throw new HomedError("invalid_params", `not a bulk reference: ${describeIssues(r.issues)}`);
  return r.output;
}

/** UTF-8 JSON as event payload bytes (for the kernel's own event types). */
export function jsonPayload(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}
