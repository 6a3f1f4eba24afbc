/**
 * The sandbox shell_run and code_run share: bubblewrap with the workspace bound read-write as
 * the working directory (/workspace), the system read-only (/usr, /bin, /lib*, /etc less its
 * secrets), a private /tmp, /dev and /proc, no network unless [tools.sandbox] network = true,
 * every namespace unshared, no capabilities, and a clean environment. The data dir, home
 * folders and everything else of the host are simply not there.
 *
 * Where bubblewrap is missing or cannot build its namespaces, the tools refuse with a message
 * saying what to do; they never fall back to running unconfined. Only mode = "none" (the
 * owner's explicit choice) runs commands as the daemon's user, in the workspace, with the same
 * clean environment, time limit and output cap.
 */
import { constants } from "node:os";
import { SANDBOX_PATH, bwrapCannotRun, systemSandboxArgs } from "../../src/shared/bwrap-system.ts";
import { OutputCapture, drainInto } from "./output-capture.ts";
import { descendantsOf, signalEach } from "../../src/shared/process-tree.ts";
import type { SandboxSettings } from "./sandbox-settings.ts";

export { type SandboxSettings, loadSandboxSettings, resolveWorkspace } from "./sandbox-settings.ts";
export { OutputCapture } from "./output-capture.ts";
export { SANDBOX_PATH } from "../../src/shared/bwrap-system.ts";
export { SANDBOX_SKILLS, skillBinds } from "./skill-binds.ts";

/** Where the workspace appears inside the sandbox; also HOME there. */
export const SANDBOX_WORKSPACE = "/workspace";
/** Time between SIGTERM and SIGKILL when a command is stopped. */
const STOP_GRACE_MS = 2000;

export interface SandboxCommand {
  /** What to run, with paths as the command sees them (see `pathInside`). */
  argv: string[];
  /** Variables added to the clean environment. */
  env?: Record<string, string>;
  /** Host files or folders shown read-only at `at` inside the sandbox (mode "none": used in place). */
  roBinds?: { host: string; at: string }[];
}

export interface SandboxLimits {
  /** Capped at the settings' timeoutMs. */
  timeoutMs?: number;
  /** The tool call's signal: stops the command when the turn is stopped. */
  signal?: AbortSignal;
}

export interface SandboxResult {
  exitCode: number | null;
  /** The signal that ended the command, e.g. "SIGKILL". */
  signal: string | null;
  timedOut: boolean;
  /** Stopped by the caller's signal or by `stop()` (shell_kill). */
  stopped: boolean;
  durationMs: number;
  /** The limit that was in force. */
  timeoutMs: number;
  /** output_kb in bytes: what stdout and stderr together may show. */
  outputBytes: number;
  stdout: OutputCapture;
  stderr: OutputCapture;
}

/** The path a command uses for a host path bound with `roBinds`. */
export function pathInside(settings: SandboxSettings, bind: { host: string; at: string }): string {
  return settings.mode === "none" ? bind.host : bind.at;
}

/** The command's working directory and HOME as it sees them. */
export function workspaceInside(settings: SandboxSettings): string {
  return settings.mode === "none" ? settings.workspace : SANDBOX_WORKSPACE;
}

function refusalAdvice(tool: string, why: string): string {
  return `${tool}: ${why}, or set [tools.sandbox] mode = "none" to run unconfined`;
}

const probes = new Map<string, Promise<string | null>>();

/**
 * Why `tool` cannot run commands here, or null when it can. Checks that bwrap is on the search
 * path and, until it once succeeds per bwrap and profile, that it can really build the sandbox
 * (a container or a kernel without unprivileged user namespaces fails there, not at install
 * time). A failure is not remembered: the owner may fix the machine while the plugin runs.
 */
export async function sandboxRefusal(settings: SandboxSettings, tool: string): Promise<string | null> {
  if (settings.mode === "none") return null;
  const data = settings.dataDir;
  if (data !== undefined && (data === settings.workspace || data.startsWith(`${settings.workspace}/`)))
    return `${tool}: the workspace ${settings.workspace} holds the data dir (keys, the log); set the first of [tools.files] roots to a folder that does not contain ${data}`;
  const bwrap = Bun.which("bwrap", { PATH: settings.searchPath });
  if (!bwrap) return refusalAdvice(tool, "bubblewrap (bwrap) is not installed; install the Debian package bubblewrap");
  const key = `${bwrap}\0${settings.network}\0${settings.workspace}`;
  let probe = probes.get(key);
  if (!probe) {
    probe = probeBwrap(bwrap, settings);
    probes.set(key, probe);
  }
  const why = await probe;
  if (why === null) return null;
  probes.delete(key);
  return refusalAdvice(tool, why);
}

