/**
 * The calendar plugin in dist/homed: a scripted model creates a weekly event that crosses the
 * end of summer time (09:00 Berlin stays 09:00, the offset changes), lists a range, drops one
 * occurrence, updates, imports an .ics with a moved occurrence and a VTIMEZONE, exports, and
 * deletes — each through the daemon's gate; bad times, rules, zones and .ics text get clear errors.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { toolTurn } from "./tool-turns.ts";

const TEAM_ICS = [
  "BEGIN:VCALENDAR",
  "VERSION:2.0",
  "PRODID:-//test//team//EN",
  "BEGIN:VTIMEZONE",
  "TZID:Custom Tokyo",
  "BEGIN:STANDARD",
  "DTSTART:19700101T000000",
  "TZOFFSETFROM:+0900",
  "TZOFFSETTO:+0900",
  "END:STANDARD",
  "END:VTIMEZONE",
  "BEGIN:VEVENT",
  "UID:retro-1@team",
  "DTSTAMP:20270101T000000Z",
  "DTSTART;TZID=Custom Tokyo:20270104T100000",
  "DTEND;TZID=Custom Tokyo:20270104T110000",
  "RRULE:FREQ=DAILY;COUNT=3",
  "SUMMARY:Retro",
  "END:VEVENT",
  "BEGIN:VEVENT",
  "UID:retro-1@team",
  "DTSTAMP:20270101T000000Z",
  "RECURRENCE-ID;TZID=Custom Tokyo:20270105T100000",
  "DTSTART;TZID=Custom Tokyo:20270105T150000",
  "DTEND;TZID=Custom Tokyo:20270105T160000",
  "SUMMARY:Retro (moved)",
  "END:VEVENT",
  "BEGIN:VEVENT",
  "UID:holiday@team",
  "DTSTAMP:20270101T000000Z",
  "DTSTART;VALUE=DATE:20270106",
  "DTEND;VALUE=DATE:20270107",
  "SUMMARY:Team holiday",
  "END:VEVENT",
  "END:VCALENDAR",
  "",
].join("\r\n");

describe("calendar plugin in the daemon", () => {
  test("create, list across DST, drop one, update, import, export, delete; bad input refused", async () => {
    using dir = tempDir();
    await Bun.write(
      join(dir.path, "config.toml"),
      `[approval]\nallow = ["calendar_*", "schedule_*"]\n\n# The owner's own calendar: what it lists carries no untrusted mark.\n[trust]\ntools = ["calendar_*"]\n\n[tools.calendar]\ntimezone = "Europe/Berlin"\n`,
    );
    mkdirSync(join(dir.path, "workspace"), { recursive: true });
    writeFileSync(join(dir.path, "workspace", "team.ics"), TEAM_ICS);
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const offered = (await rig.status()).tools.filter((t) => t.name.startsWith("calendar_"));
    expect(offered.map((t) => [t.name, t.risk])).toEqual([
      ["calendar_create", "write"],
      ["calendar_delete", "write"],
      ["calendar_export", "write"],
      ["calendar_import", "write"],
      ["calendar_list", "read"],
      ["calendar_update", "write"],
    ]);

    const a = await toolTurn(rig, [
      [
        {
          name: "calendar_create",
          arguments: {
            title: "Standup",
            start: "2027-10-25T09:00",
            end: "2027-10-25T09:15",
            rrule: "FREQ=WEEKLY;COUNT=3",
            location: "Room 4",
            remind_minutes: 10,
          },
        },
      ],
    ]);
    const created = a.results[0] as string;
    expect(created).toContain(
      '- 2027-10-25 09:00 UTC+2 – 09:15 UTC+2 (Europe/Berlin) · "Standup" · at Room 4 · repeats FREQ=WEEKLY;COUNT=3 · reminder 10 min before',
    );
    expect(created).toContain(
      'call schedule_create with {"at":"2027-10-25T08:50","timezone":"Europe/Berlin","prompt":"Reminder: \\"Standup\\" starts at 2027-10-25 09:00 UTC+2 at Room 4."',
    );
    const uid = /uid (\S+@homed)/.exec(created)?.[1] as string;
    // The call the result names is one schedule_create takes: the reminder becomes a job.
    const remind = JSON.parse(/call schedule_create with (\{.*\})/.exec(created)?.[1] as string);
    const job = await toolTurn(rig, [[{ name: "schedule_create", arguments: remind }]]);
    expect(job.results[0]).toMatch(
      /^Scheduled job [a-z0-9]+ \(once, at 2027-10-25 08:50 UTC\+2, Europe\/Berlin\)\. Next run: 2027-10-25 08:50 UTC\+2\./,
    );
    expect(uid).toBeDefined();
    const ics = readFileSync(join(dir.path, "calendar", `${uid}.ics`), "utf8");
    expect(ics).toContain("DTSTART;TZID=Europe/Berlin:20271025T090000");
    expect(ics).toContain("RRULE:FREQ=WEEKLY;COUNT=3");
    expect(ics).toContain("TRIGGER:-PT10M");

    const b = await toolTurn(rig, [
      [{ name: "calendar_list", arguments: { from: "2027-10-20", to: "2027-11-30" } }],
      [{ name: "calendar_delete", arguments: { uid, occurrence: "2027-11-01T09:00" } }],
      [
        { name: "calendar_list", arguments: { from: "2027-10-20", to: "2027-11-30", query: "standup" } },
        { name: "calendar_update", arguments: { uid, title: "Daily standup", rrule: "", start: "2027-10-26T08:30" } },
        { name: "calendar_list", arguments: { from: "2027-10-20", to: "2027-11-30" } },
      ],
    ]);
    const [listed, dropped, listed2, updated, listed3] = b.results;
    expect(listed).toBe(
      [
        "3 occurrences from 2027-10-20 00:00 UTC+2 to 2027-11-30 00:00 UTC+1:",
        `- 2027-10-25 09:00 UTC+2 – 09:15 UTC+2 (Europe/Berlin) · "Standup" · at Room 4 · repeats FREQ=WEEKLY;COUNT=3 · reminder 10 min before · uid ${uid}`,
        `- 2027-11-01 09:00 UTC+1 – 09:15 UTC+1 (Europe/Berlin) · "Standup" · at Room 4 · repeats FREQ=WEEKLY;COUNT=3 · reminder 10 min before · uid ${uid}`,
        `- 2027-11-08 09:00 UTC+1 – 09:15 UTC+1 (Europe/Berlin) · "Standup" · at Room 4 · repeats FREQ=WEEKLY;COUNT=3 · reminder 10 min before · uid ${uid}`,
      ].join("\n"),
    );
    expect(dropped).toContain('Dropped the occurrence of 2027-11-01 09:00 UTC+1 from "Standup"');
    expect(listed2).toStartWith("2 occurrences");
    expect(listed2).not.toContain("2027-11-01");
    expect(updated).toContain(`Changed event ${uid}.`);
    expect(listed3).toStartWith("1 occurrence from");
    expect(listed3).toContain('"Daily standup"');
    // Moved without an end: it keeps its 15 minutes.
    expect(listed3).toContain('- 2027-10-26 08:30 UTC+2 – 08:45 UTC+2 (Europe/Berlin) · "Daily standup"');

    writeFileSync(join(dir.path, "calendar", "scribbled.ics"), "BEGIN:VCALENDAR\nnonsense");
    const c = await toolTurn(rig, [
      [
        { name: "calendar_import", arguments: { path: "team.ics" } },
        { name: "calendar_import", arguments: { ics: "BEGIN:VCALENDAR\nthis is not ical" } },
        { name: "calendar_import", arguments: { path: "../../etc/passwd" } },
        { name: "calendar_import", arguments: { path: "../web-token" } },
      ],
      [
        { name: "calendar_list", arguments: { from: "2027-01-04", to: "2027-01-08", timezone: "Asia/Tokyo" } },
        { name: "calendar_export", arguments: { file: "all.ics" } },
      ],
    ]);
    const [imported, badIcs, outside, token, listedTeam, exported] = c.results;
    expect(imported).toContain("Imported 2 events:");
    expect(imported).toContain('"Retro" · uid retro-1@team · repeats FREQ=DAILY;COUNT=3');
    expect(badIcs).toStartWith("error: this is not iCalendar text:");
    expect(badIcs).toEndWith("nothing was imported");
    expect(outside).toContain("is outside the allowed roots: calendar tools may only use");
    // The daemon's own files in the data dir are not a calendar's to read (nor is any line of them quoted).
    expect(token).toContain("is outside the allowed roots");
    expect(token).not.toContain(readFileSync(join(dir.path, "web-token"), "utf8").trim());
    expect(listedTeam).toContain('- 2027-01-04 10:00 UTC+9 – 11:00 UTC+9 (Asia/Tokyo) · "Retro"');
    expect(listedTeam).toContain('- 2027-01-05 15:00 UTC+9 – 16:00 UTC+9 (Asia/Tokyo) · "Retro (moved)"');
    expect(listedTeam).toContain('- 2027-01-06 10:00 UTC+9 – 11:00 UTC+9 (Asia/Tokyo) · "Retro"');
    expect(listedTeam).toContain('- 2027-01-06 (all day) · "Team holiday" · uid holiday@team');
    expect(listedTeam).toEndWith("\n(1 file in DATA/calendar could not be read and was skipped: scribbled.ics)");
    expect(exported).toContain(`Exported 3 events to ${join(dir.path, "exports", "all.ics")}`);
    const all = readFileSync(join(dir.path, "exports", "all.ics"), "utf8");
    expect(all.match(/BEGIN:VEVENT/g)?.length).toBe(4);
    expect(all).toContain("TZID:Custom Tokyo");
    expect(all).toContain("SUMMARY:Daily standup");

    const d = await toolTurn(rig, [
      [
        { name: "calendar_delete", arguments: { uid: "holiday@team" } },
        { name: "calendar_delete", arguments: { uid: "nope" } },
        { name: "calendar_create", arguments: { title: "x", start: "2027-02-30T10:00" } },
        { name: "calendar_create", arguments: { title: "x", start: "2027-02-03T10:00", rrule: "EVERY=TUESDAY" } },
        { name: "calendar_create", arguments: { title: "x", start: "2027-02-03T10:00", timezone: "Mars/Olympus" } },
        { name: "calendar_create", arguments: { title: "x", start: "2027-02-03T10:00", end: "2027-02-03T09:00" } },
      ],
    ]);
    const [del, none, badDate, badRule, badTz, backwards] = d.results;
    expect(del).toBe("Deleted event holiday@team.");
    expect(none).toBe("error: there is no event with uid nope; calendar_list shows the uids");
    expect(badDate).toBe('error: start: "2027-02-30T10:00" is not a real date and time');
    expect(badRule).toStartWith('error: "rrule": EVERY=TUESDAY');
    expect(badTz).toBe('error: "timezone": Mars/Olympus is not an IANA time zone (e.g. Europe/Berlin, UTC)');
    expect(backwards).toBe("error: end (2027-02-03T09:00) must be after start (2027-02-03T10:00)");
    expect(readdirSync(join(dir.path, "calendar")).sort()).toEqual([`${uid}.ics`, "retro-1@team.ics", "scribbled.ics"]);
    expect(existsSync(join(dir.path, "calendar", "holiday@team.ics"))).toBe(false);
  }, 60_000);
});
