/**
 * The plugin's end of its connection to the kernel: JSON-RPC on stdin/stdout for control and a
 * `PluginLink` (shared memory or inline) for events and bulk data. `connectPlugin` builds one
 * and says hello; plugins see it only as the `Plugin` interface.
 */
import * as v from "valibot";
import { toolDefinition } from "./tool-spec.ts";
import { RpcPeer } from "../../src/ipc/rpc-peer.ts";
import { SharedSegment } from "../../src/ipc/shared-memory.ts";
import { readLayout } from "../../src/ipc/segment-layout.ts";
import { ShmLink } from "../../src/ipc/shm-link.ts";
import { ShmPluginLink, StdioPluginLink, type PluginLink } from "../../src/ipc/plugin-link.ts";
import { HomedError, RpcError } from "../../src/protocol/errors.ts";
import { describeIssues, RpcErrorCode } from "../../src/protocol/jsonrpc.ts";
import { parseParams } from "../../src/protocol/parse-params.ts";
import type { LogLevel } from "../../src/protocol/logfmt.ts";
import { HelloResult, PLUGIN_PROTOCOL_VERSION, PluginMethod, type BulkRefFrame } from "../../src/protocol/plugin.ts";
import {
  AgentMethod,
  CancelToolParams,
  capMark,
  RegisterStagesResult,
  RunToolParams,
  CheckToolParams,
  StageRunParams,
  type StageName,
} from "../../src/protocol/agent.ts";
import { createPluginLogger, type PluginLogger } from "./log.ts";
import { startIdleTrim } from "../../src/shared/idle-trim.ts";
import { TurnStreamClient } from "../../src/ipc/turn-stream-client.ts";
import { ChannelStreamMethods } from "../../src/protocol/channel.ts";
import { ConfigChangedParams } from "../../src/protocol/plugin-settings.ts";
import type { EventHandler, Handler, JsonSchemaTool, Plugin, StageHandlerFn, ToolImage, ToolOptions } from "./index.ts";
import {
  MAX_IMAGE_ALT_CHARS,
  MAX_TOOL_IMAGE_BYTES,
  MAX_TOOL_IMAGES,
  MAX_TOOL_IMAGES_TOTAL_BYTES,
} from "../../src/protocol/images.ts";

type ToolRun = ToolOptions<v.GenericSchema>["run"];
type ToolCheck = NonNullable<ToolOptions<v.GenericSchema>["check"]>;

export class PluginConnection implements Plugin {
  readonly log: PluginLogger & { level: LogLevel };
  /** Whether this process watches for memory to give back (from its first readiness). */
  private trimming = false;
  private readonly rpc: RpcPeer;
  private readonly link: PluginLink;
  private helloResult: HelloResult | null = null;
  private readonly handlers = new Map<string, Handler>();
  private readonly notifyHandlers = new Map<string, (params: unknown) => void>();
  private readonly toolRuns = new Map<string, { input: v.GenericSchema | null; run: ToolRun; check?: ToolCheck }>();
  /** Tool calls running now, by callId, so `tool/cancel` can abort them. */
  private readonly toolCalls = new Map<string, AbortController>();
  private readonly stageHandlers = new Map<number, (payload: unknown) => unknown>();
  /** stages/register requests whose reply has not been handled yet (see `runStage`). */
  private readonly stageRegistrations = new Set<Promise<unknown>>();
  private readonly eventHandlers = new Map<number | "*", EventHandler[]>();
  private readonly shutdownHooks: (() => void | Promise<void>)[] = [];
  private exiting = false;

  constructor(
    readonly name: string,
    readonly transport: "shm" | "stdio",
  ) {
    this.log = createPluginLogger(name);
    const out = Bun.stdout.writer();
    this.rpc = new RpcPeer({
      name: "kernel",
      log: this.log,
      send: (line) => {
        out.write(line);
        out.flush();
      },
      onRequest: (method, params) => this.answer(method, params),
      onNotification: (method, params) => {
        if (method === PluginMethod.Shutdown) void this.exit(0);
        else if (method === AgentMethod.CancelTool) {
          const p = v.safeParse(CancelToolParams, params);
          if (p.success) this.toolCalls.get(p.output.callId)?.abort();
        } else if (!this.link.takeNotification(method, params)) this.notifyHandlers.get(method)?.(params);
      },
    });
    this.link = transport === "shm" ? this.openSegment() : this.inlineLink();
    void this.readStdin();
  }

  get hello(): HelloResult {
    if (!this.helloResult) throw new HomedError("unavailable", "no hello from the kernel yet");
    return this.helloResult;
  }

