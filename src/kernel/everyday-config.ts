/**
 * config.toml's [tools.calendar], [tools.notes], [tools.rss] and [tools.music]: the everyday
 * tool plugins' settings (issue 16), kept apart from tools-config.ts, which spreads them into
 * its [tools] table. The rss plugin fetches through [tools.fetch]'s guard and allowances.
 */
import * as v from "valibot";

const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(v.number("must be a number"), v.integer("must be an integer"), v.minValue(min), v.maxValue(max));

/** An IANA time zone name this runtime knows, or "" (the machine's). */
const TimeZone = v.pipe(
  v.string(),
  v.check((s) => {
    if (s === "") return true;
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: s });
      return true;
    } catch {
      return false;
    }
  }, "must be an IANA time zone such as Europe/Berlin, or empty"),
);

export const EverydayToolsConfig = {
  calendar: v.optional(
    v.strictObject({
      timezone: v.optional(TimeZone, ""),
      /** Occurrences one calendar_list answer shows at most (recurring events expand). */
      max_list: v.optional(int(1, 10_000), 200),
      /** Largest .ics file calendar_import reads (KiB). */
      max_import_kb: v.optional(int(1, 1_048_576), 4096),
    }),
    {},
  ),
  notes: v.optional(
    v.strictObject({
      /** Largest note (KiB). */
      max_kb: v.optional(int(1, 65_536), 1024),
      /** Index each note's text into memory, so memory_search finds it. */
      index_memory: v.optional(v.boolean("must be true or false"), true),
    }),
    {},
  ),
  rss: v.optional(
    v.strictObject({
      /** Minutes between polls of every feed while the plugin runs; 0: only on rss_refresh. */
      poll_minutes: v.optional(int(0, 10_080), 60),
      max_feeds: v.optional(int(1, 10_000), 200),
      /** Items kept per feed (newest first); older ones are dropped from the list. */
      max_items: v.optional(int(1, 10_000), 300),
    }),
    {},
  ),
  music: v.optional(
    v.strictObject({
      /** Folders of music files: absolute, or relative to the data dir. */
      library: v.optional(v.array(v.pipe(v.string(), v.minLength(1, "must not be empty"))), ["music"]),
      mpv: v.optional(v.string(), "/usr/bin/mpv"),
      /** mpv's --ao: "" lets mpv choose; "null" plays silently (a machine without sound). */
      audio_output: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9_,-]*$/, "must be an mpv --ao name")), ""),
    }),
    {},
  ),
};

/** The commented template text of these sections; parses to exactly the defaults. */
export const EVERYDAY_TOOLS_TEMPLATE = `
[tools.calendar]
# Events live in DATA/calendar/*.ics. Time zone of times given without one; empty: the machine's.
timezone = ""
# Occurrences one calendar_list shows at most; largest .ics calendar_import reads (KiB).
max_list = 200
max_import_kb = 4096

[tools.notes]
# Markdown notes in DATA/notes/. Largest note (KiB); index notes into memory (memory_search).
max_kb = 1024
index_memory = true

[tools.rss]
# Feeds are fetched through [tools.fetch]'s address guard (allow_private, allow_hosts,
# timeout_ms, max_kb). Minutes between polls while the plugin runs (0: only on rss_refresh).
poll_minutes = 60
max_feeds = 200
# Items kept per feed, newest first.
max_items = 300

[tools.music]
# Folders of music files: absolute, or relative to the data dir.
library = ["music"]
# mpv plays (JSON IPC); without it music_play says so. audio_output is mpv's --ao: "" lets
# mpv choose, "null" plays silently.
mpv = "/usr/bin/mpv"
audio_output = ""
`;
