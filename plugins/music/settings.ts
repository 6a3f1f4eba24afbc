/** [tools.music]: the music library and the mpv that plays it, read when the plugin starts. */
import * as v from "valibot";
import { configFileOnly, defineSettings, setting } from "../../src/protocol/plugin-settings.ts";

export const SETTINGS = defineSettings({
  doc: "",
  schema: v.strictObject({
    library: setting(
      v.array(v.pipe(v.string(), v.minLength(1, "must not be empty"))),
      ["music"],
      "Folders of music files: absolute, or relative to the data dir.",
    ),
    mpv: setting(configFileOnly(v.string()), "/usr/bin/mpv", "mpv plays (JSON IPC); without it music_play says so."),
    audio_output: setting(
      v.pipe(v.string(), v.regex(/^[a-z0-9_,-]*$/, "must be an mpv --ao name")),
      "",
      `mpv's --ao: "" lets mpv choose, "null" plays silently (a machine without sound).`,
    ),
  }),
  reload: "daemon-restart",
});