  /** The first request: who we are; the kernel answers with config and paths. */
  async sayHello(): Promise<void> {
    const raw = await this.rpc.request(PluginMethod.Hello, {
      name: this.name,
      protocol: PLUGIN_PROTOCOL_VERSION,
      pid: process.pid,
    });
    const r = v.safeParse(HelloResult, raw);
    if (!r.success) throw new HomedError("upstream", `kernel sent a malformed hello: ${describeIssues(r.issues)}`);
    this.helloResult = r.output;
    this.log.level = (r.output.logLevel as LogLevel) ?? "info";
    // Inline bulk data (stdio) is base64 inside a frame: allow frames that large, plus room for JSON.
    this.rpc.setMaxFrameBytes(
      Math.max(this.rpc.maxFrameBytes, Math.ceil((r.output.inlineBulkLimit * 4) / 3) + 64 * 1024),
    );
  }

  request(method: string, params?: unknown, opts?: { timeoutMs?: number }): Promise<unknown> {
    return this.rpc.request(method, params, opts);
  }

  async call<S extends v.GenericSchema>(method: string, params: unknown, schema: S): Promise<v.InferOutput<S>> {
    const raw = await this.rpc.request(method, params);
    const r = v.safeParse(schema, raw);
    if (!r.success)
      throw new HomedError("upstream", `kernel sent a malformed ${method} result: ${describeIssues(r.issues)}`);
    return r.output;
  }

  handle(method: string, handler: Handler): void {
    this.handlers.set(method, handler);
  }

  onNotify(method: string, fn: (params: unknown) => void): void {
    this.notifyHandlers.set(method, fn);
  }

  onConfigChanged<S extends v.GenericSchema>(
    schema: S,
    fn: (value: v.InferOutput<S>, changed: string[]) => void,
  ): void {
    this.onNotify(PluginMethod.ConfigChanged, (params) => {
      const p = v.safeParse(ConfigChangedParams, params);
      const value = p.success ? v.safeParse(schema, p.output.value) : null;
      if (!p.success || !value?.success) {
        const issues = p.success ? (value?.issues ?? []) : p.issues;
        this.log.warn("config/changed not understood; keeping the settings in force", {
          reason: describeIssues(issues),
        });
        return;
      }
      fn(value.output, p.output.changed);
    });
  }

  private turnClient: TurnStreamClient | null = null;

  get turns(): TurnStreamClient {
    if (!this.turnClient) {
      const client = new TurnStreamClient(this, ChannelStreamMethods);
      this.onNotify(ChannelStreamMethods.event, (params) => client.frame(params));
      this.turnClient = client;
    }
    return this.turnClient;
  }

  async ready(facility?: string): Promise<void> {
    if (facility === undefined) await this.rpc.request(PluginMethod.Ready);
    else await this.rpc.request(PluginMethod.FacilityReady, { facility });
    // From the first readiness on, memory a burst left is given back once the plugin is quiet
    // (src/shared/idle-trim.ts), as the daemon does.
    if (this.trimming) return;
    this.trimming = true;
    startIdleTrim((r) => this.log.info("memory given back after a burst", { component: "limits", ...r }));
  }

  emit(type: number, payload: Uint8Array): Promise<void> {
    return this.link.emit(type, payload);
  }

  onEvent(type: number | "*", handler: EventHandler): void {
    const list = this.eventHandlers.get(type) ?? [];
    list.push(handler);
    this.eventHandlers.set(type, list);
  }

  sendBulk(bytes: Uint8Array): Promise<BulkRefFrame> {
    return this.link.sendBulk(bytes);
  }

  readBulk(ref: unknown): Uint8Array {
    return this.link.readBulk(ref);
  }

  releaseBulk(ref: unknown): void {
    this.link.releaseBulk(ref);
  }

  async tool<S extends v.GenericSchema>(opts: ToolOptions<S>): Promise<void> {
    await this.tools([opts as unknown as ToolOptions<v.GenericSchema>]);
  }

  async tools(list: ToolOptions<v.GenericSchema>[]): Promise<void> {
    // One request for the lot, so the model never sees half of a plugin's tools.
    for (const t of list)
      this.toolRuns.set(t.name, { input: t.input, run: t.run as ToolRun, check: t.check as ToolCheck | undefined });
    await this.rpc.request(AgentMethod.RegisterTools, { tools: list.map(toolDefinition) });
  }

