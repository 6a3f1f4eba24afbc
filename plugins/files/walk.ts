/**
 * Walking a folder for files_glob and files_grep with Bun.Glob, kept inside it: patterns with
 * `..` segments or a leading `/` are refused, symlinked folders are not descended
 * (followSymlinks: false), and every result is checked to lie under the folder. The walk starts
 * in the folder as opened beneath its root (`/proc/self/fd/N`), not at its name; below it
 * Bun.Glob descends by name, so a folder swapped for a symlink mid-walk can lead it out, and
 * the callers look each result up again beneath the root (glob drops what is not there, grep
 * opens every file through the confinement). It yields
 * to the event loop now and then, so a long one still answers the kernel's pings and a cancel.
 */
import { isAbsolute, join, relative, sep } from "node:path";
import { FilesError } from "../sdk/confine.ts";
import { at } from "../sdk/dir-entry.ts";

/** Refuse a glob that could climb out of the folder it is matched under. */
export function checkPattern(pattern: string, field: string): void {
  if (pattern.includes("\0")) throw new FilesError(`${field} contains a NUL character`);
  if (isAbsolute(pattern) || pattern.startsWith("~"))
    throw new FilesError(
      `${field} must be relative to path (put the folder in path, e.g. path: "/srv/notes", ${field}: "**/*.md")`,
    );
  // ".." as a path segment or as a brace alternative ({..,src}) alike.
  if (/(^|[/\\{,])\.\.($|[/\\},])/.test(pattern))
    throw new FilesError(`${field} must not contain ".." segments; set path to the folder to search instead`);
}

export interface WalkOptions {
  pattern: string;
  /** Real path of the folder to match under (how results are named). */
  dir: string;
  /** The same folder, opened beneath its root: where the walk actually runs. */
  dirFd: number;
  /** Stop after this many matches (the caller says so). */
  max: number;
  signal?: AbortSignal;
}

/** Matching paths (absolute) under `dir`, at most `max`; `truncated` when the walk stopped early. */
export async function walk(opts: WalkOptions): Promise<{ paths: string[]; truncated: boolean }> {
  const glob = new Bun.Glob(opts.pattern);
  const paths: string[] = [];
  let seen = 0;
  for await (const rel of glob.scan({ cwd: at(opts.dirFd), dot: false, followSymlinks: false, onlyFiles: true })) {
    if (opts.signal?.aborted) throw new FilesError("cancelled");
    if (++seen % 256 === 0) await new Promise((r) => setImmediate(r));
    const abs = join(opts.dir, rel);
    const back = relative(opts.dir, abs);
    if (back.startsWith(`..${sep}`) || back === ".." || isAbsolute(back)) continue;
    paths.push(abs);
    if (paths.length >= opts.max) return { paths, truncated: true };
  }
  return { paths, truncated: false };
}
