/**
 * Where the files tools (and the media tools, which read the same roots) may go: the folders of
 * [tools.files] roots and nothing else. Shared in the SDK because plugins never import each other.
 *
 * A path the model gives is relative to the first root or absolute inside a root. It is checked
 * twice, for the answer the model gets: lexically (no `..` out of a root), then on disk —
 * `realpath` resolves every symlink component and the result must still lie inside a root (any
 * root: a link from one root into another is fine). Paths that do not exist yet (a file to
 * write) are resolved through their deepest existing ancestor. /proc, /sys and /dev are refused
 * even under a root of "/".
 *
 * The check is not what confines: a folder swapped for a symlink right after it would pass.
 * What is opened is the checked real path, relative to its root's descriptor (held from first
 * use), in one resolution the kernel keeps beneath the root (openat2 RESOLVE_BENEATH, or an
 * O_NOFOLLOW walk; src/ipc/shim.ts openBeneath): what comes back is the parent folder of the
 * entry, and every operation then acts on a single name in that open folder (dir-entry.ts).
 * A way out found at open time is refused as outside the roots. Regular files only (no FIFOs,
 * devices, sockets), and none with more than one hard link: a hard link is indistinguishable
 * from the file it shares, which may live outside every root.
 */
import { closeSync, constants, lstatSync, mkdirSync, openSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { constants as osConstants } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { errnoName, openBeneath, ShimError } from "../../src/ipc/shim.ts";
import { at, DirEntry } from "./dir-entry.ts";
import { FilesError } from "./files-error.ts";

export { FilesError };

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

const { EXDEV, ELOOP, ENOENT } = osConstants.errno;

const within = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** A system error with node:fs's `code`, so describeFsError words it like any other. */
function systemError(code: string, call: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${call}`), { code });
}

export class Confinement {
  private resolvedRoots: Root[] | undefined;
  /** Each root's folder, opened once on first use: what every path is opened beneath. */
  private readonly rootFds = new Map<Root, number>();

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
      const root = { label, given, real };
      out.push(root);
      this.rootFds.set(root, openSync(real, constants.O_RDONLY | constants.O_DIRECTORY));
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
   * A directory entry itself, for moving or deleting it: its parent folder resolved, checked
   * and opened beneath its root (made when `makeParent`), its own name not followed — a symlink
   * is the link, not its target. A root itself is never an entry. The caller disposes it.
   */
  entry(input: string, makeParent = false): DirEntry {
    const abs = this.lexical(input);
    if (this.allRoots().some((r) => abs === r.real))
      throw new FilesError(`${input} is an allowed root itself; files tools do not move or delete a root`);
    const parent = this.forWrite(dirname(abs));
    if (!parent.exists && !makeParent)
      throw new FilesError(`${input} does not exist (its folder ${this.display(parent.real)} does not)`);
    return this.entryAt(join(parent.real, basename(abs)), parent.root, input, !parent.exists);
  }

  /**
   * The checked real path `real` (inside `root`) as its parent folder opened beneath the root
   * plus its name; `make` makes the missing folders on the way, each inside the one before.
   */
  entryAt(real: string, root: Root, input: string, make = false): DirEntry {
    // A root has no parent inside the roots to open; as an entry it could only be read or
    // written as a file, which a folder is not.
    if (real === root.real)
      throw new FilesError(`${this.display(real)} is a folder; use files_list or files_glob for folders`);
    const dir = make ? this.makeFolders(dirname(real), root, input) : this.openBeneath(dirname(real), root, input);
    return new DirEntry(dir, basename(real), real, root);
  }

  /** The entry a checked write target names, its missing parent folders made. */
  writeEntry(target: Resolved, input: string): DirEntry {
    return this.entryAt(target.real, target.root, input, !target.exists);
  }

  /**
   * The folder at the checked real path `real`, opened beneath its root; undefined when it is
   * not a folder. The caller closes it.
   */
  openFolder(real: string, input: string): number | undefined {
    const root = this.rootOf(real);
    if (!root) throw this.outside(input);
    try {
      return this.openBeneath(real, root, input);
    } catch (err) {
      if (errno(err) === "ENOTDIR") return undefined;
      throw err;
    }
  }

  /** A folder of `root` by its real path, opened beneath the root's descriptor and checked. */
  private openBeneath(real: string, root: Root, input: string): number {
    const rel = relative(root.real, real);
    const rootFd = this.rootFds.get(root);
    if (rootFd === undefined || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel))
      throw this.outside(input);
    let fd: number;
    try {
      fd = openBeneath(rootFd, rel, "dir");
    } catch (err) {
      if (!(err instanceof ShimError)) throw err;
      // EXDEV: a `..` or an absolute symlink on the way; ELOOP: a symlink where the checked
      // path had none, or a /proc magic link. Either way the path led out when it was opened.
      if (err.errno === EXDEV || err.errno === ELOOP) throw this.outside(input);
      throw systemError(errnoName(err.errno), "open");
    }
    try {
      this.checkDescriptor(fd, input);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    return fd;
  }

  /** Make the folders of `realDir` missing under `root`, one name at a time in the open folder above. */
  private makeFolders(realDir: string, root: Root, input: string): number {
    const names = relative(root.real, realDir)
      .split(sep)
      .filter((n) => n !== "");
    let cur = this.openBeneath(root.real, root, input);
    try {
      for (const name of names) {
        let next: number | undefined;
        for (let tries = 0; next === undefined; tries++) {
          try {
            next = openBeneath(cur, name, "dir");
          } catch (err) {
            if (!(err instanceof ShimError)) throw err;
            if (err.errno === ELOOP || err.errno === EXDEV) throw this.outside(input);
            if (err.errno !== ENOENT || tries > 2) throw systemError(errnoName(err.errno), "open");
            try {
              mkdirSync(at(cur, name), { mode: 0o755 });
            } catch (made) {
              if (errno(made) !== "EEXIST") throw made;
            }
          }
        }
        closeSync(cur);
        cur = next;
      }
      this.checkDescriptor(cur, input);
      return cur;
    } catch (err) {
      closeSync(cur);
      throw err;
    }
  }

  /**
   * Open a checked regular file (flags from node:fs constants): its folder beneath its root,
   * then its name alone in that folder (DirEntry.openFile). The caller closes the descriptor.
   */
  openChecked(real: string, what: string, flags: number): { fd: number; stat: Stats } {
    const root = this.rootOf(real);
    if (!root) throw this.outside(what);
    using e = this.entryAt(real, root, what);
    return e.openFile(what, flags);
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
