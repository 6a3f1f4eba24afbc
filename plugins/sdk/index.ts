/**
 * What a TypeScript plugin imports to join the kernel.
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
import type * as v from "valibot";
import { HomedError } from "../../src/protocol/errors.ts";
import type { BulkRefFrame, HelloResult } from "../../src/protocol/plugin.ts";
import type { StageName, RiskClass, StagePayloads, StageResult } from "../../src/protocol/agent.ts";
import type { PluginLogger } from "./log.ts";
import type { TurnStreamClient } from "../../src/ipc/turn-stream-client.ts";
import { PluginConnection } from "./plugin-connection.ts";
import type { ToolSpec } from "./tool-spec.ts";
import type { ImageMime } from "../../src/protocol/images.ts";

export { type ToolSpec, toolDefinition } from "./tool-spec.ts";

export { TurnStreamClient, type TurnListener } from "../../src/ipc/turn-stream-client.ts";
export { runProcess, type ProcessResult, type RunProcessOptions } from "./run-process.ts";
export { getBlock } from "./blocks.ts";
export { clientKey, type GuessCheck, GuessLimiter } from "./guess-limiter.ts";
export { PLUGIN_EXIT_CONFIG } from "../../src/protocol/plugin.ts";
export { EventType } from "../../src/protocol/events.ts";
export {
  type ImageMime,
  MAX_TOOL_IMAGE_BYTES,
  MAX_TOOL_IMAGES,
  MAX_TOOL_IMAGES_TOTAL_BYTES,
} from "../../src/protocol/images.ts";
export type { BulkRefFrame, HelloResult, PluginLogger };

export type Handler = (params: unknown) => unknown | Promise<unknown>;

export interface ToolContext {
  callId: string;
  conv: string;
  /** The call came from input marked untrusted (a group chat, a web page): be careful. */
  untrusted: boolean;
  /**
   * Untrusted text was in the model's view when it made the call, and where from; null when none.
   * What the tool keeps of the call and shows again later (a job's prompt) should carry it on.
   */
  mark: string | null;
  /**
   * Fires when the turn that made this call is stopped (the kernel's `tool/cancel`): stop work,
   * end processes you started (`runProcess` does that), and return soon — the answer is ignored.
   */
  signal: AbortSignal;
}

/**
 * An image a tool returns (a screenshot): its bytes and type (the kernel checks the type itself),
 * and optionally what it shows (`alt`, at most MAX_IMAGE_ALT_CHARS), which memory indexes.
 */
export interface ToolImage {
  mime: ImageMime;
  data: Uint8Array;
  alt?: string;
}

/**
 * What a tool's run returns: text for the model, or text marked as an error, with up to
 * MAX_TOOL_IMAGES images (each ≤ MAX_TOOL_IMAGE_BYTES, together ≤ MAX_TOOL_IMAGES_TOTAL_BYTES;
 * src/protocol/images.ts). Images travel as bulk data; the model sees them when it takes images.
 */
export type ToolReturn =
  | string
  | {
      content: string;
      isError?: boolean;
      images?: ToolImage[];
      /** This answer carries text written with untrusted text in view, and where that came from. */
      mark?: string;
      /** Why this answer is the person's own though the tool's output is not in general (built-in plugins only). */
      own?: string;
    };

/** A tool: its spec (tool-spec.ts) and its code. Arguments are validated before `run` sees them. */
export interface ToolOptions<S extends v.GenericSchema> extends ToolSpec<S> {
  run(args: v.InferOutput<S>, ctx: ToolContext): ToolReturn | Promise<ToolReturn>;
  /**
   * For a spec that `checks`: why `run` would refuse these arguments (said to the model, and no
   * one is asked about the call), or null. Called before the approval question; `run` must still
   * refuse on its own (the check may not be asked, or the world may change in between).
   */
  check?(args: v.InferOutput<S>, ctx: { conv: string }): string | null | Promise<string | null>;
}

