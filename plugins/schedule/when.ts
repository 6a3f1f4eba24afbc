/**
 * When a job runs: what a person or the model says ("in 20 minutes", a time, "every weekday at
 * 8", a cron line) turned into one of two stored forms — a one-shot instant, or a 5-field cron
 * line with an IANA time zone — and the next run after a given instant.
 *
 * The calendar arithmetic is croner's (pinned in package.json): time zones through the
 * runtime's ICU data, and DST handled as cron does it: a fixed-time job ("30 2 * * *") whose
 * time falls in a spring-forward gap runs at the first valid time after it, and once when a
 * fall-back repeats it; an interval job ("30 * * * *") skips the missing hour and runs on both
 * repeated ones. Nothing here reads the clock: every function takes "now" from its caller.
 */
import { Cron } from "croner";

/** A stored schedule: one instant, or a cron line read in `tz`. */
export type Schedule = { kind: "once"; at: number } | { kind: "cron"; cron: string };

/** The structured form of a repeating schedule (schedule_create's `every`). */
export interface Every {
  every: "minute" | "hour" | "day" | "weekday" | "week" | "month";
  /** minute, hour: every this many (a divisor of 60 or 24, so the gaps are equal). */
  interval?: number;
  /** "HH:MM" (day, weekday, week, month); for hour, the minute: ":MM" or "HH:MM" (HH ignored). */
  at?: string;
  /** week: the days, e.g. ["mon", "thu"]. */
  days?: string[];
  /** month: the day of the month (1-31; a month without it is skipped). */
  day?: number;
}

/** What schedule_create was told, exactly one of these set. */
export interface WhenInput {
  in_minutes?: number;
  at?: string;
  cron?: string;
  every?: Every;
}

/** A schedule that cannot be made, in words the model can act on. */
export class WhenError extends Error {}

export const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;

function cronOf(line: string, tz: string): Cron {
  try {
    return new Cron(line, { timezone: tz, mode: "5-part", paused: true });
  } catch (err) {
    throw new WhenError(
      `"${line}" is not a cron line of 5 fields (minute hour day month weekday): ${(err as Error).message.replace(/^CronPattern: /, "")}`,
    );
  }
}

function timeOfDay(at: string | undefined, what: string): { h: number; m: number } {
  if (at === undefined) return { h: 0, m: 0 };
  const m = /^(\d{1,2}):(\d{2})$/.exec(at.trim());
  const h = m ? Number(m[1]) : Number.NaN;
  const min = m ? Number(m[2]) : Number.NaN;
  if (!(h >= 0 && h <= 23 && min >= 0 && min <= 59))
    throw new WhenError(`${what}: "at" must be a time of day as HH:MM (24-hour), e.g. "08:00"; got "${at}"`);
  return { h, m: min };
}

/** The cron line for a structured `every`. */
export function everyToCron(e: Every): string {
  const n = e.interval ?? 1;
  switch (e.every) {
    case "minute":
      if (60 % n !== 0)
        throw new WhenError(
          `every ${n} minutes: the interval must divide 60 (1, 2, 5, 10, 15, 30 …); use cron for other patterns`,
        );
      return n === 1 ? "* * * * *" : `*/${n} * * * *`;
    case "hour": {
      if (24 % n !== 0)
        throw new WhenError(
          `every ${n} hours: the interval must divide 24 (1, 2, 3, 4, 6, 8, 12); use cron for other patterns`,
        );
      const minute = e.at === undefined ? 0 : /^(?:\d{1,2})?:(\d{2})$/.exec(e.at.trim())?.[1];
      if (minute === undefined || Number(minute) > 59)
        throw new WhenError(`every hour: "at" gives the minute as ":MM", e.g. ":15"; got "${e.at}"`);
      return `${Number(minute)} ${n === 1 ? "*" : `*/${n}`} * * *`;
    }
    case "day":
    case "weekday":
    case "week":
    case "month": {
      if (e.interval !== undefined && e.interval !== 1)
        throw new WhenError(`every ${e.every}: "interval" is only for minute and hour; use cron for other patterns`);
      const { h, m } = timeOfDay(e.at, `every ${e.every}`);
      if (e.every === "day") return `${m} ${h} * * *`;
      if (e.every === "weekday") return `${m} ${h} * * 1-5`;
      if (e.every === "month") {
        const d = e.day ?? 1;
        if (!Number.isInteger(d) || d < 1 || d > 31) throw new WhenError(`every month: "day" must be 1-31; got ${d}`);
        return `${m} ${h} ${d} * *`;
      }
      const days = (e.days ?? []).map((d) => d.trim().toLowerCase().slice(0, 3));
      if (days.length === 0) throw new WhenError(`every week: say on which "days", e.g. ["mon", "thu"]`);
      const idx = days.map((d) => WEEKDAYS.indexOf(d as (typeof WEEKDAYS)[number]));
      const bad = days.filter((_, i) => idx[i] === -1);
      if (bad.length) throw new WhenError(`every week: unknown day ${bad.join(", ")} (use ${WEEKDAYS.join(", ")})`);
      return `${m} ${h} * * ${[...new Set(idx)].sort((a, b) => a - b).join(",")}`;
    }
  }
}

