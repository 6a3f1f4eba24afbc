/**
 * The JavaScript engine sizes its heap by the machine's memory: on a 24 GiB machine it let the
 * kernel's garbage reach ~280 MiB under 20 streaming turns before a full collection, and the web
 * plugin's ~200 MiB (docs/BENCHMARKS.md, memory under load). homed is a small daemon on a 2 GiB
 * board as on a workstation, so its processes size their heaps as if the machine had
 * HEAP_RAM_BYTES: JavaScriptCore's `forceRAMSize`, read from the environment when the engine
 * starts. The daemon sets it by replacing itself (execve: same pid, nothing left behind) before
 * anything is loaded, and hands it to its plugins. An owner who set it keeps their value.
 */

/** The environment variable JavaScriptCore reads its forceRAMSize option from. */
export const HEAP_ENV = "BUN_JSC_forceRAMSize";
/** The memory the engine sizes its heap for. */
export const HEAP_RAM_BYTES = 512 * 1024 * 1024;

/**
 * Replace this process with itself, its engine sized by HEAP_RAM_BYTES; returns when it already
 * is, or cannot be (an arm64 binary run by qemu-user cannot exec itself without binfmt: it then
 * runs with the engine's own sizing, as before).
 */
export function sizeHeap(): void {
  if (process.env[HEAP_ENV] !== undefined || typeof process.execve !== "function") return;
  // A compiled binary's argv[1] is its embedded entry point ("/$bunfs/root/homed"), not an argument.
  const compiled = process.argv[1]?.startsWith("/$bunfs/") ?? false;
  const args = [process.execPath, ...process.argv.slice(compiled ? 2 : 1)];
  // The runtime calls execve experimental on every start; the daemon's stderr is its log.
  const warn = process.emitWarning;
  process.emitWarning = () => {};
  try {
    process.execve(process.execPath, args, { ...process.env, [HEAP_ENV]: String(HEAP_RAM_BYTES) });
  } catch {
    // Not replaced: this process goes on as it is.
  } finally {
    process.emitWarning = warn;
  }
}
