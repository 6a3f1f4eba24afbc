/**
 * What the kernel's method tables (control.ts, channel-methods.ts, plugin-methods.ts) may use
 * of the kernel: a narrow view, so they do not import `Kernel` (which imports them) and a
 * handler's reach is visible in one place. `Kernel.services()` builds it.
 */
import type { TurnStreams } from "./turn-streams.ts";
import type { WebLogin } from "./web-login.ts";
import type { Supervisor } from "./plugins/supervisor.ts";
import type { ControlClients } from "./channel-status.ts";
import type { Agent } from "../agent/agent.ts";
import type { RpcPeer } from "../ipc/rpc-peer.ts";
import type { Memory } from "../memory/memory.ts";
import type { StatusResult } from "../protocol/control.ts";
import type { ImportedConversation, MemoryImportResult } from "../protocol/import.ts";
import type { BulkRefFrame, PluginInfo } from "../protocol/plugin.ts";
import type { BlockRecord } from "../protocol/blocks.ts";
import type { Store } from "../store/store.ts";
import type { SettingsSection } from "./config/sections.ts";
import type { Config } from "./config/config.ts";
import type { ReloadResult, SettingsPatch, SettingsSaveResult, SettingsView } from "../protocol/settings.ts";
import type { LlmSettings } from "./config/llm-settings.ts";
import type { ProviderModels } from "./provider-models.ts";
import type { KernelL3 } from "./distill-runner.ts";
import type { SkillCatalog } from "../skills/skill-catalog.ts";

/** The other end of a chat: a control-socket client or a channel plugin's RPC link. */
export type ChatPeer = Pick<RpcPeer, "notify" | "request" | "onClose">;

/** The plugins, as the method tables see them. */
export interface PluginServices {
  /** Restart `name` now (HomedError not_found / conflict when it cannot be). */
  restart(name: string): PluginInfo;
  isBuiltin(name: string): boolean;
  /** The link to a running plugin, to stream a turn back to it; undefined when it is not running. */
  peer(name: string): ChatPeer | undefined;
  /** The plugin that provides a facility (e.g. media.extract), running or not; null when none does. */
  provider(facility: string): string | null;
  /** Call a plugin's method, starting it first when it is lazy and idle. */
  request(name: string, method: string, params: unknown, timeoutMs: number): Promise<unknown>;
}

export interface KernelServices {
  readonly store: Pick<
    Store,
    | "append"
    | "conversationUsage"
    | "listConversations"
    | "recentConversationEvents"
    | "renameConversation"
    | "forgetConversation"
    | "clearMark"
    | "setConversationModel"
    | "conversationModel"
    | "turnUsage"
    | "appendPluginRecord"
    | "pluginRecords"
  >;
  readonly memory: Pick<Memory, "add" | "layerIds" | "peekCold" | "prepare">;
  /** A batch of a person's past conversations into the log and memory (src/memory/import-conversations.ts). */
  importConversations(channel: string, conversations: readonly ImportedConversation[]): MemoryImportResult;
  readonly agent: Pick<Agent, "run" | "lastContext" | "searchMemory" | "forgetContext" | "scenes">;
  /** The stable graph (L3): facts, their history, corrections; the distillation job. */
  readonly l3: Pick<KernelL3, "graph" | "recall" | "runNow">;
  /** Running turns by conversation, for clients that re-attach (`chat.attach`). */
  readonly streams: TurnStreams;
  readonly llm: Pick<LlmSettings, "view" | "set" | "setTested" | "model" | "candidate">;
  /** The configured model and the provider's list, cached. */
  readonly models: Pick<ProviderModels, "list">;
  readonly plugins: PluginServices;
  /** The configuration in force, which plugins read parts of (config/get); approval's timeout bounds every question. */
  readonly config: Config;
  /** The sections of config.toml plugins own (config-sections.ts). */
  readonly settingsSections: readonly SettingsSection[];
  /**
   * A plugin's bulk bytes (copied out, the reference released), the block store they go to, block
   * records, and bytes handed to a plugin (its arena on shm, base64 on stdio up to the limit).
   */
  readonly blocks: {
    take(plugin: string, ref: unknown): Uint8Array;
    release(plugin: string, ref: unknown): void;
    put(bytes: Uint8Array): string;
    read(sha256: string): Uint8Array | null;
    /** The file a block lives in under DATA/blocks (whether or not it exists). */
    path(sha256: string): string;
    /** A block record; null when there is none, or its conversation was forgotten. */
    record(id: number): BlockRecord | null;
    send(plugin: string, bytes: Uint8Array): Promise<BulkRefFrame>;
  };
  /** The web login token in force (config.toml, or DATA/web-token). */
  readonly loginToken: string;
  /** Where the web UI listens, and its one-time login links (`homed open`). */
  readonly webLogin: WebLogin;
  /** The values of these daemon environment variables that are set (an MCP server's env_passthrough). */
  passThrough(names: readonly string[]): Record<string, string>;
  /** The UI's settings (DATA/settings.json over config.toml) and the reload a save or SIGHUP does. */
  readonly settings: {
    view(): SettingsView;
    set(patch: SettingsPatch): SettingsSaveResult;
    reload(why: string): ReloadResult;
  };
  /** DATA/secrets.json's named values (an MCP server's header_secrets), read now. */
  secretValues(): Record<string, string>;
  status(): StatusResult;
  /** The daemon's metrics in Prometheus's text format (src/kernel/metrics.ts). */
  metrics(): string;
  /** The control socket's clients that said what they are (`client.hello`), for the status. */
  readonly clients: Pick<ControlClients, "hello">;
  /** Agent Skills found (src/skills), for the Skills page. */
  readonly skills: SkillCatalog;
}

/**
 * The plugins as the method tables see them, over the supervisor — read when a method is called,
 * since the supervisor is made after the tables it serves.
 */
export function pluginServices(
  supervisor: () => Pick<Supervisor, "restart" | "isBuiltin" | "process" | "list" | "request">,
): PluginServices {
  return {
    restart: (name) => supervisor().restart(name),
    isBuiltin: (name) => supervisor().isBuiltin(name),
    peer: (name) => supervisor().process(name)?.rpc,
    // An enabled plugin that declares it (running, or lazy and idle); blocked and disabled ones cannot answer.
    provider: (facility) =>
      supervisor()
        .list()
        .find((p) => p.provides.includes(facility) && !["disabled", "blocked"].includes(p.state))?.name ?? null,
    request: (name, method, params, timeoutMs) => supervisor().request(name, method, params, timeoutMs),
  };
}
