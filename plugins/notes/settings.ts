/** [tools.notes]: Markdown notes in DATA/notes/. Read when the plugin starts. */
import * as v from "valibot";
import { defineSettings, setting, wholeNumber } from "../../src/protocol/plugin-settings.ts";

export const SETTINGS = defineSettings({
  doc: "Markdown notes in DATA/notes/.",
  schema: v.strictObject({
    max_kb: setting(wholeNumber(1, 65_536), 1024, "Largest note (KiB)."),
    index_memory: setting(
      v.boolean("must be true or false"),
      true,
      "Index each note's text into memory, so memory_search finds it.",
    ),
  }),
  reload: "daemon-restart",
});
