/** [tools.notes]: Markdown notes in DATA/notes/. Read when the plugin starts. */
import * as v from "valibot";
import { defineSettings, setting } from "../../src/protocol/plugin-settings.ts";

export const SETTINGS = defineSettings({
  doc: "Markdown notes in DATA/notes/.",
  schema: v.strictObject({
    max_kb: setting(
      v.pipe(v.number("must be a number"), v.integer("must be an integer"), v.minValue(1), v.maxValue(65_536)),
      1024,
      "Largest note (KiB).",
    ),
    index_memory: setting(
      v.boolean("must be true or false"),
      true,
      "Index each note's text into memory, so memory_search finds it.",
    ),
  }),
  reload: "daemon-restart",
});
