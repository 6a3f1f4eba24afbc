/**
 * Where the files tools (and the media tools, which read the same roots) may go: the folders of
 * [tools.files] roots and nothing else. Shared in the SDK because plugins never import each other.
 *
 * A path the model gives is relative to the first root or absolute inside a root. It is checked
 * twice: lexically (no `..` out of a root), then on disk — `realpath` resolves every symlink
 * component and the result must still lie inside a root (any root: a link from one root into
 * another is fine). Paths that do not exist yet (a file to write) are resolved through their
 * deepest existing ancestor. /proc, /sys and /dev are refused even under a root of "/".
 *
 * Opening repeats the check on what was actually opened: O_NOFOLLOW, the same inode as was
 * checked, and the kernel's own name for the descriptor (/proc/self/fd/N) inside a root, so a
 * symlink swapped in between check and open is caught. Regular files only (no FIFOs, devices,
 * sockets), and none with more than one hard link: a hard link is indistinguishable from the
 * file it shares, which may live outside every root.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  readlinkSync,
  realpathSync,
  type Stats,
} from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** A failure the model can act on; the tool wrapper prefixes the tool's name. */
export class FilesError extends Error {
  override name = "FilesError";
}

export interface Root {
  /** As the owner wrote it in config.toml. */
  label: string;
  /** Absolute, before symlinks are resolved (how a person may spell it). */
  given: string;
  /** Absolute, symlinks resolved: what every check compares against. */
  real: string;
}

/** A checked path: `real` has every symlink resolved and lies inside `root`. */
export interface Resolved {
  real: string;
  root: Root;
  /** False when the file does not exist yet (only for write resolution). */
  exists: boolean;
}

/** Kernel filesystems no files tool touches, whatever the roots say. */
const FORBIDDEN_TREES = ["/proc", "/sys", "/dev"];

const within = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

export class Confinement {
  private resolvedRoots: Root[] | undefined;

  /**
   * @param roots as configured: absolute, or relative to `dataDir`; made on first use.
   * @param dataDir the daemon's data dir.
   * @param tools who is confined, as the refusal names them ("files tools", "media tools").
   */
  constructor(
    private readonly roots: readonly string[],
    private readonly dataDir: string,
    private readonly tools = "files tools",
  ) {
    if (roots.length === 0) throw new FilesError("no roots are configured ([tools.files] roots is empty)");
  }

  /** The roots, made (0700) and resolved on first use. */
  allRoots(): Root[] {
    if (this.resolvedRoots) return this.resolvedRoots;
    const out: Root[] = [];
    for (const label of this.roots) {
      const given = resolve(this.dataDir, label);
      try {
        mkdirSync(given, { recursive: true, mode: 0o700 });
      } catch (err) {
        throw new FilesError(`the root ${label} (${given}) cannot be made: ${errno(err) ?? (err as Error).message}`);
      }
      const real = realpathSync(given);
      if (!lstatSync(real).isDirectory()) throw new FilesError(`the root ${label} (${real}) is not a folder`);
      if (FORBIDDEN_TREES.some((t) => within(real, t)))
        throw new FilesError(
          `the root ${label} (${real}) is inside ${FORBIDDEN_TREES.join(", ")}, which files tools never touch`,
        );
      out.push({ label, given, real });
    }
    this.resolvedRoots = out;
    return out;
  }

  /** The folder relative paths start from. */
  workspace(): Root {
    return this.allRoots()[0] as Root;
  }

  /** How the model should see a real path: relative to the workspace, else absolute. */
  display(real: string): string {
    const ws = this.workspace().real;
    if (real === ws) return ".";
    return within(real, ws) ? relative(ws, real) : real;
  }

  /** The root holding a real (symlink-free) path, if any. */
  rootOf(real: string): Root | undefined {
    if (FORBIDDEN_TREES.some((t) => within(real, t))) return undefined;
    return this.allRoots().find((r) => within(real, r.real));
  }

  private outside(input: string): FilesError {
    const roots = this.allRoots();
    const ws = this.workspace().real;
    if (roots.length === 1)
      return new FilesError(
        `${input} is outside the allowed roots: ${this.tools} may only use ${ws}; give a path relative to it (e.g. "notes/todo.md")`,
      );
    const list = roots.map((r) => r.real).join(", ");
    return new FilesError(
      `${input} is outside the allowed roots (${list}); give a path relative to the workspace (${ws}) or an absolute path inside a root`,
    );
  }

  /** Lexical step: the absolute path inside a root's real path that `input` names. */
  private lexical(input: string): string {
    if (input.includes("\0")) throw new FilesError("the path contains a NUL character");
    const abs = isAbsolute(input) ? resolve(input) : resolve(this.workspace().real, input);
    for (const r of this.allRoots()) {
      if (within(abs, r.real)) return abs;
      if (within(abs, r.given)) return join(r.real, relative(r.given, abs));
    }
    throw this.outside(input);
  }

