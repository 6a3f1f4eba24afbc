/**
 * Methods of the control socket (DATA/homed.sock): what `homed status`, `waiter` and later
 * subcommands may ask the running daemon. Params are validated by the daemon, results by the
 * client — both sides of the socket parse what they receive.
 */
import * as v from "valibot";
import { PluginList, RestartParams } from "./plugin.ts";

export const StatusParams = v.optional(v.strictObject({}));

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

/** Method names, so a typo is a compile error on both sides. */
export const ControlMethod = {
  Status: "status",
  EventAppend: "event.append",
  PluginRestart: "plugin.restart",
} as const;
