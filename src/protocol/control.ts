/**
 * Methods of the control socket (DATA/homed.sock): what `homed status`, `waiter` and later
 * subcommands may ask the running daemon. Params are validated by the daemon, results by the
 * client — both sides of the socket parse what they receive.
 */
import { TokenUsage } from "./usage.ts";
import * as v from "valibot";
import { PluginList, RestartParams } from "./plugin.ts";
import { ConvParams, SceneKey } from "./channel.ts";
import { AllowToolParams } from "./settings.ts";

export const StatusParams = v.optional(v.strictObject({}));

/**
 * One way in for a person or a peer, as `homed status` and the plugins page show it: served by
 * a plugin (web, a2a, qq…: its state) or by the control socket itself (cli, acp: the clients
 * connected now), with the conversations it has started and its latest turn.
 */
export const ChannelStatus = v.object({
  name: v.string(),
  /** "plugin web", "control socket", or "" for a channel only the log knows of. */
  via: v.string(),
  /** The plugin's state, "off", or "listening" for the control socket. */
  state: v.string(),
  detail: v.string(),
  /** Control-socket clients of this channel connected now (0 for plugin channels). */
  connected: v.number(),
  conversations: v.number(),
  /** When its latest turn ended (ms since the epoch), null before the first. */
  lastTurnAt: v.nullable(v.number()),
});
export type ChannelStatus = v.InferOutput<typeof ChannelStatus>;

/**
 * What a control-socket client is, said once after it connects, so `homed status` can count
 * the terminals and editors attached: `homed chat`, waiter, or an editor through `homed acp`.
 */
export const ClientHelloParams = v.strictObject({ client: v.picklist(["chat", "waiter", "acp"]) });
export type ControlClientKind = v.InferOutput<typeof ClientHelloParams>["client"];

/** A backup's outcome as `homed status` and the UI show it (src/kernel/backup.ts writes it). */
export const BackupStateView = v.object({
  /** When it started, epoch ms. */
  at: v.number(),
  ok: v.boolean(),
  dest: v.string(),
  bytes: v.optional(v.number()),
  events: v.optional(v.number()),
  seconds: v.optional(v.number()),
  error: v.optional(v.string()),
});
export type BackupStateView = v.InferOutput<typeof BackupStateView>;

export const StatusResult = v.object({
  version: v.string(),
  pid: v.number(),
  startedAt: v.string(),
  uptimeMs: v.number(),
  dataDir: v.string(),
  listen: v.string(),
  arch: v.string(),
  store: v.object({
    path: v.string(),
    schemaVersion: v.number(),
    events: v.number(),
    sizeBytes: v.number(),
  }),
  plugins: PluginList,
  /** Critical plugins that are down: the kernel denies what they guard until they are back. */
  failClosed: v.array(v.string()),
  llm: v.lazy(() => LlmSettingsView),
  tools: v.array(
    v.object({
      name: v.string(),
      plugin: v.string(),
      risk: v.string(),
      approval: v.string(),
      /** What its output is: the person's own (it says why), untrusted, or undeclared (treated as untrusted). */
      output: v.optional(v.picklist(["own", "untrusted", "undeclared"])),
    }),
  ),
  /** Dense memory: the embedder in use (null: words and concepts only), vectors made, queued. */
  memory: v.object({
    embedder: v.nullable(v.string()),
    vectorsMade: v.number(),
    /** Vectors of image blocks (a CLIP-style model); absent from older daemons. */
    imageVectorsMade: v.optional(v.number()),
    /** Vectors of audio blocks (a CLAP-style model); absent from older daemons. */
    audioVectorsMade: v.optional(v.number()),
    pending: v.number(),
    /** The stable graph (L3): facts in all, current (not superseded or hidden), nodes. Absent from older daemons. */
    l3: v.optional(v.object({ facts: v.number(), current: v.number(), nodes: v.number() })),
  }),
  stages: v.array(v.object({ stage: v.string(), plugin: v.string(), priority: v.number(), deadlineMs: v.number() })),
  /** Agent Skills found: well-formed (of which disabled), and skipped with a reason. Absent from older daemons. */
  skills: v.optional(v.object({ valid: v.number(), disabled: v.number(), invalid: v.number() })),
  /** Absent from an older daemon's answer: a newer client shows none rather than failing. */
  channels: v.optional(v.array(ChannelStatus), []),
  /**
   * Tokens of every finished turn in this data dir, as the providers reported them (cached: read
   * from the provider's prompt cache, part of the input). Absent from older daemons.
   */
  usage: v.optional(
    v.object({ turns: v.number(), inputTokens: v.number(), outputTokens: v.number(), cachedInputTokens: v.number() }),
  ),
  /** The last backup of this data dir (`homed backup`, or a scheduled one); absent when none was taken. */
  backup: v.optional(BackupStateView),
});
export type StatusResult = v.InferOutput<typeof StatusResult>;

