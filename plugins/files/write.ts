/**
 * files_write, and the atomic write files_edit shares: the target's folder is opened beneath its
 * root (confine.ts), the content goes to a new temporary file in that open folder (O_EXCL,
 * O_NOFOLLOW), is fsynced, and is renamed over the target's name in the same folder
 * (dir-entry.ts). A reader sees the old file or the new one, never half of either; a crash
 * leaves at most a `.NAME.*.homed-tmp` file behind. rename(2) replaces the directory entry and
 * never follows a symlink there, so nothing outside a root can be written through it.
 */
import type { Stats } from "node:fs";
import { type Confinement, FilesError } from "../sdk/confine.ts";
import { type DirEntry, refuseIrregular, writeAtomicAt } from "../sdk/dir-entry.ts";
import { formatSize } from "./text.ts";

export interface WriteArgs {
  path: string;
  content: string;
}

/** The existing file at a write target (a regular, singly linked file), or undefined. */
export function existingTarget(e: DirEntry, what: string): Stats | undefined {
  const st = e.lstat();
  if (st) refuseIrregular(st, what);
  return st;
}

export function filesWrite(c: Confinement, args: WriteArgs, maxWriteKb: number): string {
  const bytes = new TextEncoder().encode(args.content);
  if (bytes.length > maxWriteKb * 1024)
    throw new FilesError(
      `content is ${formatSize(bytes.length)}; files_write takes at most ${formatSize(maxWriteKb * 1024)} (max_write_kb) per file`,
    );
  const target = c.forWrite(args.path);
  const what = c.display(target.real);
  using e = c.writeEntry(target, args.path);
  const old = existingTarget(e, what);
  writeAtomicAt(e, bytes, old?.mode);
  const lines = args.content === "" ? 0 : args.content.split("\n").length - (args.content.endsWith("\n") ? 1 : 0);
  const how = old ? `replaced ${formatSize(old.size)}` : "new file";
  return `wrote ${what}: ${formatSize(bytes.length)}, ${lines} line${lines === 1 ? "" : "s"} (${how})`;
}
