/**
 * The calendar plugin's tool specs (names, words for the model, argument schemas, risk classes).
 * The build imports this file to list the tools in the manifest: valibot and the spec type only.
 */
import * as v from "valibot";
import type { ToolSpec } from "../sdk/tool-spec.ts";

const Uid = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(255),
  v.description("The event's uid (from calendar_list)."),
);
const When = (what: string) =>
  v.pipe(
    v.string(),
    v.maxLength(40),
    v.description(`${what}: 2026-12-24 (whole day) or 2026-12-24T18:00 (in the time zone).`),
  );
const Tz = v.pipe(
  v.string(),
  v.maxLength(64),
  v.description("IANA time zone, e.g. Europe/Berlin (default: the configured one)."),
);
const Rrule = v.pipe(
  v.string(),
  v.maxLength(300),
  v.description('An iCalendar RRULE for a repeating event, e.g. "FREQ=WEEKLY;BYDAY=MO,WE" or "FREQ=MONTHLY;COUNT=6".'),
);
const Remind = v.pipe(
  v.number(),
  v.integer(),
  v.minValue(0),
  v.maxValue(40_320),
  v.description("Remind this many minutes before the start."),
);
const Text = (n: number, what: string) => v.pipe(v.string(), v.maxLength(n), v.description(what));

const EventFields = {
  title: v.pipe(v.string(), v.minLength(1), v.maxLength(300), v.description("What the event is.")),
  start: When("Start"),
  end: v.optional(When("End (exclusive for whole days); default: one hour after start, or the one day")),
  timezone: v.optional(Tz),
  location: v.optional(Text(500, "Where.")),
  description: v.optional(Text(10_000, "Notes on the event.")),
  rrule: v.optional(Rrule),
  remind_minutes: v.optional(Remind),
};

export const TOOLS = {
  calendar_create: {
    name: "calendar_create",
    examples: [
      "put the dentist on my calendar for tuesday",
      "book a meeting next week",
      "add my flight to the calendar",
      "把会议加到日历",
    ],
    description:
      "Add an event to the calendar (DATA/calendar). Whole-day events take dates; timed ones a date and time in the time zone. Repeating events take an RRULE. Returns its uid.",
    input: v.strictObject(EventFields),
    risk: "write",
    ownOutput: "echoes the event the model asked for",
  },
  calendar_list: {
    name: "calendar_list",
    examples: ["what's on my calendar this week", "am I free on friday", "my schedule tomorrow", "我明天有什么安排"],
    description:
      "List the events between two times (repeating events expanded to each occurrence), oldest first, with uid, time, title, location, repeat rule and reminder. Default: from now for 7 days.",
    input: v.strictObject({
      from: v.optional(When("From")),
      to: v.optional(When("Until")),
      query: v.optional(Text(200, "Only events whose title, location or description contain this (any case).")),
      timezone: v.optional(Tz),
    }),
    risk: "read",
    untrustedOutput: true,
  },
  calendar_update: {
    name: "calendar_update",
    examples: ["move the meeting to 3pm", "change the dinner to saturday"],
    description:
      'Change an event (the whole series when it repeats): give its uid and the fields to change. rrule "" stops it repeating; remind_minutes 0 removes the reminder.',
    input: v.strictObject({
      uid: Uid,
      title: v.optional(EventFields.title),
      start: v.optional(When("New start")),
      end: v.optional(When("New end")),
      timezone: v.optional(Tz),
      location: EventFields.location,
      description: EventFields.description,
      rrule: v.optional(v.pipe(v.string(), v.maxLength(300), v.description('New RRULE; "" makes it a single event.'))),
      remind_minutes: v.optional(Remind),
    }),
    risk: "write",
    untrustedOutput: true,
  },
  calendar_delete: {
    name: "calendar_delete",
    examples: ["cancel the appointment", "remove the event from my calendar"],
    description:
      "Delete an event by uid; for a repeating event give `occurrence` (its start, as calendar_list shows it) to drop only that one.",
    input: v.strictObject({
      uid: Uid,
      occurrence: v.optional(When("The start of the one occurrence to drop")),
      timezone: v.optional(Tz),
    }),
    risk: "write",
    untrustedOutput: true,
  },
  calendar_import: {
    name: "calendar_import",
    examples: ["import this ics file", "add these events from the invitation"],
    description:
      "Import events from iCalendar (.ics) text or a .ics file inside the files tools' roots. Events with a uid already in the calendar replace it. Returns what was imported.",
    input: v.strictObject({
      ics: v.optional(
        v.pipe(v.string(), v.maxLength(10_000_000), v.description("The .ics text (BEGIN:VCALENDAR...).")),
      ),
      path: v.optional(
        v.pipe(
          v.string(),
          v.maxLength(1000),
          v.description("A .ics file inside the files tools' roots, relative to the workspace (e.g. team.ics)."),
        ),
      ),
    }),
    risk: "write",
    untrustedOutput: true,
  },
  calendar_export: {
    name: "calendar_export",
    examples: ["export my calendar", "share my calendar as a file"],
    description:
      "Export the calendar (or the events touching a range) as one .ics file in DATA/exports/ and return its path and, when short, its text.",
    input: v.strictObject({
      from: v.optional(When("From")),
      to: v.optional(When("Until")),
      file: v.optional(
        v.pipe(
          v.string(),
          v.regex(/^[\w.-]{1,80}$/, "a file name: letters, digits, _ . -"),
          v.description("File name, default calendar.ics."),
        ),
      ),
    }),
    risk: "write",
    untrustedOutput: true,
  },
} satisfies Record<string, ToolSpec>;
