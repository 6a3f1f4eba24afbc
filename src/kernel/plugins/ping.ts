/**
 * Liveness: the supervisor pings every ready plugin each interval; a plugin that leaves
 * `pingMisses` pings in a row unanswered is killed as hung (and so counts as crashed).
 */
import { PluginMethod } from "../../protocol/plugin.ts";
import type { Logger } from "../log.ts";
import type { Entry } from "./entry.ts";
import type { PluginRun } from "./run.ts";

export interface PingOptions {
  pingIntervalMs: number;
  pingMisses?: number;
  log: Logger;
}

/**
 * One liveness ping. The reply must come within half the interval, timed on the clock; the
 * request's own (real-time) timeout only bounds how long an unanswered request is kept.
 */
export function pingPlugin(e: Entry, run: PluginRun, opts: PingOptions): void {
  const proc = run.proc;
  const seq = ++run.pingSeq;
  // Below the interval, so this ping's verdict is in before the next ping replaces the timer.
  const replyMs = Math.min(opts.pingIntervalMs, Math.max(100, opts.pingIntervalMs / 2));
  e.timers.set("ping", replyMs, () => {
    if (e.run !== run || !proc.alive) return;
    run.missedPings++;
    if (run.missedPings >= (opts.pingMisses ?? 3)) {
      proc.stderrTail.push(`[homed: ${run.missedPings} pings unanswered; killed as hung]`);
      opts.log.warn("plugin hung; killing it", { plugin: e.spec.manifest.name, missed: run.missedPings });
      proc.kill("SIGKILL");
    }
  });
  proc.rpc.request(PluginMethod.Ping, undefined, { timeoutMs: Math.max(1000, opts.pingIntervalMs * 4) }).then(
    () => {
      if (e.run !== run || run.pingSeq !== seq) return;
      e.timers.clear("ping");
      run.missedPings = 0;
    },
    () => {}, // exited or very late: the clock's timer has counted it
  );
}
