/**
 * files_write, and the atomic write files_edit shares: the content goes to a new temporary file
 * beside the target (O_EXCL, O_NOFOLLOW, checked to be inside a root), is fsynced, and is
 * renamed over the target. A reader sees the old file or the new one, never half of either;
 * a crash leaves at most a `.NAME.*.homed-tmp` file behind. rename(2) replaces the directory
 * entry and never follows a symlink there, so nothing outside a root can be written through it.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  lstatSync,
  openSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeSync,
} from "node:fs";
import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";
import { type Confinement, FilesError, type Resolved, refuseIrregular } from "../sdk/confine.ts";
import { formatSize } from "./text.ts";

export interface WriteArgs {
  path: string;
  content: string;
}

/** The existing file at a write target (a regular, singly linked file), or undefined. */
export function existingTarget(target: Resolved, what: string): Stats | undefined {
  if (!target.exists) return undefined;
  const st = lstatSync(target.real);
  refuseIrregular(st, what);
  return st;
}

/** Replace (or create) `target.real` with `bytes`, atomically; keeps an existing file's mode. */
export function writeAtomic(c: Confinement, target: Resolved, bytes: Uint8Array, what: string, old?: Stats): void {
  const dir = dirname(target.real);
  const tmp = join(dir, `.${basename(target.real)}.${randomBytes(6).toString("hex")}.homed-tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  let closed = false;
  let renamed = false;
  try {
    c.checkDescriptor(fd, what);
    if (old) fchmodSync(fd, old.mode & 0o7777);
    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
    fsyncSync(fd);
    closeSync(fd);
    closed = true;
    renameSync(tmp, target.real);
    renamed = true;
  } finally {
    if (!closed) closeSync(fd);
    if (!renamed) {
      try {
        unlinkSync(tmp);
      } catch {}
    }
  }
}

export function filesWrite(c: Confinement, args: WriteArgs, maxWriteKb: number): string {
  const bytes = new TextEncoder().encode(args.content);
  if (bytes.length > maxWriteKb * 1024)
    throw new FilesError(
      `content is ${formatSize(bytes.length)}; files_write takes at most ${formatSize(maxWriteKb * 1024)} (max_write_kb) per file`,
    );
  const target = c.forWrite(args.path);
  const what = c.display(target.real);
  const old = existingTarget(target, what);
  if (!target.exists) c.makeParents(target);
  writeAtomic(c, target, bytes, what, old);
  const lines = args.content === "" ? 0 : args.content.split("\n").length - (args.content.endsWith("\n") ? 1 : 0);
  const how = old ? `replaced ${formatSize(old.size)}` : "new file";
  return `wrote ${what}: ${formatSize(bytes.length)}, ${lines} line${lines === 1 ? "" : "s"} (${how})`;
}
