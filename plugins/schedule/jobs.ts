/**
 * The jobs, as state folded from the plugin's records in the log (records/append). A record is
 * never changed: a job is created, fired (with its next run), given a result, or cancelled, each
 * a record of its own, and `JobBook.apply` folds them in order — the same fold at start (every
 * record read back) and while running (each record as it is written), so what a restart
 * rebuilds is what was there before it.
 */
import * as v from "valibot";

const ScheduleData = v.variant("kind", [
  v.object({ kind: v.literal("once"), at: v.number() }),
  v.object({ kind: v.literal("cron"), cron: v.string() }),
]);

/** The record types and their data. */
export const JobRecords = {
  "job-created": v.object({
    id: v.string(),
    title: v.string(),
    prompt: v.string(),
    schedule: ScheduleData,
    /** How the job was asked for, in words ("every weekday at 08:00"). */
    describe: v.string(),
    tz: v.string(),
    /** The conversation whose turn created it ("" when a person did, outside a conversation). */
    createdBy: v.string(),
    /** Created from untrusted input: its turns are untrusted too. */
    untrusted: v.boolean(),
    /**
     * Its prompt was written with untrusted text in view, and where that came from: its runs start
     * marked, and a list that shows the prompt carries the mark.
     */
    mark: v.optional(v.string()),
    createdAt: v.number(),
    next: v.nullable(v.number()),
  }),
  /** A run began (or was skipped): `slot` is the time it was due, `next` the run after it. */
  "job-fired": v.object({
    id: v.string(),
    slot: v.number(),
    at: v.number(),
    next: v.nullable(v.number()),
    skipped: v.optional(v.string()),
  }),
  /** How a run ended: the turn's stop reason and the start of its reply. */
  "job-result": v.object({ id: v.string(), turn: v.string(), stop: v.string(), text: v.string() }),
  "job-cancelled": v.object({ id: v.string(), at: v.number(), by: v.string() }),
} as const;
export type JobRecordType = keyof typeof JobRecords;
export type JobRecordData<T extends JobRecordType> = v.InferOutput<(typeof JobRecords)[T]>;

export type JobCreated = JobRecordData<"job-created">;

export interface Job extends JobCreated {
  /** The next run; null when there is none (a one-shot that ran, a cancelled job). */
  next: number | null;
  cancelled: boolean;
  lastRun: { slot: number; at: number; skipped?: string } | null;
  lastResult: { turn: string; stop: string; text: string } | null;
}

/** A job waits to run: not cancelled and with a next run. */
export const isActive = (j: Job) => !j.cancelled && j.next !== null;

export class JobBook {
  private readonly jobs = new Map<string, Job>();

  /** Fold one record in; a record of an unknown type or with bad data is ignored (and said so). */
  apply(type: string, data: unknown): boolean {
    if (!Object.hasOwn(JobRecords, type)) return false;
    const t = type as JobRecordType;
    const r = v.safeParse(JobRecords[t], data);
    if (!r.success) return false;
    const d = r.output;
    if (t === "job-created") {
      const c = d as JobCreated;
      this.jobs.set(c.id, { ...c, cancelled: false, lastRun: null, lastResult: null });
      return true;
    }
    const job = this.jobs.get((d as { id: string }).id);
    if (!job) return false;
    if (t === "job-fired") {
      const f = d as JobRecordData<"job-fired">;
      job.next = f.next;
      job.lastRun = { slot: f.slot, at: f.at, ...(f.skipped ? { skipped: f.skipped } : {}) };
    } else if (t === "job-result") {
      const { id: _id, ...result } = d as JobRecordData<"job-result">;
      job.lastResult = result;
    } else {
      job.cancelled = true;
      job.next = null;
    }
    return true;
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  /** Every job, oldest first. */
  all(): Job[] {
    return [...this.jobs.values()].sort((a, b) => a.createdAt - b.createdAt);
  }

  active(): Job[] {
    return this.all().filter(isActive);
  }
}
