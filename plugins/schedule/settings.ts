/** [tools.schedules]: the schedule plugin's limits and default time zone, read when it starts. */
import * as v from "valibot";
import { defineSettings, setting, wholeNumber } from "../../src/protocol/plugin-settings.ts";
import { isTimeZone } from "../sdk/time-zone.ts";

export const SETTINGS = defineSettings({
  doc: "",
  schema: v.strictObject({
    timezone: setting(
      v.pipe(
        v.string(),
        v.check((s) => s === "" || isTimeZone(s), "must be an IANA time zone such as Europe/Berlin, or empty"),
      ),
      "",
      `Time zone for schedules that name none, e.g. "Europe/Berlin"; empty: the machine's.`,
    ),
    max_jobs: setting(
      wholeNumber(1, 10_000),
      200,
      "Jobs waiting to run at once (cancelled and finished ones do not count).",
    ),
    min_interval_minutes: setting(wholeNumber(1, 10_080), 1, "The shortest gap between two runs of one job (minutes)."),
    max_prompt_chars: setting(wholeNumber(1, 100_000), 4000, "The longest prompt a job may carry (characters)."),
  }),
  reload: "daemon-restart",
});
