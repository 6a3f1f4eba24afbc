/**
 * One name in a folder the confinement opened beneath a root (confine.ts): what every write,
 * move and delete acts on once the path has been checked. The folder is held as a descriptor
 * and the name is a single component, so nothing is looked up again from the root: swapping a
 * folder on the way for a symlink after the folder was opened changes nothing.
 *
 * node:fs reaches the entry as `/proc/self/fd/N/name`. The kernel resolves that magic link to
 * the open folder itself and then looks up `name` alone in it — the same lookup as openat,
 * renameat or unlinkat with N as the directory — so a single component there is as safe as
 * the *at calls; a path of several components there would not be, and is never built.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmdirSync,
  type Stats,
  unlinkSync,
  writeSync,
} from "node:fs";
import { randomBytes } from "node:crypto";
import type { Root } from "./confine.ts";
import { FilesError } from "./files-error.ts";

/** The node:fs name of `name` in the open folder `dirFd` (the folder itself without a name). */
export function at(dirFd: number, name?: string): string {
  if (name === undefined) return `/proc/self/fd/${dirFd}`;
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0"))
    throw new Error(`not a single path component: ${JSON.stringify(name)}`);
  return `/proc/self/fd/${dirFd}/${name}`;
}

/** A folder held open beneath a root and one entry name in it; disposing closes the folder. */
export class DirEntry {
  constructor(
    /** The folder, opened beneath `root` (O_RDONLY | O_DIRECTORY). */
    readonly dir: number,
    /** A single component. */
    readonly name: string,
    /** The checked real path of the entry (for messages and display only). */
    readonly real: string,
    readonly root: Root,
  ) {}

  /** The node:fs name of this entry, or of a sibling `other` in the same folder. */
  path(other = this.name): string {
    return at(this.dir, other);
  }

  /** lstat of the entry; undefined when there is none. */
  lstat(): Stats | undefined {
    try {
      return lstatSync(this.path());
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
  }

  /**
   * Open the entry, a regular file with one link (flags from node:fs constants): lstat-ed in its
   * folder first (a FIFO or a device is refused before an open could block or act on it),
   * opened O_NOFOLLOW, and the descriptor must be the inode that was looked at. `what` is how
   * the model named it. The caller closes the descriptor.
   */
  openFile(what: string, flags: number): { fd: number; stat: Stats } {
    const before = lstatSync(this.path());
    refuseIrregular(before, what);
    const fd = openSync(this.path(), flags | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
    try {
      const stat = fstatSync(fd);
      if (stat.ino !== before.ino || stat.dev !== before.dev)
        throw new FilesError(`${what} changed while it was being opened; try again`);
      refuseIrregular(stat, what);
      return { fd, stat };
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  [Symbol.dispose](): void {
    closeSync(this.dir);
  }
}

/**
 * Replace (or create) the entry with `bytes`, atomically: a new temporary file beside it
 * (O_CREAT | O_EXCL | O_NOFOLLOW in the open folder), fsynced, renamed over the name in the
 * same folder. A reader sees the old file or the new one; a crash leaves at most a
 * `.NAME.*.homed-tmp` file. `mode` keeps an existing file's permission bits.
 */
export function writeAtomicAt(e: DirEntry, bytes: Uint8Array, mode?: number): void {
  const tmp = `.${e.name}.${randomBytes(6).toString("hex")}.homed-tmp`;
  const fd = openSync(
    e.path(tmp),
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o644,
  );
  let closed = false;
  let renamed = false;
  try {
    if (mode !== undefined) fchmodSync(fd, mode & 0o7777);
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    fsyncSync(fd);
    closeSync(fd);
    closed = true;
    renameSync(e.path(tmp), e.path());
    renamed = true;
  } finally {
    if (!closed) closeSync(fd);
    if (!renamed) {
      try {
        unlinkSync(e.path(tmp));
      } catch {}
    }
  }
}

/**
 * Remove everything inside the open folder `dirFd`, depth first, each entry by its single name
 * in its own open folder: a subfolder is opened O_NOFOLLOW before it is descended, so one
 * swapped for a symlink is removed as the link, never followed.
 */
export function emptyFolder(dirFd: number): void {
  for (const name of readdirSync(at(dirFd))) {
    let sub: number | undefined;
    try {
      sub = openSync(at(dirFd, name), constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOTDIR" && code !== "ELOOP") throw err;
    }
    if (sub === undefined) {
      unlinkSync(at(dirFd, name));
      continue;
    }
    try {
      emptyFolder(sub);
    } finally {
      closeSync(sub);
    }
    rmdirSync(at(dirFd, name));
  }
}

/** The refusal for anything but a regular file with a single link. */
export function refuseIrregular(st: Stats, what: string): void {
  if (st.isDirectory()) throw new FilesError(`${what} is a folder; use files_list or files_glob for folders`);
  if (st.isSymbolicLink()) throw new FilesError(`${what} is a symlink; give the path it points to`);
  if (st.isFIFO())
    throw new FilesError(`${what} is a FIFO (named pipe); files tools read and write regular files only`);
  if (st.isCharacterDevice() || st.isBlockDevice())
    throw new FilesError(`${what} is a device file; files tools read and write regular files only`);
  if (st.isSocket()) throw new FilesError(`${what} is a socket; files tools read and write regular files only`);
  if (!st.isFile()) throw new FilesError(`${what} is not a regular file`);
  if (st.nlink > 1)
    throw new FilesError(
      `${what} has ${st.nlink} hard links; a hard-linked file may be shared with a place outside the allowed roots, so files tools refuse it (the owner can replace it with a copy)`,
    );
}

/** The whole of an open file (of `size` bytes) as bytes. */
export function readAll(fd: number, size: number): Uint8Array {
  const buf = new Uint8Array(size);
  let at = 0;
  while (at < size) {
    const n = readSync(fd, buf, at, size - at, at);
    if (n === 0) break;
    at += n;
  }
  return buf.subarray(0, at);
}
