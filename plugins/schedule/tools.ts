/**
 * The schedule plugin's tool specs (names, words for the model, argument schemas, risk
 * classes). The build imports this file to list the tools in the manifest, so it imports
 * nothing but valibot and the SDK's ToolSpec type.
 */
import * as v from "valibot";
import type { ToolSpec } from "../sdk/tool-spec.ts";

const JobId = v.pipe(v.string(), v.regex(/^[a-z0-9]{4,32}$/, "a job id is what schedule_create returned, e.g. k3v9x2"));

const Every = v.strictObject({
  every: v.pipe(
    v.picklist(["minute", "hour", "day", "weekday", "week", "month"]),
    v.description("minute, hour, day, weekday (Monday to Friday), week (on `days`) or month (on `day`)"),
  ),
  interval: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(60), v.description("minute/hour only: every this many")),
  ),
  at: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(5),
      v.description('Time of day "HH:MM" (24-hour); for every hour the minute as ":MM". Default 00:00.'),
    ),
  ),
  days: v.optional(
    v.pipe(
      v.array(v.picklist(["mon", "tue", "wed", "thu", "fri", "sat", "sun"])),
      v.minLength(1),
      v.description('week only: the days, e.g. ["mon", "thu"]'),
    ),
  ),
  day: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(31), v.description("month only: day of the month")),
  ),
});

const ScheduleCreateArgs = v.strictObject({
  prompt: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(100_000),
    v.description(
      "What the agent is asked each time the job runs, as a message to it (e.g. 'Remind me to water the plants').",
    ),
  ),
  in_minutes: v.optional(
    v.pipe(v.number(), v.minValue(1), v.maxValue(525_600), v.description("Run once, this many minutes from now.")),
  ),
  at: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(40),
      v.description("Run once at this ISO date and time: 2026-12-24T18:00 (in the time zone) or with Z / an offset."),
    ),
  ),
  cron: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(200),
      v.description('Repeat on a 5-field cron line, e.g. "0 8 * * 1-5" (8:00 on weekdays).'),
    ),
  ),
  every: v.optional(v.pipe(Every, v.description('Repeat, e.g. {"every": "weekday", "at": "08:00"}.'))),
  timezone: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(64),
      v.description("IANA time zone of `at`, `cron` and `every`, e.g. Europe/Berlin. Default: the configured one."),
    ),
  ),
  title: v.optional(v.pipe(v.string(), v.maxLength(100), v.description("A short name for lists."))),
});

export const TOOLS = {
  schedule_create: {
    name: "schedule_create",
    examples: [
      "remind me tomorrow at nine",
      "every morning send me the weather",
      "remind me to call mum on sunday",
      "明天早上提醒我",
    ],
    description:
      "Schedule a job: at its time the agent gets `prompt` as a message in the job's own conversation and answers it (it can use tools; those needing approval are refused, since nobody is there to approve). " +
      "Say when with exactly one of in_minutes, at, cron or every. Returns the job id and its next run.",
    input: ScheduleCreateArgs,
    risk: "write",
    ownOutput: "echoes the job the model asked for",
  } satisfies ToolSpec<typeof ScheduleCreateArgs>,
  schedule_list: {
    name: "schedule_list",
    examples: ["what reminders do I have", "show my scheduled jobs"],
    description:
      "List scheduled jobs: id, title or prompt, when, time zone, next run, last run and its result, who created it. Cancelled and finished jobs only with all=true.",
    input: v.strictObject({
      all: v.optional(v.pipe(v.boolean(), v.description("Also list cancelled and finished jobs."))),
    }),
    risk: "read",
    ownOutput: "the jobs the owner and the model made; a prompt written with outside text in view marks the result",
  },
  schedule_cancel: {
    name: "schedule_cancel",
    examples: ["cancel that reminder", "stop the daily summary"],
    description:
      "Cancel a scheduled job by its id (from schedule_create or schedule_list); a run in progress is stopped.",
    input: v.strictObject({ id: JobId }),
    risk: "write",
    ownOutput: "says whether the job was cancelled",
  },
} satisfies Record<string, ToolSpec>;
