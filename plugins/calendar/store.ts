/**
 * The calendar on disk: DATA/calendar/<uid>.ics, one VCALENDAR per event (the master and its
 * moved or changed occurrences, which share its UID), parsed and written with ical.js. Writes
 * go to a temporary file renamed over the old one. Recurrences are expanded by ical.js in wall
 * time; each occurrence becomes an instant in its TZID (zones.ts; a VTIMEZONE an imported file
 * carries for a non-IANA name is registered with ical.js and used instead).
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ICAL from "ical.js";
import { isTimeZone, wallToInstant } from "./zones.ts";

export class CalendarError extends Error {}

export interface Entry {
  uid: string;
  file: string;
  cal: ICAL.Component;
}

export interface Occurrence {
  uid: string;
  start: number;
  end: number;
  allDay: boolean;
  title: string;
  location: string;
  description: string;
  rrule: string;
  remindMinutes: number | null;
  tz: string;
  /** The occurrence's original start in the series (its RECURRENCE-ID), as a floating wall time. */
  recurrence: string;
}

/** How deep into a series one listing walks (occurrences before the range count too). */
const MAX_STEPS = 100_000;
const DAY_MS = 86_400_000;

export const PRODID = "-//homed//calendar plugin//EN";

/** A file name for a UID: itself when plain, else a hash of it. */
function fileOf(uid: string): string {
  return /^[A-Za-z0-9@._-]{1,120}$/.test(uid) && !uid.startsWith(".")
    ? `${uid}.ics`
    : `${createHash("sha256").update(uid).digest("hex").slice(0, 32)}.ics`;
}

/** Register the VTIMEZONEs of `cal` whose names Intl does not know, for ical.js to convert with. */
export function registerZones(cal: ICAL.Component): void {
  for (const vtz of cal.getAllSubcomponents("vtimezone")) {
    const tzid = String(vtz.getFirstPropertyValue("tzid") ?? "");
    if (tzid && !isTimeZone(tzid) && !ICAL.TimezoneService.has(tzid)) ICAL.TimezoneService.register(vtz);
  }
}

/** The instant of `t` (a DTSTART/DTEND value or an occurrence of one) whose property said `tzid`. */
export function instantOf(t: ICAL.Time, tzid: string | null, isUtc: boolean, fallbackTz: string): number {
  const wall = { year: t.year, month: t.month, day: t.day, hour: t.hour, minute: t.minute, second: t.second };
  if (isUtc) return Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
  if (tzid && isTimeZone(tzid)) return wallToInstant(wall, tzid);
  if (tzid && ICAL.TimezoneService.has(tzid)) {
    const z = ICAL.TimezoneService.get(tzid);
    const copy = ICAL.Time.fromData({ ...wall, isDate: false }, z ?? undefined);
    return copy.toUnixTime() * 1000;
  }
  return wallToInstant(wall, fallbackTz);
}

export function propTz(comp: ICAL.Component, name: string): { tzid: string | null; utc: boolean } {
  const p = comp.getFirstProperty(name);
  if (!p) return { tzid: null, utc: false };
  const tzid = p.getParameter("tzid");
  const value = p.getFirstValue() as ICAL.Time | null;
  return { tzid: typeof tzid === "string" ? tzid : null, utc: value?.zone === ICAL.Timezone.utcTimezone };
}

export class CalendarStore {
  /** Files the last `all()` could not read as a calendar (edited by hand, say), by name. */
  unreadable: string[] = [];

  constructor(readonly dir: string) {}

  all(): Entry[] {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const out: Entry[] = [];
    this.unreadable = [];
    for (const file of readdirSync(this.dir).sort()) {
      if (!file.endsWith(".ics") || file.startsWith(".")) continue;
      try {
        const cal = new ICAL.Component(ICAL.parse(readFileSync(join(this.dir, file), "utf8")));
        registerZones(cal);
        const ev = cal.getFirstSubcomponent("vevent");
        const uid = ev?.getFirstPropertyValue("uid");
        if (typeof uid === "string") out.push({ uid, file, cal });
        else this.unreadable.push(file);
      } catch {
        // A file someone broke by hand is skipped, not fatal; calendar_list names it.
        this.unreadable.push(file);
      }
    }
    return out;
  }

  get(uid: string): Entry {
    const e = this.all().find((x) => x.uid === uid);
    if (!e) throw new CalendarError(`there is no event with uid ${uid}; calendar_list shows the uids`);
    return e;
  }

  save(uid: string, cal: ICAL.Component): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = join(this.dir, fileOf(uid));
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, cal.toString().replace(/\r?\n/g, "\r\n"), { mode: 0o600 });
    renameSync(tmp, file);
  }

  remove(uid: string): void {
    unlinkSync(join(this.dir, this.get(uid).file));
  }

  /** `e`'s occurrences that overlap [from, to), at most `max` (then `more` is true). */
  occurrences(e: Entry, from: number, to: number, tz: string, max: number): { list: Occurrence[]; more: boolean } {
    const vevents = e.cal.getAllSubcomponents("vevent");
    const masterComp = vevents.find((c) => !c.hasProperty("recurrence-id")) ?? (vevents[0] as ICAL.Component);
    const master = new ICAL.Event(masterComp);
    for (const c of vevents) if (c !== masterComp && c.hasProperty("recurrence-id")) master.relateException(c);
    const rrule = masterComp.getFirstPropertyValue("rrule");
    const list: Occurrence[] = [];
    const it = master.iterator();
    // Steps far before the range are passed over on their wall time alone (two days cover any
    // zone), not converted to instants: three Intl calls a step made a minutely series from years
    // back take over a minute. Not with moved occurrences, whose new time may lie in the range.
    const moved = vevents.length > 1;
    const lasts = Math.max(0, master.duration?.toSeconds() ?? 0) * 1000;
    for (let step = 0; step < MAX_STEPS; step++) {
      const next = it.next();
      if (!next) break;
      if (!moved && next.toUnixTime() * 1000 + lasts + 2 * DAY_MS < from) continue;
      const d = master.getOccurrenceDetails(next);
      const item = d.item.component;
      const s = propTz(item, "dtstart");
      const allDay = d.startDate.isDate;
      const start = instantOf(d.startDate, allDay ? null : s.tzid, !allDay && s.utc, tz);
      const en = propTz(item, "dtend");
      const end = instantOf(d.endDate, allDay ? null : (en.tzid ?? s.tzid), !allDay && (en.tzid ? en.utc : s.utc), tz);
      if (start >= to) break;
      if (end <= from && !(end === start && start >= from)) continue;
      if (list.length >= max) return { list, more: true };
      const alarm = item.getFirstSubcomponent("valarm") ?? masterComp.getFirstSubcomponent("valarm");
      const trigger = alarm?.getFirstPropertyValue("trigger") as ICAL.Duration | null | undefined;
      list.push({
        uid: e.uid,
        start,
        end,
        allDay,
        title: String(d.item.summary ?? ""),
        location: String(d.item.location ?? ""),
        description: String(d.item.description ?? ""),
        rrule: rrule ? String(rrule) : "",
        remindMinutes:
          trigger && typeof trigger.toSeconds === "function" ? Math.round(-trigger.toSeconds() / 60) : null,
        tz: allDay ? tz : s.utc ? "UTC" : s.tzid && isTimeZone(s.tzid) ? s.tzid : tz,
        recurrence: d.recurrenceId.toString(),
      });
    }
    return { list, more: false };
  }
}