  async jsonSchemaTools(list: JsonSchemaTool[]): Promise<void> {
    // One request for the lot, so the model never sees half of a server's tools.
    for (const t of list) this.toolRuns.set(t.name, { input: null, run: t.run });
    await this.rpc.request(AgentMethod.RegisterTools, {
      tools: list.map((t) => ({
        name: t.name,
        description: t.description,
        parameters: t.parameters,
        risk: t.risk,
        approval: t.approval ?? "auto",
        ...(t.untrustedOutput !== undefined ? { untrustedOutput: t.untrustedOutput } : {}),
        ...(t.ownOutput !== undefined ? { ownOutput: t.ownOutput } : {}),
      })),
    });
  }

  async unregisterTools(names: string[]): Promise<void> {
    for (const n of names) this.toolRuns.delete(n);
    await this.rpc.request(AgentMethod.UnregisterTools, { names });
  }

  async stage<S extends StageName>(
    stage: S,
    handler: StageHandlerFn<S>,
    opts: { priority?: number; deadlineMs?: number } = {},
  ): Promise<number> {
    // The handler is stored in the reply's own continuation, and `runStage` waits for
    // registrations in flight, so a stage/run read from the same chunk as the reply finds it.
    const registering = this.rpc.request(AgentMethod.RegisterStages, { handlers: [{ stage, ...opts }] }).then((raw) => {
      const r = v.safeParse(RegisterStagesResult, raw);
      const id = r.success ? r.output.ids[0] : undefined;
      if (id === undefined) throw new HomedError("upstream", "kernel did not register the stage handler");
      this.stageHandlers.set(id, handler as (payload: unknown) => unknown);
      return id;
    });
    this.stageRegistrations.add(registering);
    try {
      return await registering;
    } finally {
      this.stageRegistrations.delete(registering);
    }
  }

  async keepRunning(on: boolean): Promise<void> {
    await this.rpc.request(PluginMethod.KeepRunning, { on });
  }

  onShutdown(fn: () => void | Promise<void>): void {
    this.shutdownHooks.push(fn);
  }

  /** Run the shutdown hooks once, close the link, and exit with `code`. */
  readonly exit = async (code = 0): Promise<never> => {
    if (!this.exiting) {
      this.exiting = true;
      for (const fn of this.shutdownHooks) {
        try {
          await fn();
        } catch (err) {
          this.log.warn("shutdown hook failed", { err });
        }
      }
      this.link.close();
      this.rpc.close("plugin exiting");
      process.exit(code);
    }
    return await new Promise<never>(() => {});
  };

  // ——— internals ———

  private openSegment(): PluginLink {
    const seg = SharedSegment.fromFd(3);
    const shm = new ShmLink({
      buffer: seg.buffer,
      layout: readLayout(seg.buffer),
      role: "plugin",
      doorbellFd: 4,
      onEvent: (type, payload) => this.dispatchEvent(type, payload),
      onHandlerError: (err, type) => this.log.warn("event handler failed", { type, err }),
      onCorrupt: (err) => {
        this.log.error("shared segment corrupt; exiting", { err });
        void this.exit(1);
      },
    });
    void shm.run();
    return new ShmPluginLink(shm);
  }

  private inlineLink(): PluginLink {
    return new StdioPluginLink({
      notify: (method, params) => this.rpc.notify(method, params),
      inlineBulkLimit: () => this.hello.inlineBulkLimit,
      onEvent: (type, payload) => this.dispatchEvent(type, payload),
      onBadEvent: (reason) => this.log.warn("bad event notification", { reason }),
    });
  }

  /** Frames from the kernel. EOF means the kernel is gone: a plugin never outlives it. */
  private async readStdin(): Promise<void> {
    try {
      for await (const chunk of Bun.stdin.stream()) this.rpc.feed(chunk);
    } catch (err) {
      this.log.warn("stdin failed", { err });
    }
    void this.exit(0);
  }

  private dispatchEvent(type: number, payload: Uint8Array): void {
    const mine = this.eventHandlers.get(type);
    if (mine) for (const h of mine) h(payload, type);
    const any = this.eventHandlers.get("*");
    if (any) for (const h of any) h(payload, type);
  }

  /** Requests the kernel makes of us. */
  private async answer(method: string, params: unknown): Promise<unknown> {
    if (method === PluginMethod.Ping) return { pid: process.pid };
    if (method === AgentMethod.RunTool) return await this.runTool(params);
    if (method === AgentMethod.CheckTool) return await this.checkTool(params);
    if (method === AgentMethod.RunStage) return await this.runStage(params);
    const h = this.handlers.get(method);
    if (!h) throw new RpcError(RpcErrorCode.MethodNotFound, `${this.name} has no method ${method}`);
    return await h(params);
  }

