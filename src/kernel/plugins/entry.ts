/**
 * What the supervisor keeps per plugin across its processes (state, crash history, timers),
 * and how that is shown to people (`PluginInfo`: `homed status`, the web UI).
 */
import type { PluginInfo, PluginStateName } from "../../protocol/plugin.ts";
import { crashesInWindow } from "../../shared/restart-policy.ts";
import { JobTimers } from "../job-timers.ts";
import type { Clock } from "../clock.ts";
import type { PluginRun } from "./run.ts";
import { describeRoom } from "./sandbox.ts";
import type { PluginSpec } from "./supervisor-options.ts";

/** Each job has its own timer: start timeout, SIGKILL grace, restart delay, idle stop, ping reply. */
export type Job = "start" | "kill" | "restart" | "idle" | "ping";

export interface Entry {
  readonly spec: PluginSpec;
  readonly timers: JobTimers<Job>;
  state: PluginStateName;
  detail: string;
  /** The process now running, if any. */
  run: PluginRun | null;
  /** Crash times still relevant to the policy, and restarts so far. */
  crashes: number[];
  restarts: number;
  restartAt: number | null;
  lastExit: PluginInfo["lastExit"];
  lastStderr: string[];
  /** Lazy plugins: requests in flight (the idle stop waits for none). */
  inFlight: number;
  /** A lazy plugin said it must keep running (plugin/keep-running): never stopped when idle. */
  keepRunning: boolean;
  /** Callers waiting for the plugin to leave "starting". */
  settleWaiters: (() => void)[];
}

/** The entry as `homed status` and the web UI show it. */
export function describeEntry(e: Entry, now: number): PluginInfo {
  const m = e.spec.manifest;
  const proc = e.run?.proc ?? null;
  let detail = e.detail;
  if (e.state === "restarting" && e.restartAt !== null)
    detail = `restarting in ${Math.max(0, Math.ceil((e.restartAt - now) / 1000))} s`;
  return {
    name: m.name,
    builtin: e.spec.builtin,
    transport: m.transport,
    state: e.state,
    detail,
    pid: proc?.alive ? proc.pid : null,
    critical: m.critical,
    lazy: m.lazy,
    provides: m.provides,
    requires: m.requires,
    ready: [...(e.run?.ready ?? [])],
    restarts: e.restarts,
    crashesInWindow: crashesInWindow(e.crashes, now),
    restartAt: e.restartAt === null ? null : new Date(e.restartAt).toISOString(),
    lastExit: e.lastExit,
    stderrTail: proc ? [...proc.stderrTail] : [...e.lastStderr],
    startedAt: proc ? proc.startedAt.toISOString() : null,
    badFrames: proc?.badFrames ?? 0,
    ...(proc ? { frames: { in: proc.rpc.stats.framesIn, out: proc.rpc.stats.framesOut } } : {}),
    ...(e.spec.room ? { sandbox: describeRoom(e.spec) } : {}),
  };
}

/**
 * A plugin's entry before its first start: disabled or blocked with the reason, lazy ones
 * idle until first use, the rest waiting for their facilities.
 */
export function newEntry(
  spec: PluginSpec,
  problem: string | undefined,
  clock: Clock,
  keepRunning: readonly string[],
): Entry {
  const m = spec.manifest;
  return {
    spec,
    timers: new JobTimers(clock),
    state: spec.disabled ? "disabled" : problem ? "blocked" : m.lazy ? "idle" : "waiting",
    detail: spec.disabled ?? problem ?? (m.lazy ? "starts on first use" : "waiting for its facilities"),
    run: null,
    crashes: [],
    restarts: 0,
    restartAt: null,
    lastExit: null,
    lastStderr: [],
    inFlight: 0,
    keepRunning: m.lazy && keepRunning.includes(m.name),
    settleWaiters: [],
  };
}
