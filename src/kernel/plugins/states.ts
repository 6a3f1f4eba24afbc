/**
 * The plugin lifecycle as data. The supervisor changes a plugin's state only by naming one of
 * these transitions, so this table is the whole state machine: what can happen to a plugin in
 * each state, and where it leads. `homed status` and the web UI show the states; `detail` says
 * why in words.
 */
import type { PluginStateName } from "../../protocol/plugin.ts";

export const PLUGIN_TRANSITIONS = {
  /** Everything it requires is ready (or, lazy, it was asked for): spawn it. */
  launch: { from: ["waiting", "idle"], to: "starting" },
  /** It said hello and announced every facility it provides (or `plugin/ready`). */
  ready: { from: ["starting"], to: "ready" },
  /** The kernel asked it to exit (restart, idle, shutdown); SIGKILL follows after a grace. */
  stop: { from: ["starting", "ready", "stopping"], to: "stopping" },
  /** Exited after a stop for a person's restart: it starts again as soon as it can. */
  "stopped-for-restart": { from: ["stopping"], to: "waiting" },
  /** Exited after an idle stop (lazy plugins): the next request starts it. */
  "stopped-idle": { from: ["stopping"], to: "idle" },
  /** Exited while the kernel stops. */
  "stopped-with-kernel": { from: ["starting", "ready", "stopping"], to: "exited" },
  /** Exited on its own, or killed (start timeout, hung, corrupt ring), or could not spawn. */
  crash: { from: ["starting", "ready"], to: "restarting" },
  /** The crash that ends automatic restarts (4th in 5 minutes): a person must act. */
  "too-many-crashes": { from: ["starting", "ready"], to: "stopped" },
  /** Exit status 78: its configuration is wrong; restarting would not help. */
  "config-error": { from: ["starting", "ready"], to: "failed" },
  /** The restart delay after a crash has passed. */
  "restart-due": { from: ["restarting"], to: "waiting" },
  /** What it waited for was configured (an `enabled_by` setting filled by a reload): start it. */
  enabled: { from: ["disabled"], to: "waiting" },
  /** A person asked for a restart while nothing runs (a running plugin is stopped first). */
  "restart-requested": { from: ["waiting", "idle", "restarting", "stopped", "failed", "exited"], to: "waiting" },
} as const satisfies Record<string, { from: readonly PluginStateName[]; to: PluginStateName }>;

export type PluginTransition = keyof typeof PLUGIN_TRANSITIONS;

/** Where `transition` leads from `state`, or null when the table does not allow it. */
export function nextState(state: PluginStateName, transition: PluginTransition): PluginStateName | null {
  const t = PLUGIN_TRANSITIONS[transition];
  return (t.from as readonly PluginStateName[]).includes(state) ? t.to : null;
}
