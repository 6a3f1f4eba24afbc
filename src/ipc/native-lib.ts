/**
 * Loading a shared library into the process ahead of a native addon that needs it. A `.node`
 * addon's DT_NEEDED entries are matched against the sonames of libraries already loaded, so a
 * library embedded in the compiled binary (and unpacked by Bun to a path the system linker would
 * never search) is found once it is loaded here first. bun:ffi lives in src/ipc only.
 */
import { dlopen, FFIType } from "bun:ffi";
import { HomedError } from "../protocol/errors.ts";

const loaded = new Set<string>();

/** dlopen `path` (idempotent); `symbol` is any function it exports, to prove it is the right library. */
export function preloadLibrary(path: string, symbol: string): void {
  if (loaded.has(path)) return;
  try {
    dlopen(path, { [symbol]: { args: [], returns: FFIType.ptr } });
  } catch (err) {
    throw new HomedError("native", `cannot load ${path}: ${(err as Error).message}`, {}, { cause: err });
  }
  loaded.add(path);
}
