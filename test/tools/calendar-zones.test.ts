/**
 * The calendar's wall-time arithmetic (plugins/calendar/zones.ts) at the edges: a time the
 * spring change skips, a time the autumn change repeats (the first is meant, RFC 5545), zones
 * with half-hour offsets, and dates that do not exist.
 */
import { describe, expect, test } from "bun:test";
import { formatInstant, parseTime, TimeError, wallToInstant } from "../../plugins/calendar/zones.ts";

const wall = (s: string) => {
  const [d, t] = s.split("T") as [string, string];
  const [year, month, day] = d.split("-").map(Number) as [number, number, number];
  const [hour, minute] = t.split(":").map(Number) as [number, number];
  return { year, month, day, hour, minute, second: 0 };
};

describe("calendar zones", () => {
  test("ordinary times, both sides of DST", () => {
    expect(new Date(wallToInstant(wall("2027-07-01T09:00"), "Europe/Berlin")).toISOString()).toBe(
      "2027-07-01T07:00:00.000Z",
    );
    expect(new Date(wallToInstant(wall("2027-12-01T09:00"), "Europe/Berlin")).toISOString()).toBe(
      "2027-12-01T08:00:00.000Z",
    );
    expect(new Date(wallToInstant(wall("2027-07-01T09:00"), "UTC")).toISOString()).toBe("2027-07-01T09:00:00.000Z");
  });

  test("a skipped time moves forward by the gap; a repeated time is the first", () => {
    const skipped = wallToInstant(wall("2027-03-28T02:30"), "Europe/Berlin");
    expect(formatInstant(skipped, "Europe/Berlin")).toBe("2027-03-28 03:30 UTC+2");
    const repeated = wallToInstant(wall("2027-10-31T02:30"), "Europe/Berlin");
    expect(new Date(repeated).toISOString()).toBe("2027-10-31T00:30:00.000Z");
    expect(formatInstant(repeated, "Europe/Berlin")).toBe("2027-10-31 02:30 UTC+2");
    expect(formatInstant(repeated + 3_600_000, "Europe/Berlin")).toBe("2027-10-31 02:30 UTC+1");
    const ny = wallToInstant(wall("2027-11-07T01:30"), "America/New_York");
    expect(formatInstant(ny, "America/New_York")).toBe("2027-11-07 01:30 UTC-4");
  });

  test("half- and quarter-hour offsets are shown as such", () => {
    expect(formatInstant(Date.parse("2027-01-01T00:00Z"), "Asia/Kolkata")).toBe("2027-01-01 05:30 UTC+5:30");
    expect(formatInstant(Date.parse("2027-01-01T00:00Z"), "Asia/Kathmandu")).toBe("2027-01-01 05:45 UTC+5:45");
    expect(formatInstant(Date.parse("2027-01-01T00:00Z"), "America/St_Johns")).toBe("2026-12-31 20:30 UTC-3:30");
  });

  test("parseTime: dates, wall times, instants, and what is not a date", () => {
    expect(parseTime("2027-02-03", "UTC", "start")).toEqual({ date: true, wall: wall("2027-02-03T00:00") });
    const t = parseTime("2027-02-03T10:00", "Asia/Tokyo", "start");
    expect(t.date === false && new Date(t.instant).toISOString()).toBe("2027-02-03T01:00:00.000Z");
    const z = parseTime("2027-02-03T10:00Z", "Asia/Tokyo", "start");
    expect(z.date === false && z.wall.hour).toBe(19);
    for (const bad of ["2027-02-29", "2027-13-01T10:00", "2027-02-03T24:00", "tomorrow", "2027-2-3"])
      expect(() => parseTime(bad, "UTC", "start")).toThrow(TimeError);
  });
});
