/**
 * The schedule plugin's time arithmetic (plugins/schedule/when.ts), as units: what each way of
 * saying "when" becomes, and the next run in a time zone across both DST changes of the year.
 * Expected instants are written out in UTC by hand, not computed with the code under test.
 */
import { describe, expect, test } from "bun:test";
import {
  everyToCron,
  formatInstant,
  nextRun,
  parseInstant,
  scheduleOf,
  shortestGap,
  type Schedule,
} from "../../plugins/schedule/when.ts";

const at = (iso: string) => Date.parse(iso);
const runs = (s: Schedule, tz: string, from: string, n: number) => {
  const out: string[] = [];
  let t = at(from);
  for (let i = 0; i < n; i++) {
    const next = nextRun(s, tz, t);
    if (next === null) break;
    out.push(new Date(next).toISOString());
    t = next;
  }
  return out;
};
const cron = (line: string): Schedule => ({ kind: "cron", cron: line });

describe("the structured form becomes cron", () => {
  test("day, weekday, week, month, hour and minute", () => {
    expect(everyToCron({ every: "weekday", at: "08:00" })).toBe("0 8 * * 1-5");
    expect(everyToCron({ every: "day", at: "7:30" })).toBe("30 7 * * *");
    expect(everyToCron({ every: "week", at: "18:05", days: ["thu", "mon"] })).toBe("5 18 * * 1,4");
    expect(everyToCron({ every: "month", day: 15, at: "09:00" })).toBe("0 9 15 * *");
    expect(everyToCron({ every: "hour", at: ":15" })).toBe("15 * * * *");
    expect(everyToCron({ every: "hour", interval: 6 })).toBe("0 */6 * * *");
    expect(everyToCron({ every: "minute", interval: 15 })).toBe("*/15 * * * *");
  });

  test("what cannot be said that way is refused with the reason", () => {
    expect(() => everyToCron({ every: "week", at: "08:00" })).toThrow(/say on which "days"/);
    expect(() => everyToCron({ every: "minute", interval: 7 })).toThrow(/must divide 60/);
    expect(() => everyToCron({ every: "day", at: "25:00" })).toThrow(/HH:MM/);
    expect(() => everyToCron({ every: "day", interval: 2 })).toThrow(/only for minute and hour/);
  });
});

describe("next runs in a time zone", () => {
  test("every weekday at 8 in New York: the weekend is skipped and 8:00 stays 8:00 across the March change", () => {
    // US DST began Sunday 2026-03-08: 8:00 EST is 13:00Z, 8:00 EDT is 12:00Z.
    expect(runs(cron("0 8 * * 1-5"), "America/New_York", "2026-03-05T14:00:00Z", 3)).toEqual([
      "2026-03-06T13:00:00.000Z",
      "2026-03-09T12:00:00.000Z",
      "2026-03-10T12:00:00.000Z",
    ]);
  });

  test("a fixed time inside the spring-forward gap runs once, at the first valid time after it", () => {
    // Berlin, 2026-03-29: 02:00 CET jumps to 03:00 CEST, so 02:30 does not exist that day.
    expect(runs(cron("30 2 * * *"), "Europe/Berlin", "2026-03-28T12:00:00Z", 3)).toEqual([
      "2026-03-29T01:00:00.000Z", // 03:00 CEST
      "2026-03-30T00:30:00.000Z", // 02:30 CEST
      "2026-03-31T00:30:00.000Z",
    ]);
  });

  test("a fixed time the fall-back repeats runs once; an hourly job runs on both repeated hours", () => {
    // Berlin, 2026-10-25: 03:00 CEST falls back to 02:00 CET, so 02:30 happens twice.
    expect(runs(cron("30 2 * * *"), "Europe/Berlin", "2026-10-24T12:00:00Z", 2)).toEqual([
      "2026-10-25T00:30:00.000Z", // 02:30 CEST, the first of the two
      "2026-10-26T01:30:00.000Z", // 02:30 CET
    ]);
    expect(runs(cron("30 * * * *"), "Europe/Berlin", "2026-10-24T23:00:00Z", 4)).toEqual([
      "2026-10-24T23:30:00.000Z", // 01:30 CEST
      "2026-10-25T00:30:00.000Z", // 02:30 CEST
      "2026-10-25T01:30:00.000Z", // 02:30 CET
      "2026-10-25T02:30:00.000Z", // 03:30 CET
    ]);
  });

  test("the next run is strictly after the given instant, and a one-shot has none once passed", () => {
    expect(nextRun(cron("0 8 * * *"), "UTC", at("2026-06-01T08:00:00Z"))).toBe(at("2026-06-02T08:00:00Z"));
    const once: Schedule = { kind: "once", at: at("2026-06-01T08:00:00Z") };
    expect(nextRun(once, "UTC", at("2026-06-01T07:59:59Z"))).toBe(at("2026-06-01T08:00:00Z"));
    expect(nextRun(once, "UTC", at("2026-06-01T08:00:00Z"))).toBeNull();
  });

  test("the shortest gap between runs shows a too-frequent cron line", () => {
    expect(shortestGap(cron("*/5 * * * *"), "UTC", at("2026-06-01T00:00:00Z"))).toBe(5 * 60_000);
    expect(shortestGap(cron("0,1 8 * * *"), "UTC", at("2026-06-01T00:00:00Z"))).toBe(60_000);
  });
});

