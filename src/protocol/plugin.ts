/**
 * The kernel↔plugin control protocol: JSON-RPC methods on the plugin's stdin/stdout, their
 * params and results. Both sides validate with these schemas.
 *
 * Handshake: the plugin's first request is `plugin/hello`; the reply carries what it needs to
 * run (config, data dir). It then sends `facility/ready` for each facility its manifest
 * provides; when the last is announced the plugin is ready. A plugin that provides nothing
 * says `plugin/ready` once its handlers are registered.
 */
import * as v from "valibot";
import { SectionPath } from "./plugin-settings.ts";

export const PLUGIN_PROTOCOL_VERSION = 1;

/** Exit status by which a plugin says "my configuration is wrong": never restarted. */
export const PLUGIN_EXIT_CONFIG = 78;

export const PluginMethod = {
  Hello: "plugin/hello",
  FacilityReady: "facility/ready",
  Ready: "plugin/ready",
  List: "plugins/list",
  Restart: "plugins/restart",
  KernelStatus: "kernel/status",
  /**
   * The daemon's metrics in Prometheus's text format (KernelMetricsResult; docs/metrics.md):
   * built-in plugins only — the web plugin serves them at GET /metrics behind its login.
   */
  KernelMetrics: "kernel/metrics",
  /** A section of the daemon's configuration a plugin needs (e.g. mcp). */
  ConfigGet: "config/get",
  /**
   * A lazy plugin says it must keep running ({on: true}: it has work on a clock, e.g. scheduled
   * jobs) or may be stopped when idle again ({on: false}). Remembered across daemon restarts:
   * a lazy plugin that last said "on" is started at boot.
   */
  KeepRunning: "plugin/keep-running",
  /** Append one of the calling plugin's own records to the log (see RecordsAppendParams). */
  RecordsAppend: "records/append",
  /** The calling plugin's records, oldest first, after an id (paged). */
  RecordsList: "records/list",
  /** Store bytes a channel received (an image in a message) in DATA/blocks; built-in plugins only. */
  BlocksPut: "blocks/put",
  /** A block record by id with its bytes as bulk (src/protocol/blocks.ts); built-in plugins only. */
  BlocksGet: "blocks/get",
  /**
   * The built-in plugin that provides LOGIN_FACILITY is listening at `origin` (as a person on this machine reaches it):
   * the kernel prints the link to open, with a one-time login code where a login is needed, and
   * `homed open` makes more of them for that origin.
   */
  LoginListening: "login/listening",
  /** The built-in plugin that provides LOGIN_FACILITY redeems a one-time login code (src/kernel/login-links.ts). */
  LoginRedeem: "login/redeem",
  /** kernel → plugin: its section of config.toml changed on a reload (ConfigChangedParams). */
  ConfigChanged: "config/changed",
  /** kernel → plugin: please exit cleanly. */
  Shutdown: "plugin/shutdown",
  /** kernel → plugin: liveness check. */
  Ping: "plugin/ping",
  /** stdio transport: an event, since there is no ring. */
  Event: "event",
} as const;

/**
 * Which kernel facility a plugin must name in its manifest's `requires` to call a kernel method,
 * by the method's area (the part before the slash). Methods of the plugin's own lifecycle
 * (hello, readiness, keep-running, the plugin list, restarting itself), kernel/status and
 * config/get need none. The kernel holds external plugins to this table; a method outside it
 * and outside those is not answered for them at all (docs/plugins.md lists it).
 */
export const METHOD_FACILITIES: Readonly<Record<string, string>> = {
  tools: "kernel.agent",
  stages: "kernel.agent",
  chat: "kernel.agent",
  conversations: "kernel.agent",
  context: "kernel.agent",
  memory: "kernel.agent",
  records: "kernel.store",
  blocks: "kernel.store",
  llm: "kernel.llm",
  settings: "kernel.control",
  scenes: "kernel.control",
  l3: "kernel.control",
};

/** Methods every plugin may call without declaring a facility. */
export const UNGATED_METHODS: readonly string[] = [
  "plugin/hello",
  "facility/ready",
  "plugin/ready",
  "plugin/keep-running",
  "plugins/list",
  "plugins/restart",
  "kernel/status",
  "config/get",
];

/** kernel/metrics: every series, as one scrape's body in Prometheus's text format. */
export const KernelMetricsResult = v.object({ text: v.string() });
/** The Content-Type of that body: version 0.0.4 of the text format, what every Prometheus reads. */
export const PROMETHEUS_TEXT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** The facility `method` needs ("" for none), or null when it is no method of the table. */
export function methodFacility(method: string): string | null {
  if (UNGATED_METHODS.includes(method)) return "";
  const area = method.slice(0, method.indexOf("/"));
  return method.includes("/") ? (METHOD_FACILITIES[area] ?? null) : null;
}

export const HelloParams = v.strictObject({
  name: v.string(),
  protocol: v.number(),
  pid: v.number(),
});

export const HelloResult = v.object({
  kernelVersion: v.string(),
  dataDir: v.string(),
  listen: v.string(),
  logLevel: v.string(),
  /** stdio transport: largest bulk payload accepted inline (bytes, before base64). */
  inlineBulkLimit: v.number(),
});
export type HelloResult = v.InferOutput<typeof HelloResult>;

/** A record's JSON is at most this many bytes: records are state, not bulk data. */
export const MAX_RECORD_BYTES = 64 * 1024;
/** Records one records/list answer carries at most. */
export const MAX_RECORDS_PAGE = 1000;