  /** A path that must exist (read, list, edit): every symlink resolved and checked. */
  existing(input: string): Resolved {
    const abs = this.lexical(input);
    let real: string;
    try {
      real = realpathSync(abs);
    } catch (err) {
      const code = errno(err);
      if (code === "ENOENT") {
        // Say "outside" rather than "does not exist" past a symlink that leads out: what
        // exists out there is none of the model's business.
        this.forWrite(input);
        throw new FilesError(this.missingMessage(input, abs));
      }
      if (code === "ENOTDIR") throw new FilesError(`${input} does not exist: a part of it is a file, not a folder`);
      if (code === "ELOOP") throw new FilesError(`${input} has a symlink loop`);
      throw err;
    }
    const root = this.rootOf(real);
    if (!root) throw this.outside(input);
    return { real, root, exists: true };
  }

  private missingMessage(input: string, abs: string): string {
    try {
      const l = lstatSync(abs);
      if (l.isSymbolicLink()) return `${input} is a symlink to ${readlinkSync(abs)}, which does not exist`;
    } catch {}
    return `${input} does not exist (files_list or files_glob can find what is there)`;
  }

  /**
   * A file to write: the file itself when it exists (a symlink is followed and its target
   * checked), else its deepest existing ancestor, checked, with the missing names appended.
   */
  forWrite(input: string): Resolved {
    const abs = this.lexical(input);
    const missing: string[] = [];
    let at = abs;
    for (;;) {
      let real: string | undefined;
      try {
        real = realpathSync(at);
      } catch (err) {
        const code = errno(err);
        if (code === "ENOTDIR")
          throw new FilesError(`${input} cannot be written: a part of it is a file, not a folder`);
        if (code === "ELOOP") throw new FilesError(`${input} has a symlink loop`);
        if (code !== "ENOENT") throw err;
      }
      if (real !== undefined) {
        const target = missing.length > 0 ? join(real, ...missing.reverse()) : real;
        const root = this.rootOf(real);
        if (!root) throw this.outside(input);
        return { real: target, root, exists: missing.length === 0 };
      }
      // `at` does not resolve: a dangling symlink is refused, a plain missing name is made later.
      let dangling: string | undefined;
      try {
        if (lstatSync(at).isSymbolicLink()) dangling = readlinkSync(at);
      } catch {}
      if (dangling !== undefined)
        throw new FilesError(
          `${this.display(at)} is a symlink to ${dangling}, which does not exist; files tools do not create symlink targets`,
        );
      missing.push(basename(at));
      const up = dirname(at);
      if (up === at) throw this.outside(input);
      at = up;
    }
  }

  /**
   * A directory entry itself, for moving or deleting it: its parent folder resolved and checked
   * (made when `makeParent`), its own name not followed — a symlink is the link, not its target.
   * A root itself is never an entry.
   */
  entry(input: string, makeParent = false): { real: string; root: Root; what: string } {
    const abs = this.lexical(input);
    if (this.allRoots().some((r) => abs === r.real))
      throw new FilesError(`${input} is an allowed root itself; files tools do not move or delete a root`);
    const parent = this.forWrite(dirname(abs));
    if (!parent.exists) {
      if (!makeParent)
        throw new FilesError(`${input} does not exist (its folder ${this.display(parent.real)} does not)`);
      mkdirSync(parent.real, { recursive: true, mode: 0o755 });
      if (realpathSync(parent.real) !== parent.real || !this.rootOf(parent.real))
        throw new FilesError(`${this.display(parent.real)} changed while it was being made; try again`);
    }
    const real = join(parent.real, basename(abs));
    return { real, root: parent.root, what: this.display(real) };
  }

  /** Make the missing folders above a write target and check they did not land elsewhere. */
  makeParents(target: Resolved): void {
    const dir = dirname(target.real);
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    const real = realpathSync(dir);
    if (real !== dir || !this.rootOf(real))
      throw new FilesError(`${this.display(dir)} changed while it was being made; try again`);
  }

  /**
   * Refuse anything but a regular file with one link. `what` is how the model named it.
   * Returns the lstat of the real path.
   */
  regularFile(real: string, what: string): Stats {
    const st = lstatSync(real);
    refuseIrregular(st, what);
    return st;
  }

  /**
   * Open a checked regular file (flags from node:fs constants). The descriptor is verified to
   * be the inode that was checked and to lie inside a root; the caller closes it.
   */
  openChecked(real: string, what: string, flags: number): { fd: number; stat: Stats } {
    const before = this.regularFile(real, what);
    const fd = openSync(real, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
    try {
      const stat = fstatSync(fd);
      if (stat.ino !== before.ino || stat.dev !== before.dev)
        throw new FilesError(`${what} changed while it was being opened; try again`);
      refuseIrregular(stat, what);
      this.checkDescriptor(fd, what);
      return { fd, stat };
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** The kernel's name for an open descriptor must lie inside a root (skipped only without /proc). */
  checkDescriptor(fd: number, what: string): void {
    let name: string;
    try {
      name = readlinkSync(`/proc/self/fd/${fd}`);
    } catch (err) {
      if (errno(err) === "ENOENT" && !existsProc()) return;
      throw err;
    }
    if (!this.rootOf(name)) throw new FilesError(`${what} resolves outside the allowed roots (${name})`);
  }
}

let procMounted: boolean | undefined;
function existsProc(): boolean {
  if (procMounted === undefined) {
    try {
      procMounted = lstatSync("/proc/self").isSymbolicLink();
    } catch {
      procMounted = false;
    }
  }
  return procMounted;
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