/** A single event appended to the log; the reply is sent only after the row is committed. */
export const EventAppendParams = v.strictObject({
  conv: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  kind: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  actor: v.pipe(v.string(), v.maxLength(200)),
  untrusted: v.optional(v.boolean(), false),
  body: v.unknown(),
});
export type EventAppendParams = v.InferOutput<typeof EventAppendParams>;

export const EventAppendResult = v.object({ id: v.number(), ts: v.number() });
export type EventAppendResult = v.InferOutput<typeof EventAppendResult>;

export const PluginRestartParams = RestartParams;

/**
 * Where a provider setting came from, highest first: DATA/llm.json (written by `homed provider`
 * and the web UI), config.toml's [llm] (or its HOMED_LLM_* environment override), or homed's
 * default.
 */
export const LlmSettingSource = v.picklist(["llm.json", "config.toml", "default"]);
export type LlmSettingSource = v.InferOutput<typeof LlmSettingSource>;

/** The fields of the provider settings that have a source. */
export const LLM_SETTING_FIELDS = ["provider", "baseURL", "model", "contextWindow", "maxOutputTokens"] as const;
export type LlmSettingField = (typeof LLM_SETTING_FIELDS)[number];

/** The model provider as a client may see it: the key only as its last four characters. */
export const LlmSettingsView = v.object({
  provider: v.picklist(["", "openai", "anthropic"]),
  baseURL: v.string(),
  model: v.string(),
  contextWindow: v.number(),
  maxOutputTokens: v.number(),
  keyHint: v.string(),
  hasKey: v.boolean(),
  configured: v.boolean(),
  /** "runtime" when DATA/llm.json sets anything, else "config". */
  source: v.picklist(["config", "runtime"]),
  /** Per field, where its value came from (absent from daemons before it was added). */
  sources: v.optional(v.record(v.picklist(LLM_SETTING_FIELDS), LlmSettingSource)),
  /** config.toml's values that llm.json overrides, as text, per field. */
  shadowed: v.optional(v.record(v.picklist(LLM_SETTING_FIELDS), v.string())),
});
export type LlmSettingsView = v.InferOutput<typeof LlmSettingsView>;

/**
 * A change to the provider settings: only the fields given change, the rest keep their value.
 * `baseURL: ""` is the provider's official URL; a new provider without a base URL starts from
 * its official one. A new base URL for the same provider keeps the stored key unless `apiKey`
 * is given.
 */
export const LlmSetParams = v.strictObject({
  provider: v.optional(v.picklist(["openai", "anthropic"], "provider must be openai or anthropic")),
  baseURL: v.optional(v.pipe(v.string(), v.maxLength(2000))),
  model: v.optional(v.pipe(v.string(), v.minLength(1, "model is required"), v.maxLength(200))),
  contextWindow: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1024, "a context window is at least 1024 tokens")),
  ),
  maxOutputTokens: v.optional(v.pipe(v.number(), v.integer(), v.minValue(16))),
  /** Omitted: keep the stored key. Empty string: forget it. */
  apiKey: v.optional(v.pipe(v.string(), v.maxLength(1000))),
});
export type LlmSetParams = v.InferOutput<typeof LlmSetParams>;

export const LlmTestResult = v.object({ ok: v.boolean(), message: v.string(), latencyMs: v.number() });
export type LlmTestResult = v.InferOutput<typeof LlmTestResult>;
/** `kept`: the new settings passed the test and stay; false: the earlier ones are back (`view`). */
export const LlmSetTestedResult = v.object({ view: LlmSettingsView, test: LlmTestResult, kept: v.boolean() });

export const ChatSendParams = v.strictObject({
  text: v.pipe(v.string(), v.minLength(1, "message is empty"), v.maxLength(1_000_000)),
  conv: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200)), "cli"),
  channel: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64)), "cli"),
  /** The message comes from an untrusted source (a bridge relaying a group chat, say). */
  untrusted: v.optional(v.boolean(), false),
  scene: v.optional(SceneKey),
  /** The client's id for the turn: its chat.event frames carry it (default: one the daemon makes up). */
  stream: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
});

