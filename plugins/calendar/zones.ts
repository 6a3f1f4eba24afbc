/**
 * Wall-clock times and instants in IANA time zones, with the runtime's ICU data (Intl): an
 * event at 09:00 Europe/Berlin stays at 09:00 across a DST change, because recurrences are
 * expanded in wall time and each occurrence is turned into an instant here.
 */

export interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export { isTimeZone, machineTimeZone } from "../sdk/time-zone.ts";

const formatters = new Map<string, Intl.DateTimeFormat>();
function partsIn(t: number, tz: string): Wall {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(tz, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(t)).map((x) => [x.type, Number(x.value)]));
  return { year: p.year, month: p.month, day: p.day, hour: p.hour, minute: p.minute, second: p.second } as Wall;
}

const asUtc = (w: Wall) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);

/**
 * The instant of wall time `w` in `tz`. A time that occurs twice (clocks going back) is the
 * first of the two, as RFC 5545 says; a time skipped (clocks going forward) moves forward by
 * the gap (02:30 on the spring change is 03:30).
 */
export function wallToInstant(w: Wall, tz: string): number {
  const guess = asUtc(w);
  const offsetAt = (t: number) => asUtc(partsIn(t, tz)) - Math.floor(t / 1000) * 1000;
  const before = offsetAt(guess - 86_400_000);
  const after = offsetAt(guess + 86_400_000);
  const valid = [guess - before, guess - after].filter((t) => offsetAt(t) === guess - t).sort((a, b) => a - b);
  return valid[0] ?? guess - before;
}

export function instantToWall(t: number, tz: string): Wall {
  return partsIn(t, tz);
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** "2026-12-24 18:00 UTC+1" in `tz`. */
export function formatInstant(t: number, tz: string): string {
  const w = partsIn(t, tz);
  const off = Math.round((asUtc(w) - Math.floor(t / 1000) * 1000) / 60_000);
  const sign = off < 0 ? "-" : "+";
  const a = Math.abs(off);
  const offText = off === 0 ? "UTC" : `UTC${sign}${Math.floor(a / 60)}${a % 60 ? `:${pad(a % 60)}` : ""}`;
  return `${w.year}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)} ${offText}`;
}

/** "2026-12-24T18:00" (no zone) of an instant in `tz`, as schedule_create's `at` takes it. */
export function localIso(t: number, tz: string): string {
  const w = partsIn(t, tz);
  return `${w.year}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}`;
}

export class TimeError extends Error {}

/**
 * A time a person gives: "2026-12-24" (a date: all-day), "2026-12-24T18:00" (wall time in
 * `tz`), or with "Z"/an offset (that instant, shown in `tz`).
 */
export function parseTime(
  text: string,
  tz: string,
  what: string,
): { date: true; wall: Wall } | { date: false; wall: Wall; instant: number } {
  const s = text.trim().replace(" ", "T");
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:?\d{2})?)?$/i.exec(s);
  if (!m) throw new TimeError(`${what}: "${text}" is not a date (2026-12-24) or date and time (2026-12-24T18:00)`);
  const wall: Wall = {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4] ?? 0),
    minute: Number(m[5] ?? 0),
    second: Number(m[6] ?? 0),
  };
  const check = new Date(Date.UTC(wall.year, wall.month - 1, wall.day));
  if (check.getUTCMonth() !== wall.month - 1 || check.getUTCDate() !== wall.day || wall.hour > 23 || wall.minute > 59)
    throw new TimeError(`${what}: "${text}" is not a real date and time`);
  if (m[4] === undefined) return { date: true, wall };
  if (m[7]) {
    const instant = Date.parse(s);
    if (Number.isNaN(instant)) throw new TimeError(`${what}: "${text}" is not a valid time`);
    return { date: false, wall: instantToWall(instant, tz), instant };
  }
  return { date: false, wall, instant: wallToInstant(wall, tz) };
}
