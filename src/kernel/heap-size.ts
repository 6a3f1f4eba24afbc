/**
 * The JavaScript engine sizes its heap by the machine's memory, and lets it double between full
 * collections while it is small: on a 24 GiB machine the kernel's garbage reached ~280 MiB under
 * 20 streaming turns before a full collection, and the web plugin's ~200 MiB (docs/BENCHMARKS.md,
 * memory under load). homed is a small daemon on a 2 GiB board as on a workstation, so its
 * processes run with ENGINE_OPTIONS: the heap sized as if the machine had 512 MiB, and grown by
 * 1.2 instead of 2 between full collections while it is small (the kernel's peak under that load
 * went 170–180 → 120–125 MiB with 1.3, the whole peak 5–11 MiB lower again with 1.2, turns per
 * second alike). JavaScriptCore reads its options from the
 * environment when it starts, so the daemon sets them by replacing itself (execve: same pid,
 * nothing left behind) before anything is loaded, and hands them to its plugins. An owner who
 * set one keeps their value.
 */

/** JavaScriptCore's options (`BUN_JSC_<option>`) every homed process runs with. */
export const ENGINE_OPTIONS: Readonly<Record<string, string>> = {
  BUN_JSC_forceRAMSize: String(512 * 1024 * 1024),
  BUN_JSC_smallHeapGrowthFactor: "1.2",
};

/** The engine options set in `env` (the daemon's, after sizeHeap): what its plugins get too. */
export function engineEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(ENGINE_OPTIONS)) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * Replace this process with itself, its engine run with ENGINE_OPTIONS; returns when it already
 * is, or cannot be (an arm64 binary run by qemu-user cannot exec itself without binfmt: it then
 * runs with the engine's own sizing, as before).
 */
export function sizeHeap(): void {
  const missing = Object.entries(ENGINE_OPTIONS).filter(([name]) => process.env[name] === undefined);
  if (missing.length === 0 || typeof process.execve !== "function") return;
  // A compiled binary's argv[1] is its embedded entry point ("/$bunfs/root/homed"), not an argument.
  const compiled = process.argv[1]?.startsWith("/$bunfs/") ?? false;
  const args = [process.execPath, ...process.argv.slice(compiled ? 2 : 1)];
  // The runtime calls execve experimental on every start; the daemon's stderr is its log.
  const warn = process.emitWarning;
  process.emitWarning = () => {};
  try {
    process.execve(process.execPath, args, { ...process.env, ...Object.fromEntries(missing) });
  } catch {
    // Not replaced: this process goes on as it is.
  } finally {
    process.emitWarning = warn;
  }
}