/**
 * An ISO date-time as an instant: with "Z" or an offset it is that instant; without, a wall-clock
 * time in `tz` (croner resolves it, DST included).
 */
export function parseInstant(text: string, tz: string): number {
  const s = text.trim();
  if (!/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(s))
    throw new WhenError(
      `"at" must be an ISO date and time such as 2026-12-24T18:00 (in the job's time zone) or 2026-12-24T17:00Z; got "${text}"`,
    );
  const iso = s.replace(" ", "T");
  if (/(Z|[+-]\d{2}:?\d{2})$/i.test(iso)) {
    const t = Date.parse(iso);
    if (Number.isNaN(t)) throw new WhenError(`"at": ${text} is not a valid date`);
    return t;
  }
  const withSeconds = /T\d{2}:\d{2}$/.test(iso) ? `${iso}:00` : iso.replace(/\.\d+$/, "");
  let next: Date | null;
  try {
    next = new Cron(withSeconds, { timezone: tz, paused: true }).nextRun(new Date(0));
  } catch (err) {
    throw new WhenError(`"at": ${text} is not a valid date (${(err as Error).message})`);
  }
  if (!next) throw new WhenError(`"at": ${text} is not a valid date`);
  return next.getTime();
}

/**
 * The stored schedule for what schedule_create was told. Exactly one form must be given; a
 * one-shot time must be in the future.
 */
export function scheduleOf(w: WhenInput, tz: string, now: number): { schedule: Schedule; describe: string } {
  const given = (["in_minutes", "at", "cron", "every"] as const).filter((k) => w[k] !== undefined);
  if (given.length !== 1)
    throw new WhenError(
      given.length === 0
        ? 'say when: one of "in_minutes", "at" (a date and time), "cron" (5 fields) or "every" ({every: "weekday", at: "08:00"})'
        : `give only one of ${given.join(", ")}`,
    );
  if (w.in_minutes !== undefined) {
    const at = now + Math.round(w.in_minutes * 60_000);
    return {
      schedule: { kind: "once", at },
      describe: `once, in ${w.in_minutes} minute${w.in_minutes === 1 ? "" : "s"}`,
    };
  }
  if (w.at !== undefined) {
    const at = parseInstant(w.at, tz);
    if (at <= now)
      throw new WhenError(
        `"at": ${w.at} (${formatInstant(at, tz)}) has already passed; now is ${formatInstant(now, tz)}`,
      );
    return { schedule: { kind: "once", at }, describe: `once, at ${formatInstant(at, tz)}` };
  }
  const line = w.cron !== undefined ? w.cron.trim().replace(/\s+/g, " ") : everyToCron(w.every as Every);
  cronOf(line, tz);
  return { schedule: { kind: "cron", cron: line }, describe: w.every ? describeEvery(w.every) : `cron ${line}` };
}

function describeEvery(e: Every): string {
  const n = e.interval ?? 1;
  switch (e.every) {
    case "minute":
      return n === 1 ? "every minute" : `every ${n} minutes`;
    case "hour":
      return `${n === 1 ? "every hour" : `every ${n} hours`}${e.at ? ` at ${e.at}` : ""}`;
    case "week":
      return `every ${(e.days ?? []).join(", ")} at ${e.at ?? "00:00"}`;
    case "month":
      return `every month on day ${e.day ?? 1} at ${e.at ?? "00:00"}`;
    default:
      return `every ${e.every} at ${e.at ?? "00:00"}`;
  }
}

/** The first run strictly after `after`, or null when there is none (a one-shot that has run). */
export function nextRun(s: Schedule, tz: string, after: number): number | null {
  if (s.kind === "once") return s.at > after ? s.at : null;
  return cronOf(s.cron, tz).nextRun(new Date(after))?.getTime() ?? null;
}

/**
 * The shortest gap between consecutive runs over the next `count` runs after `from` (Infinity
 * for a one-shot): how the minimum interval is enforced for any cron line, DST days included
 * when they fall in the window.
 */
export function shortestGap(s: Schedule, tz: string, from: number, count = 50): number {
  if (s.kind === "once") return Number.POSITIVE_INFINITY;
  const runs = cronOf(s.cron, tz).nextRuns(count, new Date(from));
  let gap = Number.POSITIVE_INFINITY;
  for (let i = 1; i < runs.length; i++)
    gap = Math.min(gap, (runs[i] as Date).getTime() - (runs[i - 1] as Date).getTime());
  return gap;
}

/**
 * "2026-12-24 18:00 UTC+1": an instant as wall-clock time in `tz` with its offset then (zone
 * abbreviations depend on the locale's data; an offset is unambiguous everywhere).
 */
export function formatInstant(t: number, tz: string): string {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: tz,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZoneName: "shortOffset",
  }).formatToParts(new Date(t));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  const offset = get("timeZoneName")
    .replace(/^GMT/, "UTC")
    .replace(/^UTC\+0$/, "UTC");
  return `${get("year")}-${get("month")}-${get("day")} ${get("hour")}:${get("minute")} ${offset}`;
}
