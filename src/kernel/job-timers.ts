/**
 * Named one-shot timers on the injected clock: one per job (start timeout, SIGKILL grace,
 * restart delay, …), so arming or cancelling one job never touches another's timer, and tests
 * drive every one of them with a fake clock.
 */
import type { Clock } from "./clock.ts";

export class JobTimers<Job extends string> {
  private readonly handles = new Map<Job, unknown>();

  constructor(private readonly clock: Clock) {}

  /** Run `fn` after `ms`, replacing any timer this job already had. */
  set(job: Job, ms: number, fn: () => void): void {
    this.clear(job);
    this.handles.set(
      job,
      this.clock.setTimeout(() => {
        this.handles.delete(job);
        fn();
      }, ms),
    );
  }

  clear(job: Job): void {
    const h = this.handles.get(job);
    if (h === undefined) return;
    this.clock.clearTimeout(h);
    this.handles.delete(job);
  }

  clearAll(): void {
    for (const job of [...this.handles.keys()]) this.clear(job);
  }
}
