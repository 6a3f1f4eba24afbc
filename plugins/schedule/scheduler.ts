/**
 * Fires jobs on time. One wake is armed for the soonest job; when it comes, every job due by
 * then fires: a `job-fired` record (with the next run, counted from now, not from the missed
 * slot) is written before the turn starts, so a daemon that was down for three slots runs the
 * job once on start, and a crash during a run never repeats it. The run's end is a
 * `job-result` record. A job still running when its next slot comes skips that slot.
 */
import type { SchedulerClock } from "./clock.ts";
import type { Job, JobBook, JobRecordData, JobRecordType } from "./jobs.ts";
import { nextRun } from "./when.ts";

/** How a job's turn ended. */
export interface RunOutcome {
  turn: string;
  stop: string;
  text: string;
}

export interface SchedulerDeps {
  book: JobBook;
  clock: SchedulerClock;
  /** Append a record to the log and fold it into the book. */
  record<T extends JobRecordType>(type: T, data: JobRecordData<T>): Promise<void>;
  /** Run the job's prompt as a turn in its conversation; `signal` stops it. */
  runTurn(job: Job, signal: AbortSignal): Promise<RunOutcome>;
  log: { info(msg: string, f?: Record<string, unknown>): void; warn(msg: string, f?: Record<string, unknown>): void };
  /** A run began or ended (whether the plugin has work may have changed). */
  changed?: () => void;
}

/** How long after a failed round (a record the kernel refused) the due jobs are tried again. */
const RETRY_MS = 5000;

/** Characters of a run's reply kept in its result record (the turn's own events keep all). */
const RESULT_CHARS = 300;

export class Scheduler {
  private cancelWake: (() => void) | null = null;
  private readonly running = new Map<string, AbortController>();
  private firing = false;
  private stopped = false;
  /** After a failed round (the log would not take a record), no new round before this. */
  private retryAt = 0;

  constructor(private readonly d: SchedulerDeps) {}

  /** Jobs running now, by id. */
  isRunning(id: string): boolean {
    return this.running.has(id);
  }

  /** Whether any job is running now. */
  get busy(): boolean {
    return this.running.size > 0;
  }

  /** Look at the book again (after a job was created or cancelled, and at start). */
  rearm(): void {
    if (this.stopped) return;
    this.cancelWake?.();
    this.cancelWake = null;
    const soonest = this.d.book
      .active()
      .map((j) => j.next as number)
      .sort((a, b) => a - b)[0];
    if (soonest === undefined) return;
    this.cancelWake = this.d.clock.wakeAt(Math.max(soonest, this.retryAt), () => {
      this.cancelWake = null;
      void this.fireDue();
    });
  }

  /** Fire every job due now; then arm the next wake. Runs are not awaited: one slow job holds no other. */
  async fireDue(): Promise<void> {
    if (this.firing || this.stopped) return;
    this.firing = true;
    try {
      const now = this.d.clock.now();
      // In the order they were due, so what was due first runs first.
      const due = this.d.book
        .active()
        .filter((j) => (j.next as number) <= now)
        .sort((a, b) => (a.next as number) - (b.next as number));
      for (const job of due) {
        const slot = job.next as number;
        const next = nextRun(job.schedule, job.tz, now);
        if (this.running.has(job.id)) {
          await this.d.record("job-fired", {
            id: job.id,
            slot,
            at: now,
            next,
            skipped: "the previous run was still going",
          });
          this.d.log.warn("job slot skipped: previous run still going", { job: job.id });
          continue;
        }
        await this.d.record("job-fired", { id: job.id, slot, at: now, next });
        this.d.log.info("job fired", {
          job: job.id,
          late_ms: now - slot,
          next: next === null ? "none" : new Date(next).toISOString(),
        });
        this.start(job);
      }
    } catch (err) {
      // The due jobs stay due: try again shortly, not in a tight loop.
      this.retryAt = this.d.clock.now() + RETRY_MS;
      this.d.log.warn("firing jobs failed; trying again shortly", { err: (err as Error).message });
    } finally {
      this.firing = false;
      this.rearm();
    }
  }

  /** Stop a job's run in progress (it was cancelled). */
  stopRun(id: string): boolean {
    const ac = this.running.get(id);
    ac?.abort();
    return ac !== undefined;
  }

  /** Stop arming wakes and stop the runs in progress (shutdown). */
  stop(): void {
    this.stopped = true;
    this.cancelWake?.();
    for (const ac of this.running.values()) ac.abort();
  }

  private start(job: Job): void {
    const ac = new AbortController();
    this.running.set(job.id, ac);
    this.d.changed?.();
    void (async () => {
      let outcome: RunOutcome;
      try {
        outcome = await this.d.runTurn(job, ac.signal);
      } catch (err) {
        outcome = { turn: "", stop: "error", text: `the run failed: ${(err as Error).message}` };
      }
      this.running.delete(job.id);
      this.d.changed?.();
      const text = outcome.text.length > RESULT_CHARS ? `${outcome.text.slice(0, RESULT_CHARS)}…` : outcome.text;
      this.d.log.info("job run finished", { job: job.id, turn: outcome.turn, stop: outcome.stop });
      await this.d
        .record("job-result", { id: job.id, turn: outcome.turn, stop: outcome.stop, text })
        .catch((err) => this.d.log.warn("job result not recorded", { job: job.id, err: (err as Error).message }));
    })();
  }
}
