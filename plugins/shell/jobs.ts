/**
 * Background jobs of shell_run: each a sandboxed command with its own id (j1, j2, …), its
 * output kept like a foreground command's (head and tail), listed by shell_jobs and ended by
 * shell_kill. At most max_jobs run at once; the ended ones are remembered (the last
 * KEPT_ENDED) so their output can still be read. Every job ends when the plugin stops.
 */
import {
  type SandboxCommand,
  SandboxProcess,
  type SandboxResult,
  type SandboxSettings,
  describeEnd,
} from "./sandbox.ts";

/** Ended jobs remembered for shell_jobs; older ones are forgotten. */
const KEPT_ENDED = 32;

interface Job {
  id: string;
  command: string;
  proc: SandboxProcess;
  result: SandboxResult | null;
}

export class JobTable {
  private readonly jobs = new Map<string, Job>();
  private next = 1;

  constructor(private readonly settings: SandboxSettings) {}

  get runningCount(): number {
    return [...this.jobs.values()].filter((j) => j.result === null).length;
  }

  /** Start a job, or say why not (too many running). */
  start(command: string, cmd: SandboxCommand, timeoutMs?: number): { id: string } | { refused: string } {
    if (this.runningCount >= this.settings.maxJobs)
      return {
        refused: `shell_run: ${this.runningCount} background jobs are running, the most [tools.sandbox] max_jobs allows; end one with shell_kill or wait for one to finish`,
      };
    const id = `j${this.next++}`;
    const job: Job = { id, command, proc: new SandboxProcess(this.settings, cmd, { timeoutMs }), result: null };
    this.jobs.set(id, job);
    void job.proc.done.then((r) => {
      job.result = r;
      this.forgetOld();
    });
    return { id };
  }

  private forgetOld(): void {
    const ended = [...this.jobs.values()].filter((j) => j.result !== null);
    for (const j of ended.slice(0, Math.max(0, ended.length - KEPT_ENDED))) this.jobs.delete(j.id);
  }

  /** One line per job, oldest first. */
  list(): string {
    if (this.jobs.size === 0) return "no background jobs";
    const lines = [...this.jobs.values()].map(
      (j) => `${j.id}\t${this.state(j)}\t${this.runtime(j)}\t${oneLine(j.command)}`,
    );
    return `id\tstate\truntime\tcommand\n${lines.join("\n")}`;
  }

  /** A job's state and the last `tailBytes` of each stream, or null when there is no such job. */
  show(id: string, tailBytes: number): string | null {
    const j = this.jobs.get(id);
    if (!j) return null;
    const parts = [`${j.id}: ${this.state(j)}, ${this.runtime(j)}`, `command: ${j.command}`];
    const out = j.proc.stdout;
    const err = j.proc.stderr;
    if (out.total > 0) parts.push(`--- stdout (${out.total} bytes) ---\n${out.lastText(tailBytes)}`);
    if (err.total > 0) parts.push(`--- stderr (${err.total} bytes) ---\n${err.lastText(tailBytes)}`);
    if (out.total === 0 && err.total === 0) parts.push("(no output yet)");
    return parts.join("\n");
  }

  /** End a job (SIGTERM, then SIGKILL) and wait for it; null when there is no such job. */
  async kill(id: string): Promise<string | null> {
    const j = this.jobs.get(id);
    if (!j) return null;
    if (j.result) return `${id} had already ended: ${describeEnd(j.result)}`;
    j.proc.stop();
    const r = await j.proc.done;
    return `${id} ${describeEnd(r)} after ${r.durationMs} ms`;
  }

  /** Known ids, for an error message. */
  ids(): string[] {
    return [...this.jobs.keys()];
  }

  /** End every job (the plugin is stopping). */
  async stopAll(): Promise<void> {
    const running = [...this.jobs.values()].filter((j) => j.result === null);
    for (const j of running) j.proc.stop();
    await Promise.all(running.map((j) => j.proc.done));
  }

  private state(j: Job): string {
    return j.result ? describeEnd(j.result) : "running";
  }

  private runtime(j: Job): string {
    const ms = j.result ? j.result.durationMs : Date.now() - j.proc.startedAt;
    return `${(ms / 1000).toFixed(1)} s`;
  }
}

function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > 120 ? `${flat.slice(0, 117)}…` : flat;
}
