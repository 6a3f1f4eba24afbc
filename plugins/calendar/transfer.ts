/**
 * calendar_import and calendar_export: .ics in and out. An import is parsed whole before
 * anything is written (bad text changes nothing), split by UID into one file per event with the
 * VTIMEZONEs it uses; an export joins every event (or those touching a range) into one file in
 * DATA/exports/.
 */
import { randomUUID } from "node:crypto";
import { closeSync, constants, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as v from "valibot";
import ICAL from "ical.js";
import type { Confinement } from "../sdk/confine.ts";
import { readAll } from "../sdk/dir-entry.ts";
import { newCalendar, type calendarTools } from "./cal-tools.ts";
import { CalendarError, type CalendarStore, registerZones } from "./store.ts";
import type { TOOLS } from "./tools.ts";

type Args<K extends keyof typeof TOOLS> = v.InferOutput<(typeof TOOLS)[K]["input"]>;

/** An export's text is returned inline up to this many characters. */
const INLINE_CHARS = 8000;

/**
 * An .ics file inside the [tools.files] roots, opened through the same checks as files_read:
 * never the daemon's own files (web-token, secrets.json, the database) in the data dir.
 */
function readConfined(c: Confinement, path: string, maxBytes: number): string {
  const { real } = c.existing(path);
  const what = c.display(real);
  const { fd, stat } = c.openChecked(real, what, constants.O_RDONLY);
  try {
    if (stat.size > maxBytes)
      throw new CalendarError(
        `${what} is ${Math.ceil(stat.size / 1024)} KiB; calendar_import reads ${maxBytes / 1024} KiB ([tools.calendar] max_import_kb)`,
      );
    return new TextDecoder().decode(readAll(fd, stat.size));
  } finally {
    closeSync(fd);
  }
}

export function importCalendar(
  store: CalendarStore,
  a: Args<"calendar_import">,
  o: { files: () => Confinement; maxBytes: number },
): string {
  if ((a.ics === undefined) === (a.path === undefined))
    throw new CalendarError('give exactly one of "ics" (the text) or "path"');
  const text = a.ics ?? readConfined(o.files(), a.path as string, o.maxBytes);
  if (Buffer.byteLength(text) > o.maxBytes)
    throw new CalendarError(`the .ics text is over ${o.maxBytes / 1024} KiB ([tools.calendar] max_import_kb)`);
  let root: ICAL.Component;
  try {
    root = new ICAL.Component(ICAL.parse(text));
  } catch (err) {
    throw new CalendarError(`this is not iCalendar text: ${(err as Error).message}; nothing was imported`);
  }
  if (root.name !== "vcalendar")
    throw new CalendarError(`the text is a ${root.name.toUpperCase()}, not a VCALENDAR; nothing was imported`);
  registerZones(root);
  const zones = new Map(root.getAllSubcomponents("vtimezone").map((z) => [String(z.getFirstPropertyValue("tzid")), z]));
  const groups = new Map<string, ICAL.Component[]>();
  for (const ev of root.getAllSubcomponents("vevent")) {
    if (!ev.hasProperty("dtstart"))
      throw new CalendarError(
        `an event ("${ev.getFirstPropertyValue("summary") ?? "?"}") has no DTSTART; nothing was imported`,
      );
    let uid = ev.getFirstPropertyValue("uid");
    if (typeof uid !== "string" || uid === "") {
      uid = `${randomUUID()}@homed`;
      ev.updatePropertyWithValue("uid", uid);
    }
    groups.set(uid, [...(groups.get(uid) ?? []), ev]);
  }
  if (groups.size === 0) throw new CalendarError("the calendar has no events (VEVENT); nothing was imported");
  const existing = new Set(store.all().map((e) => e.uid));
  const lines: string[] = [];
  let replaced = 0;
  for (const [uid, events] of groups) {
    const cal = newCalendar();
    const used = new Set(
      events.flatMap((e) =>
        e
          .getAllProperties()
          .map((p) => p.getParameter("tzid"))
          .filter((z) => typeof z === "string"),
      ),
    );
    for (const z of used) {
      const vtz = zones.get(z as string);
      if (vtz) cal.addSubcomponent(new ICAL.Component(vtz.toJSON()));
    }
    for (const e of events) cal.addSubcomponent(new ICAL.Component(e.toJSON()));
    store.save(uid, cal);
    if (existing.has(uid)) replaced++;
    const master = events.find((e) => !e.hasProperty("recurrence-id")) ?? events[0];
    lines.push(
      `- "${master?.getFirstPropertyValue("summary") ?? ""}" · uid ${uid}${master?.hasProperty("rrule") ? ` · repeats ${master.getFirstPropertyValue("rrule")}` : ""}`,
    );
  }
  return `Imported ${groups.size} event${groups.size === 1 ? "" : "s"}${replaced ? ` (${replaced} replaced ones with the same uid)` : ""}:\n${lines.slice(0, 50).join("\n")}${lines.length > 50 ? `\n… and ${lines.length - 50} more` : ""}`;
}

export function exportCalendar(
  store: CalendarStore,
  a: Args<"calendar_export">,
  o: { dataDir: string; tools: ReturnType<typeof calendarTools> },
): string {
  const tz = o.tools.defaultTz();
  const r = a.from || a.to ? o.tools.range(a.from, a.to, tz) : null;
  const out = newCalendar();
  const zones = new Set<string>();
  let count = 0;
  for (const e of store.all()) {
    if (r && store.occurrences(e, r.from, r.to, tz, 1).list.length === 0) continue;
    for (const c of e.cal.getAllSubcomponents()) {
      if (c.name === "vtimezone") {
        const id = String(c.getFirstPropertyValue("tzid"));
        if (zones.has(id)) continue;
        zones.add(id);
      } else count += c.name === "vevent" && !c.hasProperty("recurrence-id") ? 1 : 0;
      out.addSubcomponent(new ICAL.Component(c.toJSON()));
    }
  }
  const dir = join(o.dataDir, "exports");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, a.file ?? "calendar.ics");
  const text = out.toString().replace(/\r?\n/g, "\r\n");
  writeFileSync(file, text, { mode: 0o600 });
  return (
    `Exported ${count} event${count === 1 ? "" : "s"} to ${file} (${Buffer.byteLength(text)} bytes).` +
    (text.length <= INLINE_CHARS
      ? `\n\n${text}`
      : " Too long to show here; read it with files_read if its folder is a files root.")
  );
}
