/**
 * Run a command for a tool, bound to the tool call's `signal`: when the turn is stopped the
 * process gets SIGTERM, and SIGKILL if it is still there `graceMs` later, so a stopped turn
 * leaves nothing running behind it.
 */

export interface RunProcessOptions {
  /** Usually the tool's `ctx.signal`. */
  signal: AbortSignal;
  cwd?: string;
  env?: Record<string, string>;
  /** Time between SIGTERM and SIGKILL. 2 s: enough to flush and exit, short enough for a person waiting on Stop. */
  graceMs?: number;
  /** Told the pid as soon as the process exists (for logs, or a test that checks it is gone). */
  onStart?: (pid: number) => void;
}

export interface ProcessResult {
  exitCode: number | null;
  /** The signal that ended it, e.g. "SIGTERM"; null when it exited by itself. */
  signalCode: string | null;
  stdout: string;
  stderr: string;
  /** True when it was ended because `signal` fired. */
  cancelled: boolean;
}

const DEFAULT_GRACE_MS = 2000;

export async function runProcess(cmd: string[], opts: RunProcessOptions): Promise<ProcessResult> {
  const proc = Bun.spawn(cmd, { cwd: opts.cwd, env: opts.env, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  opts.onStart?.(proc.pid);
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = () => {
    proc.kill("SIGTERM");
    killTimer = setTimeout(() => proc.kill("SIGKILL"), opts.graceMs ?? DEFAULT_GRACE_MS);
  };
  if (opts.signal.aborted) stop();
  else opts.signal.addEventListener("abort", stop, { once: true });
  try {
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    await proc.exited;
    return {
      exitCode: proc.exitCode,
      signalCode: proc.signalCode === null ? null : String(proc.signalCode),
      stdout,
      stderr,
      cancelled: opts.signal.aborted,
    };
  } finally {
    clearTimeout(killTimer);
    opts.signal.removeEventListener("abort", stop);
  }
}
