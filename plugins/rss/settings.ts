/** [tools.rss]: feed polling and limits, read when the plugin starts. */
import * as v from "valibot";
import { defineSettings, setting, wholeNumber } from "../../src/protocol/plugin-settings.ts";

export const SETTINGS = defineSettings({
  doc: `Feeds are fetched through [tools.fetch]'s address guard (allow_private, allow_hosts,
timeout_ms, max_kb).`,
  schema: v.strictObject({
    poll_minutes: setting(
      wholeNumber(0, 10_080),
      60,
      "Minutes between polls of every feed while the plugin runs (0: only on rss_refresh).",
    ),
    max_feeds: setting(wholeNumber(1, 10_000), 200, "Feeds one may subscribe to at most."),
    max_items: setting(wholeNumber(1, 10_000), 300, "Items kept per feed, newest first; older ones are dropped."),
  }),
  reload: "daemon-restart",
});
