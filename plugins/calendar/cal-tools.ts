/**
 * What the calendar tools do, over CalendarStore. Times come in as dates or wall times in a
 * time zone (zones.ts); results say times in the event's zone with their UTC offset. A plugin
 * cannot call another plugin's tool, so a reminder is stored on the event (VALARM) and the
 * result names the schedule_create call that makes it ring — the model makes that call, through
 * the same approval gate as any other.
 */
import { randomUUID } from "node:crypto";
import type * as v from "valibot";
import ICAL from "ical.js";
import { CalendarError, type CalendarStore, type Occurrence, PRODID } from "./store.ts";
import type { TOOLS } from "./tools.ts";
import { formatInstant, instantToWall, isTimeZone, localIso, parseTime, type Wall, wallToInstant } from "./zones.ts";

type Args<K extends keyof typeof TOOLS> = v.InferOutput<(typeof TOOLS)[K]["input"]>;

export interface CalendarLimits {
  timezone: string;
  max_list: number;
}

const DAY = 86_400_000;

export function newCalendar(): ICAL.Component {
  const cal = new ICAL.Component("vcalendar");
  cal.updatePropertyWithValue("prodid", PRODID);
  cal.updatePropertyWithValue("version", "2.0");
  return cal;
}

function zoneOf(tz: string | undefined, fallback: string): string {
  const z = tz ?? fallback;
  if (!isTimeZone(z)) throw new CalendarError(`"timezone": ${z} is not an IANA time zone (e.g. Europe/Berlin, UTC)`);
  return z;
}

function setTime(ev: ICAL.Component, name: string, when: ReturnType<typeof parseTime>, tz: string): void {
  ev.removeAllProperties(name);
  const w = when.wall;
  if (when.date) {
    ev.addPropertyWithValue(name, ICAL.Time.fromData({ year: w.year, month: w.month, day: w.day, isDate: true }));
    return;
  }
  const utc = tz === "UTC";
  const t = ICAL.Time.fromData(
    { year: w.year, month: w.month, day: w.day, hour: w.hour, minute: w.minute, second: w.second, isDate: false },
    utc ? ICAL.Timezone.utcTimezone : undefined,
  );
  const p = ev.addPropertyWithValue(name, t);
  if (!utc) p.setParameter("tzid", tz);
}

function setText(ev: ICAL.Component, name: string, value: string | undefined): void {
  if (value === undefined) return;
  ev.removeAllProperties(name);
  if (value !== "") ev.addPropertyWithValue(name, value);
}

function setRrule(ev: ICAL.Component, rule: string | undefined): void {
  if (rule === undefined) return;
  ev.removeAllProperties("rrule");
  if (rule.trim() === "") return;
  let r: ICAL.Recur;
  try {
    r = ICAL.Recur.fromString(rule.replace(/^RRULE:/i, "").trim());
  } catch (err) {
    throw new CalendarError(`"rrule": ${rule} is not an RRULE (${(err as Error).message}); e.g. FREQ=WEEKLY;BYDAY=MO`);
  }
  if (!r.freq) throw new CalendarError(`"rrule": ${rule} names no FREQ (DAILY, WEEKLY, MONTHLY, YEARLY…)`);
  ev.addPropertyWithValue("rrule", r);
}

function setAlarm(ev: ICAL.Component, minutes: number | undefined, title: string): void {
  if (minutes === undefined) return;
  for (const a of ev.getAllSubcomponents("valarm")) ev.removeSubcomponent(a);
  if (minutes === 0) return;
  const alarm = new ICAL.Component("valarm");
  alarm.addPropertyWithValue("action", "DISPLAY");
  alarm.addPropertyWithValue("description", title);
  alarm.addPropertyWithValue("trigger", ICAL.Duration.fromSeconds(-minutes * 60));
  ev.addSubcomponent(alarm);
}

/** The wall time one hour (or one day, for dates) after `start`. */
function defaultEnd(start: ReturnType<typeof parseTime>, tz: string): ReturnType<typeof parseTime> {
  if (start.date) {
    const d = new Date(Date.UTC(start.wall.year, start.wall.month - 1, start.wall.day) + DAY);
    const wall: Wall = {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: 0,
      minute: 0,
      second: 0,
    };
    return { date: true, wall };
  }
  const instant = start.instant + 3_600_000;
  return { date: false, wall: instantToWall(instant, tz), instant };
}

export function describeOccurrence(o: Occurrence): string {
  const when = o.allDay
    ? `${formatInstant(o.start, o.tz).slice(0, 10)}${o.end - o.start > DAY ? ` to ${formatInstant(o.end - DAY, o.tz).slice(0, 10)}` : ""} (all day)`
    : `${formatInstant(o.start, o.tz)} – ${formatInstant(o.end, o.tz).slice(11)} (${o.tz})`;
  const extra = [
    o.location && `at ${o.location}`,
    o.rrule && `repeats ${o.rrule}`,
    o.remindMinutes !== null && `reminder ${o.remindMinutes} min before`,
  ].filter(Boolean);
  return `- ${when} · "${o.title}"${extra.length ? ` · ${extra.join(" · ")}` : ""} · uid ${o.uid}`;
}

