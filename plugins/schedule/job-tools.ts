/**
 * What schedule_create, schedule_list and schedule_cancel do, apart from the plugin's wiring:
 * the limits ([tools.schedules]), the job's stored form, and text the model can act on.
 */
import type * as v from "valibot";
import type { ToolContext, ToolReturn } from "../sdk/index.ts";
import type { SchedulerClock } from "./clock.ts";
import { type Job, type JobBook, type JobRecordData, type JobRecordType, isActive } from "./jobs.ts";
import type { Scheduler } from "./scheduler.ts";
import type { TOOLS } from "./tools.ts";
import { isTimeZone, machineTimeZone } from "../sdk/time-zone.ts";
import { formatInstant, nextRun, scheduleOf, shortestGap, WhenError } from "./when.ts";

export interface ScheduleLimits {
  /** "" = the machine's. */
  timezone: string;
  max_jobs: number;
  min_interval_minutes: number;
  max_prompt_chars: number;
}

export interface JobToolsDeps {
  book: JobBook;
  scheduler: Scheduler;
  clock: SchedulerClock;
  limits: ScheduleLimits;
  record<T extends JobRecordType>(type: T, data: JobRecordData<T>): Promise<void>;
}

/** The conversation a job's turns run in (listed with the others in the UI). */
export const jobConversation = (id: string) => `schedule:${id}`;

type Args<K extends keyof typeof TOOLS> = v.InferOutput<(typeof TOOLS)[K]["input"]>;

const fail = (content: string): ToolReturn => ({ content: `error: ${content}`, isError: true });
const oneLine = (s: string, n: number) => {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};

function newId(book: JobBook): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (;;) {
    const bytes = crypto.getRandomValues(new Uint8Array(6));
    const id = [...bytes].map((b) => alphabet[b % alphabet.length]).join("");
    if (!book.get(id)) return id;
  }
}

export function jobTools(d: JobToolsDeps) {
  const defaultTz = () => d.limits.timezone || machineTimeZone();

  async function create(args: Args<"schedule_create">, ctx: ToolContext): Promise<ToolReturn> {
    const tz = args.timezone ?? defaultTz();
    if (!isTimeZone(tz))
      return fail(`"timezone": ${tz} is not an IANA time zone (e.g. Europe/Berlin, America/New_York, UTC)`);
    if (args.prompt.length > d.limits.max_prompt_chars)
      return fail(
        `the prompt has ${args.prompt.length} characters; a job's prompt may have ${d.limits.max_prompt_chars} ([tools.schedules] max_prompt_chars). Shorten it.`,
      );
    const active = d.book.active().length;
    if (active >= d.limits.max_jobs)
      return fail(
        `${active} jobs are already waiting to run, the limit ([tools.schedules] max_jobs); cancel one with schedule_cancel first`,
      );
    const now = d.clock.now();
    let made: ReturnType<typeof scheduleOf>;
    try {
      made = scheduleOf(args, tz, now);
    } catch (err) {
      if (err instanceof WhenError) return fail(err.message);
      throw err;
    }
    const minGap = d.limits.min_interval_minutes * 60_000;
    const gap = shortestGap(made.schedule, tz, now);
    if (gap < minGap)
      return fail(
        `${made.describe} would run every ${Math.round(gap / 60_000)} minute(s) at times; the shortest interval allowed is ${d.limits.min_interval_minutes} ([tools.schedules] min_interval_minutes)`,
      );
    const next = nextRun(made.schedule, tz, now);
    if (next === null) return fail(`${made.describe} never runs (no such date); check the schedule`);
    const id = newId(d.book);
    await d.record("job-created", {
      id,
      title: args.title ?? oneLine(args.prompt, 60),
      prompt: args.prompt,
      schedule: made.schedule,
      describe: made.describe,
      tz,
      createdBy: ctx.conv,
      untrusted: ctx.untrusted,
      ...(ctx.mark ? { mark: ctx.mark } : {}),
      createdAt: now,
      next,
    });
    d.scheduler.rearm();
    return `Scheduled job ${id} (${made.describe}, ${tz}). Next run: ${formatInstant(next, tz)}. Each run is a turn in the conversation ${jobConversation(id)}; tools that need approval are refused there.`;
  }

  function describeJob(j: Job): string {
    const state = j.cancelled ? "cancelled" : j.next === null ? "finished" : "enabled";
    const when =
      j.schedule.kind === "cron" && !j.describe.startsWith("cron")
        ? `${j.describe} (cron ${j.schedule.cron})`
        : j.describe;
    const last = j.lastRun
      ? `last run ${formatInstant(j.lastRun.at, j.tz)}${
          j.lastRun.skipped
            ? ` (skipped: ${j.lastRun.skipped})`
            : d.scheduler.isRunning(j.id)
              ? " (running now)"
              : j.lastResult
                ? ` (${j.lastResult.stop}: "${oneLine(j.lastResult.text, 120)}")`
                : ""
        }`
      : "never run yet";
    return [
      `- ${j.id} · ${state} · "${j.title}"`,
      `  when: ${when}, time zone ${j.tz}; next run: ${j.next === null ? "none" : formatInstant(j.next, j.tz)}; ${last}`,
      `  prompt: ${oneLine(j.prompt, 200)}`,
      `  created by ${j.createdBy || "a person"}${j.untrusted ? " (untrusted input)" : ""}${j.mark ? ` (written with untrusted text in view, from ${j.mark})` : ""}; runs in ${jobConversation(j.id)}`,
    ].join("\n");
  }

  function list(args: Args<"schedule_list">): ToolReturn {
    const jobs = args.all ? d.book.all() : d.book.active();
    if (jobs.length === 0) return args.all ? "No jobs were ever scheduled." : "No jobs are scheduled.";
    const content = `${jobs.length} job${jobs.length === 1 ? "" : "s"}${args.all ? "" : " waiting to run"}:\n${jobs.map(describeJob).join("\n")}`;
    // A prompt the model wrote with untrusted text in view is that text's, shown again here.
    const marked = jobs.find((j) => j.mark !== undefined);
    return marked ? { content, mark: `the prompt of job ${marked.id} (written with ${marked.mark} in view)` } : content;
  }

  async function cancel(args: Args<"schedule_cancel">, ctx: ToolContext): Promise<ToolReturn> {
    const job = d.book.get(args.id);
    if (!job) {
      const ids = d.book.active().map((j) => j.id);
      return fail(`there is no job ${args.id}; jobs waiting to run: ${ids.join(", ") || "none"}`);
    }
    if (!isActive(job) && !d.scheduler.isRunning(job.id))
      return fail(`job ${job.id} is already ${job.cancelled ? "cancelled" : "finished"}`);
    await d.record("job-cancelled", { id: job.id, at: d.clock.now(), by: ctx.conv });
    const stopped = d.scheduler.stopRun(job.id);
    d.scheduler.rearm();
    return `Cancelled job ${job.id} ("${job.title}")${stopped ? "; its run in progress was stopped" : ""}.`;
  }

  return { create, list, cancel };
}