async function probeBwrap(bwrap: string, settings: SandboxSettings): Promise<string | null> {
  const proc = Bun.spawn([bwrap, ...bwrapArgs(settings, { argv: ["true"] })], {
    env: cleanEnv(settings, {}),
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code === 0) return null;
  return bwrapCannotRun(stderr.trim().split("\n")[0] || `exit ${code}`);
}

/** bwrap's arguments for `cmd`, up to and including the command itself. */
export function bwrapArgs(settings: SandboxSettings, cmd: SandboxCommand): string[] {
  const a = systemSandboxArgs({ network: settings.network });
  a.push("--bind", settings.workspace, SANDBOX_WORKSPACE, "--chdir", SANDBOX_WORKSPACE);
  for (const b of cmd.roBinds ?? []) a.push("--ro-bind", b.host, b.at);
  a.push("--", ...cmd.argv);
  return a;
}

/** PATH, HOME, LANG, TZ and TMPDIR only — never the daemon's (or the plugin's) environment. */
function cleanEnv(settings: SandboxSettings, extra: Record<string, string>): Record<string, string> {
  const confined = settings.mode !== "none";
  const env: Record<string, string> = {
    PATH: confined ? SANDBOX_PATH : (process.env.PATH ?? SANDBOX_PATH),
    HOME: workspaceInside(settings),
    LANG: process.env.LANG ?? "C.UTF-8",
    TMPDIR: confined ? "/tmp" : (process.env.TMPDIR ?? "/tmp"),
  };
  if (process.env.TZ) env.TZ = process.env.TZ;
  return { ...env, ...extra };
}

/** A running sandboxed command. */
export class SandboxProcess {
  readonly startedAt = Date.now();
  readonly stdout: OutputCapture;
  readonly stderr: OutputCapture;
  /** Settles when the command has ended and its output is read. */
  readonly done: Promise<SandboxResult>;
  private readonly proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  private readonly group: boolean;
  private readonly outputBytes: number;
  private timedOut = false;
  private stopped = false;
  private killTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(settings: SandboxSettings, cmd: SandboxCommand, limits: SandboxLimits) {
    const timeoutMs = Math.min(limits.timeoutMs ?? settings.timeoutMs, settings.timeoutMs);
    const env = cleanEnv(settings, cmd.env ?? {});
    this.stdout = new OutputCapture(settings.outputBytes);
    this.stderr = new OutputCapture(settings.outputBytes);
    this.group = settings.mode === "none";
    this.outputBytes = settings.outputBytes;
    const argv = this.group
      ? cmd.argv
      : [Bun.which("bwrap", { PATH: settings.searchPath }) ?? "bwrap", ...bwrapArgs(settings, cmd)];
    // Unconfined commands get their own process group, so a stop reaches what they started too;
    // in bwrap the pid namespace ends with its first process.
    this.proc = Bun.spawn(argv, {
      cwd: this.group ? settings.workspace : "/",
      env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      detached: this.group,
    });
    const timer = setTimeout(() => {
      this.timedOut = true;
      this.stop();
    }, timeoutMs);
    const onAbort = () => this.stop();
    if (limits.signal?.aborted) this.stop();
    else limits.signal?.addEventListener("abort", onAbort, { once: true });
    this.done = this.finish(timeoutMs, () => {
      clearTimeout(timer);
      limits.signal?.removeEventListener("abort", onAbort);
    });
  }

  private async finish(timeoutMs: number, onExit: () => void): Promise<SandboxResult> {
    const reading = Promise.all([drainInto(this.proc.stdout, this.stdout), drainInto(this.proc.stderr, this.stderr)]);
    await this.proc.exited;
    onExit();
    // What an unconfined command left behind would hold the pipes open: end it like bwrap would.
    if (this.group) this.signalAll("SIGKILL");
    await reading;
    clearTimeout(this.killTimer);
    return {
      exitCode: this.proc.exitCode,
      signal: this.proc.signalCode === null ? this.signalFromStatus() : String(this.proc.signalCode),
      timedOut: this.timedOut,
      stopped: this.stopped,
      durationMs: Date.now() - this.startedAt,
      timeoutMs,
      outputBytes: this.outputBytes,
      stdout: this.stdout,
      stderr: this.stderr,
    };
  }

  /**
   * bwrap reports a command ended by signal N as exit 128+N. Read so only when we sent one: a
   * command may well `exit 143` on its own.
   */
  private signalFromStatus(): string | null {
    const code = this.proc.exitCode;
    if (this.group || this.killTimer === undefined || code === null || code <= 128 || code >= 160) return null;
    const name = Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0];
    return name ?? null;
  }

  get pid(): number {
    return this.proc.pid;
  }

  get running(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /**
   * SIGTERM to the command, SIGKILL to everything after the grace. Unconfined, both go to the
   * command's process group. In bwrap the command and what it started get the SIGTERM (bwrap
   * itself would just die and take them down with SIGKILL); when bwrap has not started the
   * command yet, its namespace's first process is killed at once — signalling only the outer
   * bwrap then could leave that process behind, not yet bound to die with its parent.
   */
  stop(): void {
    if (!this.running || this.killTimer) return;
    if (!this.timedOut) this.stopped = true;
    if (this.group) {
      this.signalAll("SIGTERM");
      this.killTimer = setTimeout(() => this.signalAll("SIGKILL"), STOP_GRACE_MS);
      return;
    }
    const [nsInit, ...command] = descendantsOf(this.proc.pid);
    if (nsInit === undefined) this.signalAll("SIGTERM");
    else if (command.length === 0) signalEach([nsInit], "SIGKILL");
    else signalEach(command, "SIGTERM");
    this.killTimer = setTimeout(() => {
      signalEach(nsInit === undefined ? [] : [nsInit], "SIGKILL");
      this.signalAll("SIGKILL");
    }, STOP_GRACE_MS);
  }

  private signalAll(sig: "SIGTERM" | "SIGKILL"): void {
    try {
      if (this.group) process.kill(-this.proc.pid, sig);
      else this.proc.kill(sig);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Run `cmd` in the sandbox to its end (or its time limit). Returns the refusal text instead when
 * the sandbox cannot run here.
 */
export async function runSandboxed(
  settings: SandboxSettings,
  tool: string,
  cmd: SandboxCommand,
  limits: SandboxLimits = {},
): Promise<SandboxResult | { refused: string }> {
  const refused = await sandboxRefusal(settings, tool);
  if (refused) return { refused };
  return await new SandboxProcess(settings, cmd, limits).done;
}

/** "exit 0", "exit 2", "killed by SIGKILL", "timed out after 1000 ms (SIGTERM)", "stopped (SIGTERM)". */
export function describeEnd(r: SandboxResult): string {
  const how = r.signal ? ` (${r.signal})` : r.exitCode !== null ? ` (exit ${r.exitCode})` : "";
  if (r.timedOut) return `timed out after ${r.timeoutMs} ms and was killed${how}`;
  if (r.stopped) return `stopped${how}`;
  if (r.signal) return `killed by ${r.signal}`;
  return `exit ${r.exitCode}`;
}

/** Whether the model should read the result as a failure. */
export function failed(r: SandboxResult): boolean {
  return r.timedOut || r.stopped || r.signal !== null || r.exitCode !== 0;
}

/**
 * The end, then each stream that said anything, for the model. Both streams together keep to
 * output_kb: each gets half, and what one does not use the other may.
 */
export function formatResult(r: SandboxResult): string {
  const budget = r.outputBytes;
  const outShare = Math.min(r.stdout.kept, Math.max(Math.ceil(budget / 2), budget - r.stderr.kept));
  const errShare = Math.min(r.stderr.kept, budget - outShare);
  const parts = [`${describeEnd(r)}, ${r.durationMs} ms`];
  if (r.stdout.total > 0) parts.push(`--- stdout ---\n${r.stdout.text(outShare)}`);
  if (r.stderr.total > 0) parts.push(`--- stderr ---\n${r.stderr.text(errShare)}`);
  if (r.stdout.total === 0 && r.stderr.total === 0) parts.push("(no output)");
  return parts.join("\n");
}