describe("one-shot times", () => {
  test("a wall-clock time is read in the job's zone, summer and winter; an offset or Z wins", () => {
    expect(new Date(parseInstant("2026-07-01T09:00", "Europe/Berlin")).toISOString()).toBe("2026-07-01T07:00:00.000Z");
    expect(new Date(parseInstant("2026-01-01 09:00:00", "Europe/Berlin")).toISOString()).toBe(
      "2026-01-01T08:00:00.000Z",
    );
    expect(new Date(parseInstant("2026-07-01T09:00Z", "Europe/Berlin")).toISOString()).toBe("2026-07-01T09:00:00.000Z");
    expect(new Date(parseInstant("2026-07-01T09:00+05:30", "UTC")).toISOString()).toBe("2026-07-01T03:30:00.000Z");
    expect(() => parseInstant("tomorrow at 8", "UTC")).toThrow(/ISO date and time/);
  });

  test("scheduleOf: in N minutes, a time, cron, every — exactly one, and not in the past", () => {
    const now = at("2026-06-01T07:00:00Z");
    expect(scheduleOf({ in_minutes: 20 }, "UTC", now).schedule).toEqual({
      kind: "once",
      at: at("2026-06-01T07:20:00Z"),
    });
    expect(scheduleOf({ every: { every: "weekday", at: "08:00" } }, "UTC", now)).toEqual({
      schedule: { kind: "cron", cron: "0 8 * * 1-5" },
      describe: "every weekday at 08:00",
    });
    expect(scheduleOf({ cron: " 0  8 * * 1-5 " }, "UTC", now).schedule).toEqual({ kind: "cron", cron: "0 8 * * 1-5" });
    expect(() => scheduleOf({}, "UTC", now)).toThrow(/say when/);
    expect(() => scheduleOf({ in_minutes: 5, cron: "* * * * *" }, "UTC", now)).toThrow(/only one of in_minutes, cron/);
    expect(() => scheduleOf({ at: "2026-06-01T06:00Z" }, "UTC", now)).toThrow(/has already passed/);
    expect(() => scheduleOf({ cron: "0 8 * *" }, "UTC", now)).toThrow(/not a cron line of 5 fields/);
  });

  test("times are shown as wall-clock time in the zone with its offset then", () => {
    expect(formatInstant(at("2026-12-24T17:00:00Z"), "Europe/Berlin")).toBe("2026-12-24 18:00 UTC+1");
    expect(formatInstant(at("2026-07-01T12:00:00Z"), "America/New_York")).toBe("2026-07-01 08:00 UTC-4");
    expect(formatInstant(at("2026-07-01T12:00:00Z"), "UTC")).toBe("2026-07-01 12:00 UTC");
  });
});
