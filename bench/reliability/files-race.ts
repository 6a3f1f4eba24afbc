/**
 * security.files_race_calls, security.files_race_escapes: the files plugin of dist/homed writes,
 * edits, moves and deletes under a folder that a background process swaps for a symlink to a
 * folder outside the roots and back, as fast as it can (test/harness/files-race.ts). An escape
 * is a call after which anything outside was added, changed or removed; the goal is 0.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { filesRace } from "../../test/harness/files-race.ts";
import { report } from "../report.ts";

const CALLS = 6000;

export async function benchFilesRace(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "homed-bench-race-"));
  try {
    const r = await filesRace(dir, CALLS);
    report("security.files_race_calls", r.calls, "calls", 0);
    report("security.files_race_escapes", r.escapes, "escapes", 0);
    console.error(
      `files race: ${r.calls} calls in ${r.seconds.toFixed(1)} s, ${r.calls - r.refused} done inside, ${r.escapes} escapes ${JSON.stringify(r.byTool)}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchFilesRace();
