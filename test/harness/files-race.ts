/**
 * The files tools against a symlink race, as issue 28 found it: the files plugin of the compiled
 * binary (`homed plugin files`, driven like the kernel does over stdio) is asked to write, edit,
 * move and delete files under `r2/` in its workspace, again and again, while another process
 * (test/fixtures/link-swapper.ts) swaps `r2` between a real folder and a symlink to a folder
 * outside every root. After each call the outside folder is compared with what was put there:
 * any file added, changed or removed is an escape (counted, then put back). Shared by
 * test/tools/files-race.test.ts and bench/reliability/files-race.ts.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, ROOT } from "./binary.ts";
import { startMediaPlugin } from "./media-rig.ts";

/** What lies outside, name → content: the bait each tool would hit through the swapped link. */
const BAIT: Record<string, string> = { "e.txt": "alpha\n", "d.txt": "keep\n", "m.txt": "keep\n" };

export interface RaceResult {
  /** Tool calls made (refusals included). */
  calls: number;
  /** Calls after which the outside folder had changed. */
  escapes: number;
  /** Escapes by tool. */
  byTool: Record<string, number>;
  /** Calls that answered an error (refused as outside, or lost the race harmlessly). */
  refused: number;
  seconds: number;
}

/** One round of calls: each file is made through the tools first, then acted on. */
const ROUND: [string, Record<string, unknown>][] = [
  ["files_write", { path: "r2/pwn.txt", content: "pwned\n" }],
  ["files_write", { path: "r2/e.txt", content: "alpha\n" }],
  ["files_edit", { path: "r2/e.txt", old_string: "alpha", new_string: "beta" }],
  ["files_write", { path: "r2/m.txt", content: "mine\n" }],
  ["files_move", { from: "r2/m.txt", to: "r2/m2.txt", overwrite: true }],
  ["files_write", { path: "r2/d.txt", content: "mine\n" }],
  ["files_delete", { path: "r2/d.txt" }],
  ["files_delete", { path: "r2/pwn.txt" }],
];

function outsideChanged(outside: string): boolean {
  const names = readdirSync(outside).sort();
  const want = Object.keys(BAIT).sort();
  if (names.join("\0") !== want.join("\0")) return true;
  return want.some((n) => readFileSync(join(outside, n), "utf8") !== BAIT[n]);
}

function restore(outside: string): void {
  rmSync(outside, { recursive: true, force: true });
  mkdirSync(outside);
  for (const [name, text] of Object.entries(BAIT)) writeFileSync(join(outside, name), text);
}

/**
 * Run rounds until `calls` calls were made. `dataDir` is an empty folder the run may fill;
 * `env` goes to the plugin (HOMED_OPEN_BENEATH=walk tests the fallback).
 */
export async function filesRace(dataDir: string, calls: number, env: Record<string, string> = {}): Promise<RaceResult> {
  const ws = join(dataDir, "workspace");
  const outside = join(dataDir, "outside");
  mkdirSync(ws, { recursive: true });
  restore(outside);
  await using rig = await startMediaPlugin(dataDir, {}, ["workspace"], process.env.PATH, "files", env);
  const swapper = Bun.spawn([BUN, join(ROOT, "test/fixtures/link-swapper.ts"), join(ws, "r2"), outside], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const result: RaceResult = { calls: 0, escapes: 0, byTool: {}, refused: 0, seconds: 0 };
  const t0 = performance.now();
  try {
    const reader = swapper.stdout.getReader();
    const first = await reader.read();
    if (!new TextDecoder().decode(first.value).startsWith("swapping"))
      throw new Error("the link swapper did not start");
    reader.releaseLock();
    while (result.calls < calls) {
      for (const [tool, args] of ROUND) {
        const answer = await rig.tool(tool, args);
        result.calls++;
        if (answer.isError) result.refused++;
        if (outsideChanged(outside)) {
          result.escapes++;
          result.byTool[tool] = (result.byTool[tool] ?? 0) + 1;
          restore(outside);
        }
      }
      if (swapper.exitCode !== null) throw new Error(`the link swapper exited (${swapper.exitCode})`);
    }
  } finally {
    swapper.kill();
    await swapper.exited;
  }
  result.seconds = (performance.now() - t0) / 1000;
  return result;
}

/**
 * files_glob and files_grep over the workspace while `top/r2` is swapped with a symlink to a
 * folder holding only `only-outside.txt` (text "secret"): how many of `calls` answers of each
 * named that file. A walk may step through the link mid-swap; nothing it finds there may be shown.
 */
export async function walkRace(
  dataDir: string,
  calls: number,
  env: Record<string, string> = {},
): Promise<{ globLeaks: number; grepLeaks: number; globFound: number }> {
  const ws = join(dataDir, "workspace");
  const outside = join(dataDir, "outside");
  mkdirSync(join(ws, "top"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, "only-outside.txt"), "secret\n");
  await using rig = await startMediaPlugin(dataDir, {}, ["workspace"], process.env.PATH, "files", env);
  const swapper = Bun.spawn([BUN, join(ROOT, "test/fixtures/link-swapper.ts"), join(ws, "top/r2"), outside], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = { globLeaks: 0, grepLeaks: 0, globFound: 0 };
  try {
    const reader = swapper.stdout.getReader();
    await reader.read();
    reader.releaseLock();
    writeFileSync(join(ws, "top/inside.txt"), "secret too\n");
    for (let i = 0; i < calls; i++) {
      const glob = await rig.tool("files_glob", { pattern: "**/*.txt" });
      if (glob.content.includes("only-outside")) out.globLeaks++;
      if (glob.content.includes("top/inside.txt")) out.globFound++;
      const grep = await rig.tool("files_grep", { pattern: "secret" });
      if (grep.content.includes("only-outside")) out.grepLeaks++;
    }
  } finally {
    swapper.kill();
    await swapper.exited;
  }
  return out;
}
