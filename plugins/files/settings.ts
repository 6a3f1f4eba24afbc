/** [tools.files]: the folders the files tools (and the sandbox, media, calendar) may touch. */
import * as v from "valibot";
import { KERNEL_READS, kernelReads } from "../../src/protocol/kernel-reads.ts";
import { defineSettings, setting, wholeNumber } from "../../src/protocol/plugin-settings.ts";

export const SETTINGS = defineSettings({
  doc: "",
  schema: v.strictObject({
    roots: setting(
      v.array(v.pipe(v.string(), v.minLength(1, "must not be empty"))),
      ["workspace"],
      `Folders files_* may read and write: absolute, or relative to the data dir. Nothing outside
them is reachable (no .., no symlinks or hard links out, no /proc).`,
    ),
    trusted: setting(
      v.array(v.pipe(v.string(), v.minLength(1, "must not be empty"))),
      [],
      `Folders whose files are your own (absolute, or relative to the data dir; "workspace" for the
workspace): what files_read, _list, _glob, _grep and _edit show of them carries no untrusted
mark, so allowed writes and commands after reading them run unasked. Name only folders nobody
else writes to (not a download folder, not a checkout of someone else's code).`,
    ),
    max_read_kb: setting(
      kernelReads(wholeNumber(1, 1_048_576), KERNEL_READS.readMaxKb),
      256,
      "Files larger than this (KiB) are read a page at a time.",
    ),
    max_write_kb: setting(wholeNumber(1, 1_048_576), 10_240, "Largest file files_write and files_edit write (KiB)."),
  }),
  reload: "daemon-restart",
});
