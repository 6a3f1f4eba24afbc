/**
 * Scheduled backups ([backup] in config.toml): every `every_hours`, `homed backup` into a new
 * folder `homed-YYYYMMDD-HHMMSS` under `dir`, then the oldest of those beyond `keep` removed. The
 * backup runs as a child process (this binary's own `homed backup`), so a large database's
 * snapshot never stalls the daemon's turns; the child gets the base environment only, no secret
 * of the daemon's. The next one is due `every_hours` after the last one started (whoever took it:
 * a backup by hand counts), read from DATA/backup-state.json, so a restart does not reset the clock.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { childEnvironment } from "../shared/child-env.ts";
import { lastBackup, MANIFEST } from "./backup.ts";
import type { Config } from "./config/config.ts";
import type { Logger } from "./log.ts";
import { selfCommand } from "./plugins/catalog.ts";

/** A scheduled backup's folder name; only such folders are ever removed. */
const NAME = /^homed-\d{8}-\d{6}$/;
/** The longest wait a timer takes (setTimeout's limit); a longer one is waited in steps. */
const MAX_WAIT_MS = 2 ** 31 - 1;
/** After the daemon starts, the first scheduled backup waits at least this long (start is busy enough). */
const AFTER_START_MS = 60_000;

export interface BackupScheduleDeps {
  dataDir: string;
  /** The [backup] section in force (a reload changes it in place). */
  config: () => Config["backup"];
  log: Logger;
  now?: () => number;
  /** Run one backup into `dest` (default: this binary's `homed backup`); rejects with why it failed. */
  run?: (dest: string, secrets: boolean) => Promise<void>;
}

/** `dir` as configured: ~ expanded; null when it is not an absolute path. */
export function backupDir(dir: string): string | null {
  const expanded = dir === "~" ? homedir() : dir.startsWith("~/") ? join(homedir(), dir.slice(2)) : dir;
  return isAbsolute(expanded) ? expanded : null;
}

/** The folder name of a backup started at `at`: homed-YYYYMMDD-HHMMSS in UTC. */
export function backupName(at: number): string {
  const d = new Date(at).toISOString();
  return `homed-${d.slice(0, 10).replace(/-/g, "")}-${d.slice(11, 19).replace(/:/g, "")}`;
}

/** The scheduled backups in `dir` beyond the newest `keep` (only complete ones, named as we name them). */
export function beyondKeep(dir: string, keep: number): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const ours = names.filter((n) => NAME.test(n) && existsSync(join(dir, n, MANIFEST))).sort();
  return ours.slice(0, Math.max(0, ours.length - keep));
}

export class BackupSchedule {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly now: () => number;
  private readonly startedAt: number;

  constructor(private readonly deps: BackupScheduleDeps) {
    this.now = deps.now ?? Date.now;
    this.startedAt = this.now();
  }

  start(): void {
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** When the next backup is due (epoch ms), or null when none is configured. */
  nextDue(): number | null {
    const c = this.deps.config();
    if (!c.dir) return null;
    const last = lastBackup(this.deps.dataDir);
    const due = last ? last.at + c.every_hours * 3_600_000 : this.now();
    return Math.max(due, this.startedAt + AFTER_START_MS);
  }

  /** Wait for the next due time; looked at again then, so a reload's new [backup] is in force. */
  private arm(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    // Nothing configured: look again in an hour (a reload may set it).
    const due = this.nextDue();
    const wait = due === null ? 3_600_000 : Math.max(0, due - this.now());
    this.timer = setTimeout(() => void this.fire(), Math.min(wait, MAX_WAIT_MS));
    this.timer.unref?.();
  }

  private async fire(): Promise<void> {
    this.timer = null;
    const due = this.nextDue();
    if (due !== null && due <= this.now()) await this.runOnce();
    this.arm();
  }

  /** Take one backup now (as scheduled) and prune; resolves when done, whatever the outcome. */
  runOnce(): Promise<void> {
    this.running ??= this.take().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async take(): Promise<void> {
    const c = this.deps.config();
    const log = this.deps.log;
    const dir = backupDir(c.dir);
    if (!dir) {
      log.error("scheduled backup not taken", { dir: c.dir, err: "[backup] dir must be an absolute path (or ~/…)" });
      return;
    }
    const dest = join(dir, backupName(this.now()));
    const run =
      this.deps.run ?? ((d: string, secrets: boolean) => runBackupChild(selfCommand(), this.deps.dataDir, d, secrets));
    try {
      await run(dest, c.secrets);
      log.info("scheduled backup taken", { dest });
    } catch (err) {
      log.error("scheduled backup failed", { dest, err: (err as Error).message });
      return;
    }
    for (const old of beyondKeep(dir, c.keep)) {
      try {
        rmSync(join(dir, old), { recursive: true, force: true });
        log.info("old backup removed", { dest: join(dir, old), keep: c.keep });
      } catch (err) {
        log.warn("old backup not removed", { dest: join(dir, old), err: (err as Error).message });
      }
    }
  }
}

/** `homed backup -data DATA [-secrets] DEST` (`homed`: the command that runs it), with the base environment only. */
export async function runBackupChild(
  homed: readonly string[],
  dataDir: string,
  dest: string,
  secrets: boolean,
): Promise<void> {
  const proc = Bun.spawn([...homed, "backup", "-data", dataDir, ...(secrets ? ["-secrets"] : []), dest], {
    env: childEnvironment(process.env),
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(err.trim().split("\n").at(-1) || `homed backup exited ${code}`);
}