  private async runStage(params: unknown): Promise<unknown> {
    const p = parseParams(StageRunParams, params);
    // The kernel answers stages/register before it can run the handler, but both frames may
    // arrive in one chunk: this request is then read before `stage` has stored the id.
    if (!this.stageHandlers.has(p.handler)) await Promise.allSettled([...this.stageRegistrations]);
    const h = this.stageHandlers.get(p.handler);
    if (!h) throw new RpcError(RpcErrorCode.MethodNotFound, `${this.name} has no stage handler ${p.handler}`);
    return (await h(p.payload)) ?? {};
  }

  /**
   * A tool's images as bulk references, after the limits the kernel holds them to (so the tool
   * learns why here, not from a dropped image). Sent only when the call still stands: blocks
   * of an answer nobody reads would hold the arena.
   */
  private async sendImages(
    images: ToolImage[],
    signal: AbortSignal,
  ): Promise<{ mime: string; data: BulkRefFrame; alt?: string }[]> {
    if (images.length > MAX_TOOL_IMAGES)
      throw new Error(`at most ${MAX_TOOL_IMAGES} images per result (got ${images.length})`);
    let total = 0;
    for (const i of images) {
      if (i.data.length > MAX_TOOL_IMAGE_BYTES)
        throw new Error(`an image of ${i.data.length} bytes is over the ${MAX_TOOL_IMAGE_BYTES}-byte limit`);
      total += i.data.length;
    }
    if (total > MAX_TOOL_IMAGES_TOTAL_BYTES)
      throw new Error(`images of ${total} bytes together are over the ${MAX_TOOL_IMAGES_TOTAL_BYTES}-byte limit`);
    if (this.transport === "stdio" && total > this.hello.inlineBulkLimit)
      throw new Error(
        `images of ${total} bytes exceed the stdio transport's inline limit (${this.hello.inlineBulkLimit})`,
      );
    if (signal.aborted) return [];
    const out: { mime: string; data: BulkRefFrame; alt?: string }[] = [];
    for (const i of images) {
      const alt = i.alt ? { alt: i.alt.slice(0, MAX_IMAGE_ALT_CHARS) } : {};
      out.push({ mime: i.mime, data: await this.link.sendBulk(i.data), ...alt });
    }
    return out;
  }

  /** A call's check before the approval question: a refusal's reason, or null (no check, or it passes). */
  private async checkTool(params: unknown): Promise<{ refuse: string | null }> {
    const p = parseParams(CheckToolParams, params);
    const t = this.toolRuns.get(p.name);
    if (!t?.check) return { refuse: null };
    const args = t.input ? v.safeParse(t.input, p.arguments) : { success: true as const, output: p.arguments };
    // Arguments the run would refuse as invalid are the run's to refuse, with its message.
    if (!args.success) return { refuse: null };
    return { refuse: await t.check(args.output, { conv: p.conv }) };
  }

  private async runTool(
    params: unknown,
  ): Promise<{ content: string; isError: boolean; images?: unknown[]; mark?: string; own?: string }> {
    const p = parseParams(RunToolParams, params);
    const t = this.toolRuns.get(p.name);
    if (!t) return { content: `error: ${this.name} has no tool ${p.name}`, isError: true };
    let input: unknown = p.arguments;
    if (t.input) {
      const args = v.safeParse(t.input, p.arguments);
      if (!args.success) return { content: `error: invalid arguments: ${describeIssues(args.issues)}`, isError: true };
      input = args.output;
    }
    const ac = new AbortController();
    this.toolCalls.set(p.callId, ac);
    try {
      const r = await t.run(input, {
        callId: p.callId,
        conv: p.conv,
        untrusted: p.untrusted,
        mark: p.mark ?? null,
        signal: ac.signal,
      });
      if (typeof r === "string") return { content: r, isError: false };
      const images = r.images?.length ? await this.sendImages(r.images, ac.signal) : [];
      const mark = r.mark ? { mark: capMark(r.mark) } : r.own ? { own: capMark(r.own) } : {};
      return { content: r.content, isError: r.isError ?? false, ...(images.length ? { images } : {}), ...mark };
    } catch (err) {
      return { content: `error: ${(err as Error).message}`, isError: true };
    } finally {
      if (this.toolCalls.get(p.callId) === ac) this.toolCalls.delete(p.callId);
    }
  }
}