/**
 * A plugin's own state in the append-only log: `type` is the plugin's name for what happened
 * ("job-created"), `data` its payload. Records are never changed: a later record says what
 * changed, and the plugin rebuilds its state by reading them all back in order.
 */
export const RecordsAppendParams = v.strictObject({
  type: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]{0,63}$/, "a record type is lower-case letters, digits and dashes")),
  data: v.pipe(
    v.unknown(),
    v.check(
      (d) => (JSON.stringify(d ?? null)?.length ?? 0) <= MAX_RECORD_BYTES,
      `a record is at most ${MAX_RECORD_BYTES} bytes of JSON`,
    ),
  ),
});
export const RecordsAppendResult = v.object({ id: v.number(), ts: v.number() });

export const RecordsListParams = v.strictObject({
  /** Records with a larger id than this (0: from the first). */
  after: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(0)), 0),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_RECORDS_PAGE)), MAX_RECORDS_PAGE),
});
export const PluginRecord = v.object({ id: v.number(), ts: v.number(), type: v.string(), data: v.unknown() });
export type PluginRecord = v.InferOutput<typeof PluginRecord>;
export const RecordsListResult = v.array(PluginRecord);

export const KeepRunningParams = v.strictObject({ on: v.boolean() });

export const FacilityReadyParams = v.strictObject({ facility: v.string() });

export const RestartParams = v.strictObject({ name: v.string() });

/**
 * A section of config.toml a plugin may read: "approval", "agent", a plugin's section
 * ("tools.<name>", "channels.<name>", "plugins.<name>") or a table of them ("tools", "channels"). A section its plugin's settings mark built-in only
 * (tokens, resolved secrets) is refused to external plugins, and an external plugin's section
 * to every plugin but its own.
 */
export const ConfigGetParams = v.strictObject({ section: SectionPath });

/**
 * waiting: for required facilities · idle: lazy, starts on use · disabled: turned off by
 * configuration · starting · ready · restarting: after a crash · stopped: after repeated crashes
 * · failed: exit 78 · blocked: cannot run (bad manifest, missing facility) · stopping · exited.
 */
export const PluginStateName = v.picklist([
  "waiting",
  "idle",
  "disabled",
  "starting",
  "ready",
  "restarting",
  "stopped",
  "failed",
  "blocked",
  "stopping",
  "exited",
]);
export type PluginStateName = v.InferOutput<typeof PluginStateName>;

export const PluginInfo = v.object({
  name: v.string(),
  builtin: v.boolean(),
  transport: v.picklist(["shm", "stdio"]),
  state: PluginStateName,
  /** Why it is in that state, in words a person can act on. */
  detail: v.string(),
  pid: v.nullable(v.number()),
  critical: v.boolean(),
  lazy: v.boolean(),
  provides: v.array(v.string()),
  requires: v.array(v.string()),
  ready: v.array(v.string()),
  restarts: v.number(),
  crashesInWindow: v.number(),
  /** When the next automatic restart happens (ISO time), if one is scheduled. */
  restartAt: v.nullable(v.string()),
  lastExit: v.nullable(v.object({ code: v.nullable(v.number()), signal: v.nullable(v.string()), at: v.string() })),
  stderrTail: v.array(v.string()),
  startedAt: v.nullable(v.string()),
  badFrames: v.number(),
  /** JSON-RPC frames the kernel read from it and wrote to it since it started. */
  frames: v.optional(v.object({ in: v.number(), out: v.number() })),
  /** External plugins: the sandbox they run in, in words (absent for built-in ones). */
  sandbox: v.optional(v.string()),
});
export type PluginInfo = v.InferOutput<typeof PluginInfo>;

export const PluginList = v.array(PluginInfo);

/** A bulk payload in a frame: a segment reference (shm) or inline base64 (stdio). */
export const BulkRefSchema = v.union([
  v.strictObject({
    off: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
    len: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  }),
  v.strictObject({ b64: v.string() }),
]);
export type BulkRefFrame = v.InferOutput<typeof BulkRefSchema>;

/** stdio transport: `event` notification params. */
export const EventParams = v.strictObject({
  type: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(0xffff)),
  data: v.string(), // base64
});

/**
 * blocks/put: an image's bytes (bulk); the answer names its block (src/protocol/images.ts).
 * `as: "attachment"` takes any type an attachment may be (src/protocol/attachments.ts: images,
 * audio, video, documents) instead of images only.
 */
export const BlocksPutParams = v.strictObject({
  data: BulkRefSchema,
  as: v.optional(v.picklist(["image", "attachment"]), "image"),
});

/**
 * A plugin that binds the daemon's listen address (hello.listen): while one that provides this
 * is enabled, the kernel checks the address can be bound before it starts anything, so a busy
 * port stops homed with a clear error instead of a plugin that crashes in a loop.
 */
export const LISTEN_FACILITY = "http.listen";
/**
 * A plugin that logs people in with the kernel's one-time links (login/listening,
 * login/redeem): only a built-in one that provides this may call those methods.
 */
export const LOGIN_FACILITY = "http.login";

export const LoginListeningParams = v.strictObject({
  origin: v.pipe(v.string(), v.regex(/^http:\/\/\S+:\d+$/)),
  loginRequired: v.boolean(),
});
export const LoginRedeemParams = v.strictObject({ code: v.pipe(v.string(), v.maxLength(64)) });
export const LoginRedeemResult = v.object({ ok: v.boolean() });
