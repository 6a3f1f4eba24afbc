/**
 * Issue 28's race, black box: the files plugin of the compiled binary writes, edits, moves and
 * deletes under `r2/` while another process swaps `r2` for a symlink to a folder outside the
 * roots and back (test/harness/files-race.ts). Nothing outside may be written, changed or
 * removed, through openat2 and through the O_NOFOLLOW walk the shim falls back to; and the
 * calls that won the race did their work inside, so the test is not passing by refusing all.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { filesRace, walkRace } from "../harness/files-race.ts";
import { tempDir } from "../harness/binary.ts";

/** Against the code before the fix (a73b84d), 4,000 calls let 40–200 of them change the outside. */
const CALLS = 4000;

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir("homed-files-race-");
});
afterEach(() => dir[Symbol.dispose]());

for (const way of ["openat2", "walk"] as const) {
  test(`a folder swapped for a symlink mid-call redirects no write, edit, move or delete (${way})`, async () => {
    const r = await filesRace(dir.path, CALLS, way === "walk" ? { HOMED_OPEN_BENEATH: "walk" } : {});
    expect(r.calls).toBe(CALLS);
    expect({ escapes: r.escapes, byTool: r.byTool }).toEqual({ escapes: 0, byTool: {} });
    // Some calls got through, inside: the race was run, not just refused wholesale.
    expect(r.calls - r.refused).toBeGreaterThan(CALLS / 50);
  }, 60_000);
}

test("files_glob and files_grep walking through a folder swapped for a symlink show nothing from outside", async () => {
  const r = await walkRace(dir.path, 500);
  expect(r).toEqual({ globLeaks: 0, grepLeaks: 0, globFound: 500 });
}, 60_000);
