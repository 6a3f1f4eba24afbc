/**
 * The schedule plugin's Scheduler as a unit, with a hand-moved clock and records kept in memory:
 * the cases the binary's tests cannot reach without waiting — a run still going when its next
 * slot comes, and a log that refuses a record for a while. (The plugin's own clock and record
 * writer are replaced; everything the Scheduler decides is what the plugin does.)
 */
import { describe, expect, test } from "bun:test";
import type { SchedulerClock } from "../../plugins/schedule/clock.ts";
import { JobBook, type JobRecordData, type JobRecordType } from "../../plugins/schedule/jobs.ts";
import { type RunOutcome, Scheduler } from "../../plugins/schedule/scheduler.ts";

const T0 = Date.parse("2026-06-01T07:00:00Z");
const MIN = 60_000;

function handClock(): SchedulerClock & { advance(ms: number): Promise<void> } {
  let now = T0;
  const wakes = new Set<{ at: number; fn: () => void }>();
  return {
    now: () => now,
    wakeAt(at, fn) {
      const w = { at, fn };
      wakes.add(w);
      return () => wakes.delete(w);
    },
    close: () => wakes.clear(),
    async advance(ms) {
      now += ms;
      for (const w of [...wakes]) if (w.at <= now && wakes.delete(w)) w.fn();
      // Let the rounds the wakes started write their records.
      for (let i = 0; i < 20; i++) await Promise.resolve();
    },
  };
}

function rig() {
  const clock = handClock();
  const book = new JobBook();
  const log: { type: string; data: Record<string, unknown> }[] = [];
  const runs: { resolve(o: RunOutcome): void; signal: AbortSignal }[] = [];
  let refuse = 0;
  const scheduler = new Scheduler({
    book,
    clock,
    log: { info() {}, warn() {} },
    async record<T extends JobRecordType>(type: T, data: JobRecordData<T>) {
      if (refuse > 0) {
        refuse--;
        throw new Error("database is locked");
      }
      log.push({ type, data: data as Record<string, unknown> });
      book.apply(type, data);
    },
    runTurn: (_job, signal) => new Promise<RunOutcome>((resolve) => runs.push({ resolve, signal })),
  });
  const create = (id: string, cron: string) => {
    book.apply("job-created", {
      id,
      title: id,
      prompt: id,
      schedule: { kind: "cron", cron },
      describe: cron,
      tz: "UTC",
      createdBy: "test",
      untrusted: false,
      createdAt: T0,
      next: T0 + MIN,
    });
    scheduler.rearm();
  };
  return { clock, book, log, runs, scheduler, create, refuseNext: (n: number) => (refuse = n) };
}

describe("Scheduler", () => {
  test("a run still going when its next slot comes skips that slot; its result is recorded when it ends", async () => {
    const r = rig();
    r.create("tick", "* * * * *");
    await r.clock.advance(MIN);
    expect(r.runs.length).toBe(1);
    await r.clock.advance(MIN);
    expect(r.runs.length).toBe(1);
    expect(r.log.map((x) => [x.type, x.data.slot, x.data.skipped ?? null])).toEqual([
      ["job-fired", T0 + MIN, null],
      ["job-fired", T0 + 2 * MIN, "the previous run was still going"],
    ]);
    r.runs[0]!.resolve({ turn: "t1", stop: "done", text: "tock" });
    await r.clock.advance(0);
    expect(r.log.at(-1)).toEqual({ type: "job-result", data: { id: "tick", turn: "t1", stop: "done", text: "tock" } });
    await r.clock.advance(MIN);
    expect(r.runs.length).toBe(2);
  });

  test("a record the log refuses is tried again after a pause, not in a loop", async () => {
    const r = rig();
    r.refuseNext(1);
    r.create("daily", "0 8 * * *");
    // The clock reaches the first run and its record is refused once.
    await r.clock.advance(MIN);
    expect(r.runs.length).toBe(0);
    await r.clock.advance(4_999);
    expect(r.runs.length).toBe(0);
    await r.clock.advance(1);
    expect(r.runs.length).toBe(1);
    expect(r.log.filter((x) => x.type === "job-fired").length).toBe(1);
  });

  test("stopping a run aborts its turn's signal", async () => {
    const r = rig();
    r.create("long", "0 * * * *");
    await r.clock.advance(MIN);
    expect(r.scheduler.busy).toBe(true);
    expect(r.scheduler.stopRun("long")).toBe(true);
    expect(r.runs[0]!.signal.aborted).toBe(true);
    expect(r.scheduler.stopRun("other")).toBe(false);
  });
});