export const TurnResultSchema = v.object({
  turn: v.string(),
  conv: v.string(),
  text: v.string(),
  stopReason: v.string(),
  iterations: v.number(),
  usage: TokenUsage,
  error: v.optional(v.string()),
  /** Why the turn failed: an LLM error kind (rate_limit, server, …) or "no_model". */
  errorKind: v.optional(v.string()),
  /** With stopReason "tool_calls": the calls to the client's own tools, for the client to run. */
  toolCalls: v.optional(v.array(v.object({ id: v.string(), name: v.string(), arguments: v.string() }))),
  conversation: v.nullable(v.object({ turns: v.number(), ...TokenUsage.entries })),
});
export type TurnResultView = v.InferOutput<typeof TurnResultSchema>;

/**
 * The turn's stream (src/protocol/turn-stream.ts) on the control socket: chat.send runs a turn,
 * chat.attach follows any conversation's live turn (WatchParams), chat.event carries each frame,
 * chat.answer answers an approval question (the socket is the owner's: any turn's).
 */
export const ChatStreamMethods = {
  send: "chat.send",
  watch: "chat.attach",
  answer: "chat.answer",
  event: "chat.event",
} as const;
/** Stops this connection's own turns, and the ones it re-attached to. */
export const ChatCancelParams = v.optional(v.strictObject({}));
export const ChatCancelResult = v.object({ cancelled: v.number() });

/** Peek at cold memory (L2) of a conversation: what recall would offer for `text`; nothing moves. */
export const MemoryPeekParams = v.strictObject({
  conv: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  text: v.pipe(v.string(), v.minLength(1)),
  k: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 5),
});
export const MemoryPeekResult = v.object({
  l1: v.number(),
  l2: v.number(),
  candidates: v.array(v.object({ id: v.number(), score: v.number(), kind: v.string(), preview: v.string() })),
});

/**
 * Search the person's memory as the `memory_search` tool and the memory page do (trusted
 * conversations, best first). `time`: when the question is asked, epoch milliseconds (for "last
 * week"; default now), so a question from the past is answered as it was then.
 */
export const MemorySearchParams = v.strictObject({
  query: v.pipe(v.string(), v.minLength(1), v.maxLength(4000)),
  k: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 10),
  time: v.optional(v.pipe(v.number(), v.integer())),
});
export const MemorySearchResult = v.object({
  hits: v.array(
    v.object({
      id: v.number(),
      conv: v.string(),
      ts: v.number(),
      role: v.string(),
      text: v.string(),
      score: v.nullable(v.number()),
    }),
  ),
});

/** The conversation list as the web UI shows it (a local client's sidebar). */
export const ConversationsListParams = v.optional(v.strictObject({}));
/** One conversation as a person reads it (channel.ts TranscriptItem), newest `limit` events. */
export const ConversationsMessagesParams = ConvParams;
/**
 * "Always" in answer to an approval: add the tool to `approval_allow` (DATA/settings.json), as
 * the web UI's button does; the person at the socket is the owner.
 */
export const ApprovalAllowParams = AllowToolParams;

/** Method names, so a typo is a compile error on both sides. */
export const ControlMethod = {
  Status: "status",
  EventAppend: "event.append",
  PluginRestart: "plugin.restart",
  LlmGet: "llm.get",
  LlmSet: "llm.set",
  LlmTest: "llm.test",
  /** llm.set, then llm.test; a failed test puts the earlier settings back. */
  LlmSetTested: "llm.set-tested",
  ChatSend: ChatStreamMethods.send,
  ChatCancel: "chat.cancel",
  ChatAttach: ChatStreamMethods.watch,
  ChatAnswer: ChatStreamMethods.answer,
  MemoryPeek: "memory.peek",
  MemorySearch: "memory.search",
  /** A batch of a person's past conversations (`homed import`; src/protocol/import.ts). */
  MemoryImport: "memory.import",
  ConversationsList: "conversations.list",
  ConversationsMessages: "conversations.messages",
  ApprovalAllow: "approval.allow",
  ClientHello: "client.hello",
  /** A link that logs a browser into the web UI once (`homed open`). */
  LoginUrl: "login.url",
  /** Re-read config.toml and settings.json, as SIGHUP does: `homed reload`, the units' ExecReload. */
  ConfigReload: "config.reload",
  /** daemon → client: one frame of a turn the client sent or follows */
  ChatEvent: ChatStreamMethods.event,
} as const;

/** `url`: the web UI, with a one-time login code when a login is needed. */
export const LoginUrlResult = v.object({ url: v.string(), loginRequired: v.boolean() });
