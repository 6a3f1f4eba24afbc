/**
 * files_glob: paths matching a glob under a folder, newest first (or by name), at most `limit`
 * shown with "N more". At most GLOB_SCAN_MAX matches are collected before sorting, so a pattern
 * like "**" over a huge tree answers quickly and says it stopped.
 */
import { closeSync } from "node:fs";
import { type Confinement, FilesError } from "../sdk/confine.ts";
import { checkPattern, walk } from "./walk.ts";

export const GLOB_SCAN_MAX = 10_000;
const DEFAULT_LIMIT = 200;

export interface GlobArgs {
  pattern: string;
  path?: string;
  sort?: "mtime" | "name";
  limit?: number;
}

export async function filesGlob(c: Confinement, args: GlobArgs, signal?: AbortSignal): Promise<string> {
  checkPattern(args.pattern, "pattern");
  const { real, root } = c.existing(args.path ?? ".");
  const where = c.display(real);
  const dirFd = c.openFolder(real, args.path ?? ".");
  if (dirFd === undefined) throw new FilesError(`${where} is a file; path must be a folder to search under`);
  let found: Awaited<ReturnType<typeof walk>>;
  try {
    found = await walk({ pattern: args.pattern, dir: real, dirFd, max: GLOB_SCAN_MAX, signal });
  } finally {
    closeSync(dirFd);
  }
  const { paths, truncated } = found;
  if (paths.length === 0) return `no files match ${JSON.stringify(args.pattern)} under ${where}`;
  // Bun.Glob descends by name, so a folder swapped for a symlink mid-walk can lead it out:
  // each match is looked up again in its folder opened beneath the root, and one whose folder
  // is not there (outside, or gone) is dropped.
  const rows = paths.flatMap((p) => {
    try {
      using e = c.entryAt(p, root, p);
      const st = e.lstat();
      return st ? [{ shown: c.display(p), mtime: st.mtimeMs }] : [];
    } catch (err) {
      if (err instanceof FilesError) return [];
      return [{ shown: c.display(p), mtime: 0 }];
    }
  });
  if (rows.length === 0) return `no files match ${JSON.stringify(args.pattern)} under ${where}`;
  if ((args.sort ?? "mtime") === "mtime") rows.sort((a, b) => b.mtime - a.mtime || cmp(a.shown, b.shown));
  else rows.sort((a, b) => cmp(a.shown, b.shown));
  const limit = args.limit ?? DEFAULT_LIMIT;
  const out = rows.slice(0, limit).map((r) => r.shown);
  const rest = rows.length - out.length;
  if (rest > 0) out.push(`… and ${rest}${truncated ? "+" : ""} more (raise limit or narrow the pattern)`);
  else if (truncated) out.push(`… stopped after ${GLOB_SCAN_MAX} matches (narrow the pattern)`);
  return out.join("\n");
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