export function calendarTools(store: CalendarStore, limits: CalendarLimits, now: () => number) {
  const defaultTz = () => limits.timezone || Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

  /** What to say about a reminder: the schedule_create call that makes it ring at the next occurrence. */
  function reminderNote(uid: string, minutes: number | undefined): string {
    if (!minutes) return "";
    const next = store.occurrences(store.get(uid), now(), Number.MAX_SAFE_INTEGER, defaultTz(), 1).list[0];
    if (!next) return " The event has no future occurrence, so no reminder is due.";
    const at = Math.max(next.start - minutes * 60_000, now() + 60_000);
    const args = {
      at: localIso(at, next.tz),
      timezone: next.tz,
      prompt: `Reminder: "${next.title}" starts at ${formatInstant(next.start, next.tz)}${next.location ? ` at ${next.location}` : ""}.`,
      title: `reminder: ${next.title}`.slice(0, 100),
    };
    return (
      ` Reminder stored on the event (${minutes} min before). The calendar cannot schedule it itself: to be reminded, call schedule_create with ${JSON.stringify(args)}` +
      (next.rrule ? " (this covers the next occurrence; repeat it for later ones)." : ".")
    );
  }

  function create(a: Args<"calendar_create">): string {
    const tz = zoneOf(a.timezone, defaultTz());
    const start = parseTime(a.start, tz, "start");
    const end = a.end ? parseTime(a.end, tz, "end") : defaultEnd(start, tz);
    if (start.date !== end.date) throw new CalendarError("start and end must both be dates or both be times");
    const s = start.date ? Date.UTC(start.wall.year, start.wall.month - 1, start.wall.day) : start.instant;
    const e = end.date ? Date.UTC(end.wall.year, end.wall.month - 1, end.wall.day) : end.instant;
    if (e <= s) throw new CalendarError(`end (${a.end}) must be after start (${a.start})`);
    const uid = `${randomUUID()}@homed`;
    const cal = newCalendar();
    const ev = new ICAL.Component("vevent");
    ev.addPropertyWithValue("uid", uid);
    ev.addPropertyWithValue("dtstamp", ICAL.Time.fromJSDate(new Date(now()), true));
    setTime(ev, "dtstart", start, tz);
    setTime(ev, "dtend", end, tz);
    setText(ev, "summary", a.title);
    setText(ev, "location", a.location);
    setText(ev, "description", a.description);
    setRrule(ev, a.rrule);
    setAlarm(ev, a.remind_minutes, a.title);
    cal.addSubcomponent(ev);
    store.save(uid, cal);
    const first = store.occurrences(store.get(uid), 0, Number.MAX_SAFE_INTEGER, tz, 1).list[0];
    return `Created event uid ${uid}:\n${first ? describeOccurrence(first) : "(no occurrence: check the RRULE)"}${reminderNote(uid, a.remind_minutes)}`;
  }

  function range(from: string | undefined, to: string | undefined, tz: string): { from: number; to: number } {
    const at = (text: string, what: string) => {
      const p = parseTime(text, tz, what);
      return p.date ? wallToInstant(p.wall, tz) : p.instant;
    };
    const f = from ? at(from, "from") : now();
    const t = to ? at(to, "to") : f + 7 * DAY;
    if (t <= f) throw new CalendarError(`"to" must be after "from"`);
    return { from: f, to: t };
  }

  function list(a: Args<"calendar_list">): string {
    const tz = zoneOf(a.timezone, defaultTz());
    const r = range(a.from, a.to, tz);
    const q = a.query?.toLowerCase();
    const all: Occurrence[] = [];
    let more = false;
    const entries = store.all();
    for (const e of entries) {
      const got = store.occurrences(e, r.from, r.to, tz, limits.max_list);
      more ||= got.more;
      for (const o of got.list)
        if (!q || `${o.title}\n${o.location}\n${o.description}`.toLowerCase().includes(q)) all.push(o);
    }
    all.sort((x, y) => x.start - y.start);
    const shown = all.slice(0, limits.max_list);
    const span = `${formatInstant(r.from, tz)} to ${formatInstant(r.to, tz)}`;
    const broken = store.unreadable.length
      ? `\n(${store.unreadable.length} file${store.unreadable.length === 1 ? "" : "s"} in DATA/calendar could not be read and ${store.unreadable.length === 1 ? "was" : "were"} skipped: ${store.unreadable.slice(0, 5).join(", ")})`
      : "";
    if (shown.length === 0)
      return `No events from ${span}${q ? ` matching "${a.query}"` : ""} (${entries.length} events in the calendar).${broken}`;
    return (
      `${shown.length} occurrence${shown.length === 1 ? "" : "s"} from ${span}:\n${shown.map(describeOccurrence).join("\n")}` +
      (more || all.length > shown.length
        ? `\n(more not shown: [tools.calendar] max_list = ${limits.max_list}; narrow the range)`
        : "") +
      broken
    );
  }

  function update(a: Args<"calendar_update">): string {
    const entry = store.get(a.uid);
    const ev = entry.cal.getAllSubcomponents("vevent").find((c) => !c.hasProperty("recurrence-id"));
    if (!ev) throw new CalendarError(`event ${a.uid} has only moved occurrences, no series to change`);
    const tz = zoneOf(
      a.timezone,
      (ev.getFirstProperty("dtstart")?.getParameter("tzid") as string | undefined) ?? defaultTz(),
    );
    if (a.start !== undefined) {
      const start = parseTime(a.start, tz, "start");
      const oldStart = ev.getFirstPropertyValue("dtstart") as ICAL.Time | null;
      const oldEnd = ev.getFirstPropertyValue("dtend") as ICAL.Time | null;
      setTime(ev, "dtstart", start, tz);
      if (a.end === undefined) {
        // A moved event keeps its length (in wall-clock time), when it had an end of the same kind.
        if (oldStart && oldEnd && oldStart.isDate === start.date) {
          const end = (ev.getFirstPropertyValue("dtstart") as ICAL.Time).clone();
          end.addDuration(oldEnd.subtractDate(oldStart));
          const p = ev.updatePropertyWithValue("dtend", end);
          if (!start.date && tz !== "UTC") p.setParameter("tzid", tz);
        } else setTime(ev, "dtend", defaultEnd(start, tz), tz);
      }
    }
    if (a.end !== undefined) setTime(ev, "dtend", parseTime(a.end, tz, "end"), tz);
    setText(ev, "summary", a.title);
    setText(ev, "location", a.location);
    setText(ev, "description", a.description);
    setRrule(ev, a.rrule);
    setAlarm(ev, a.remind_minutes, a.title ?? String(ev.getFirstPropertyValue("summary") ?? ""));
    ev.updatePropertyWithValue("dtstamp", ICAL.Time.fromJSDate(new Date(now()), true));
    const seq = Number(ev.getFirstPropertyValue("sequence") ?? 0);
    ev.updatePropertyWithValue("sequence", seq + 1);
    store.save(a.uid, entry.cal);
    const next = store.occurrences(store.get(a.uid), now(), Number.MAX_SAFE_INTEGER, tz, 1).list[0];
    return `Changed event ${a.uid}.${next ? `\nNext: ${describeOccurrence(next).slice(2)}` : " It has no future occurrence."}${reminderNote(a.uid, a.remind_minutes)}`;
  }

  function remove(a: Args<"calendar_delete">): string {
    const entry = store.get(a.uid);
    if (a.occurrence === undefined) {
      store.remove(a.uid);
      return `Deleted event ${a.uid}${entry.cal.getFirstSubcomponent("vevent")?.hasProperty("rrule") ? " (the whole series)" : ""}.`;
    }
    const ev = entry.cal.getAllSubcomponents("vevent").find((c) => !c.hasProperty("recurrence-id"));
    if (!ev?.hasProperty("rrule"))
      throw new CalendarError(`event ${a.uid} does not repeat; delete it without "occurrence"`);
    const tz = zoneOf(
      a.timezone,
      (ev.getFirstProperty("dtstart")?.getParameter("tzid") as string | undefined) ?? defaultTz(),
    );
    const when = parseTime(a.occurrence, tz, "occurrence");
    // A date names the day's occurrence; a time the occurrence starting then.
    const dayStart = wallToInstant({ ...when.wall, hour: 0, minute: 0, second: 0 }, tz);
    const at = when.date ? null : when.instant;
    const occ = store
      .occurrences(entry, dayStart - DAY, dayStart + 2 * DAY, tz, 1000)
      .list.find((o) =>
        at === null ? localIso(o.start, tz).startsWith((a.occurrence as string).trim()) : o.start === at,
      );
    if (!occ)
      throw new CalendarError(
        `event ${a.uid} has no occurrence starting at ${a.occurrence} (${tz}); calendar_list shows them`,
      );
    const dt = ev.getFirstProperty("dtstart");
    const tzid = dt?.getParameter("tzid");
    const ex = ev.addPropertyWithValue("exdate", ICAL.Time.fromString(occ.recurrence, null));
    if (typeof tzid === "string") ex.setParameter("tzid", tzid);
    for (const c of entry.cal.getAllSubcomponents("vevent"))
      if (c.hasProperty("recurrence-id") && String(c.getFirstPropertyValue("recurrence-id")) === occ.recurrence)
        entry.cal.removeSubcomponent(c);
    store.save(a.uid, entry.cal);
    return `Dropped the occurrence of ${formatInstant(occ.start, occ.tz)} from "${occ.title}" (uid ${a.uid}); the rest of the series stays.`;
  }

  return { create, list, update, remove, range, defaultTz };
}
