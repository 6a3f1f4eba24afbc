/**
 * Memory back after a burst. Under load, the engine keeps what the busy minutes grew: compiled
 * code for the paths the turns ran, heap capacity, and free pages its allocator holds on to. On a
 * 20-stream load the daemon and its web plugin stayed ~40 MiB above idle long after the last turn,
 * and a full collection alone gave back nothing of it (docs/BENCHMARKS.md, "memory back after a burst"). The daemon
 * and each plugin on the SDK (plugins/sdk: from its first readiness) therefore watch their own
 * CPU time and resident memory; once one has been quiet for QUIET_TICKS checks in a row and has
 * grown more than GROWTH_MIB since it was ready or last trimmed, it asks the engine to shrink: a
 * full collection, then JavaScriptCore's shrinkFootprintWhenIdle (drop compiled code, collect
 * again, return the allocator's free memory to the system) — what Bun itself does under memory
 * pressure. The next turn compiles what it runs again (bench/load.ts measures that turn).
 *
 * One trim per burst: after a trim the process is the new reference, so an idle daemon is never
 * trimmed again, and a person chatting now and then only once what the turns left adds up.
 */
import { readFileSync } from "node:fs";
import { descendantsOf } from "./process-tree.ts";

/** Milliseconds between two looks at the process. */
export const TRIM_CHECK_MS = 4000;
/** A check is quiet when the process used less CPU than this share of the time since the last. */
export const QUIET_CPU_SHARE = 0.05;
/** Quiet checks in a row before a trim. */
export const QUIET_TICKS = 2;
/** Growth of resident memory over the reference that is worth a trim. */
export const GROWTH_MIB = 8;

const MiB = 1024 * 1024;

/** What a check reads of the process. */
export interface TrimSample {
  /** CPU time used so far (user + system), in microseconds. */
  cpuUs: number;
  rssBytes: number;
}

/**
 * The decision, apart from the clock and the engine: fed one sample per check, it says when to
 * trim. The first sample, taken when the process is ready, is the first reference: what loading
 * took is not a burst to give back.
 */
export class TrimPolicy {
  private last: TrimSample | null = null;
  /** Resident memory when ready, or once quiet after the last trim; null until then. */
  private reference: number | null = null;
  private quiet = 0;

  constructor(
    private readonly intervalMs = TRIM_CHECK_MS,
    private readonly growthBytes = GROWTH_MIB * MiB,
  ) {}

  /** One check; true when the process should trim now. */
  check(s: TrimSample): boolean {
    const prev = this.last;
    this.last = s;
    if (prev === null) {
      this.reference = s.rssBytes;
      return false;
    }
    const quiet = s.cpuUs - prev.cpuUs < QUIET_CPU_SHARE * this.intervalMs * 1000;
    this.quiet = quiet ? this.quiet + 1 : 0;
    if (!quiet) return false;
    // The first quiet check after a trim reads the reference; memory given back outside a trim
    // (a collection) lowers it.
    this.reference = Math.min(this.reference ?? s.rssBytes, s.rssBytes);
    if (this.quiet < QUIET_TICKS || s.rssBytes - this.reference <= this.growthBytes) return false;
    this.quiet = 0;
    this.reference = null;
    return true;
  }
}

/**
 * Resident memory of a process in bytes, from /proc (0 when it is gone or unreadable); the
 * daemon's memory cap (src/kernel/rss-watchdog.ts) reads its plugins' with it too.
 */
export function processRss(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Resident memory of `pid` and everything under it: a plugin in bubblewrap is two bwrap
 * processes (a few hundred KiB) above the program that holds the memory.
 */
export function processTreeRss(pid: number): number {
  return [pid, ...descendantsOf(pid)].reduce((sum, p) => sum + processRss(p), 0);
}

/** The engine's deeper trim (Bun.shrink, not in Bun's public types); absent, a full collection. */
function shrink(): void {
  Bun.gc(true);
  const deeper = (Bun as unknown as { shrink?: () => void }).shrink;
  if (typeof deeper === "function") deeper();
}

/** What a trim gave back, in MiB, as the next check reads it. */
export interface TrimReport {
  rss_mb_before: number;
  rss_mb_after: number;
}

/** What a test replaces: the process's samples, the engine's trim, the time between checks. */
export interface IdleTrimHooks {
  intervalMs?: number;
  sample?: () => TrimSample;
  shrink?: () => void;
}

function processSample(): TrimSample {
  const c = process.cpuUsage();
  return { cpuUs: c.user + c.system, rssBytes: processRss(process.pid) || process.memoryUsage.rss() };
}

/**
 * Watch this process for the rest of its life (the timer never keeps it alive); `report` hears
 * of each trim at the check after it, when its effect can be read.
 */
export function startIdleTrim(report: (r: TrimReport) => void, hooks: IdleTrimHooks = {}): () => void {
  const { intervalMs = TRIM_CHECK_MS, sample = processSample, shrink: trim = shrink } = hooks;
  const policy = new TrimPolicy(intervalMs);
  const mib = (bytes: number) => Math.round(bytes / MiB);
  let trimmedAt: number | null = null;
  policy.check(sample());
  const timer = setInterval(() => {
    const s = sample();
    if (trimmedAt !== null) report({ rss_mb_before: mib(trimmedAt), rss_mb_after: mib(s.rssBytes) });
    trimmedAt = null;
    if (!policy.check(s)) return;
    trimmedAt = s.rssBytes;
    trim();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
