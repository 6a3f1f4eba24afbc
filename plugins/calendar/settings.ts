/** [tools.calendar]: events live in DATA/calendar/*.ics. Read when the plugin starts. */
import * as v from "valibot";
import { defineSettings, setting, wholeNumber } from "../../src/protocol/plugin-settings.ts";
import { isTimeZone } from "../sdk/time-zone.ts";

export const SETTINGS = defineSettings({
  doc: "Events live in DATA/calendar/*.ics.",
  schema: v.strictObject({
    timezone: setting(
      v.pipe(
        v.string(),
        v.check((s) => s === "" || isTimeZone(s), "must be an IANA time zone such as Europe/Berlin, or empty"),
      ),
      "",
      "Time zone of times given without one; empty: the machine's.",
    ),
    max_list: setting(
      wholeNumber(1, 10_000),
      200,
      "Occurrences one calendar_list shows at most (recurring events expand).",
    ),
    max_import_kb: setting(wholeNumber(1, 1_048_576), 4096, "Largest .ics file calendar_import reads (KiB)."),
  }),
  reload: "daemon-restart",
});