/** A spec from tools.ts with its code (and its check), typed by the spec's schema. */
export function withRun<S extends v.GenericSchema>(
  spec: ToolSpec<S>,
  run: ToolOptions<S>["run"],
  check?: ToolOptions<S>["check"],
): ToolOptions<S> {
  return check ? { ...spec, run, check } : { ...spec, run };
}

/** A tool described by a JSON Schema (for jsonSchemaTools). */
export interface JsonSchemaTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  risk: RiskClass;
  approval?: "auto" | "ask";
  /** Its output is outside text (ToolSpec.untrustedOutput); a tool that says neither is treated so. */
  untrustedOutput?: boolean;
  /** Why its output is the person's own (ToolSpec.ownOutput). */
  ownOutput?: string;
  run(args: unknown, ctx: ToolContext): ReturnType<ToolOptions<v.GenericSchema>["run"]>;
}

export type StageHandlerFn<S extends StageName> = (
  payload: StagePayloads[S],
) => StageResult<S> | undefined | Promise<StageResult<S> | undefined>;
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
   * Follow this plugin's section of config.toml: after a reload changed it, `fn` gets the new
   * section (as config/get answers it, checked with `schema`) and the dotted paths that changed.
   * Sent to plugins whose settings say `reload: "live"`; a section that does not fit `schema` is
   * logged and the old settings stay.
   */
  onConfigChanged<S extends v.GenericSchema>(schema: S, fn: (value: v.InferOutput<S>, changed: string[]) => void): void;
  /**
   * Send turns and follow them (a channel plugin): chat/send, chat/watch and chat/answer through
   * the one stream client (src/protocol/turn-stream.ts), the kernel's chat/event frames routed to it.
   */
  readonly turns: TurnStreamClient;
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
  /** Offer several tools in one registration (the model never sees half of them). */
  tools(list: ToolOptions<v.GenericSchema>[]): Promise<void>;
  /**
   * Offer tools whose arguments are described by JSON Schemas you already have (e.g. from an
   * MCP server), in one registration. The kernel validates arguments before `run` sees them.
   */
  jsonSchemaTools(tools: JsonSchemaTool[]): Promise<void>;
  /** Withdraw tools this plugin registered. */
  unregisterTools(names: string[]): Promise<void>;
  /**
   * Act at one of the seven stages of every turn (lower priority runs first). The handler may
   * be called as soon as the kernel has answered, even before the returned promise settles.
   */
  stage<S extends StageName>(
    stage: S,
    handler: StageHandlerFn<S>,
    opts?: { priority?: number; deadlineMs?: number },
  ): Promise<number>;
  /**
   * A lazy plugin with work on a clock (scheduled jobs) says it must keep running (`true`) or
   * may be stopped when idle again (`false`). The kernel remembers the last word across its own
   * restarts and starts the plugin at boot while it is `true`. No effect on eager plugins.
   */
  keepRunning(on: boolean): Promise<void>;
  /** Run `fn` before exiting on shutdown or kernel loss. */
  onShutdown(fn: () => void | Promise<void>): void;
  /** Clean exit with `code` (78 = configuration error: the kernel will not restart us). */
  exit(code?: number): Promise<never>;
}

const encoder = new TextEncoder();

/** Join the kernel: open the link, say hello, and return the plugin's handle. */
export async function connectPlugin(opts: { name?: string } = {}): Promise<Plugin> {
  const name = opts.name ?? process.env.HOMED_PLUGIN_NAME ?? "";
  const transport = process.env.HOMED_PLUGIN_TRANSPORT === "stdio" ? "stdio" : "shm";
  if (!name) throw new HomedError("usage", "HOMED_PLUGIN_NAME is not set: plugins are started by homed");
  const connection = new PluginConnection(name, transport);
  await connection.sayHello();
  return connection;
}

/** UTF-8 JSON as event payload bytes (for the kernel's own event types). */
export function jsonPayload(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}
