/**
 * The data dir: created 0700, it holds everything a daemon owns. One daemon per data
 * dir, enforced by an flock on homed.lock — the kernel drops the lock when the process dies,
 * kill -9 included, so a crash never leaves a stale lock behind. The holder's pid is written
 * into the file so a refused second daemon can name it.
 */
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import type { DataPaths } from "./data-paths.ts";
import { HomedError } from "../protocol/errors.ts";
import { check, shim, tryLockFile } from "../ipc/shim.ts";

/**
 * Create the data dir with mode 0700. An existing dir is never chmod-ed (it might be a home
 * directory someone pointed -data at); the caller is told when it is open to group or others
 * so it can warn.
 */
export function ensureDataDir(paths: DataPaths): { created: boolean; openToOthers: boolean } {
  refuseOtherOwner(paths.dir);
  try {
    const created = !existsSync(paths.dir);
    mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    const st = statSync(paths.dir);
    if (!st.isDirectory()) throw new Error("exists and is not a directory");
    return { created, openToOthers: (st.mode & 0o077) !== 0 };
  } catch (err) {
    throw new HomedError(
      "data_dir",
      `data dir ${paths.dir}: ${(err as Error).message}`,
      { dir: paths.dir },
      { cause: err },
    );
  }
}

/**
 * Root writing into a data dir that belongs to another user would leave files that user cannot
 * open (the packaged service runs as `homed` and exits 78 on a root-owned config.toml), so root
 * is refused there with the one command that works. Every command that writes into a data dir
 * calls this first (through ensureDataDir, or directly); a dir that does not exist yet is root's.
 */
export function refuseOtherOwner(dir: string): void {
  if (process.getuid?.() !== 0) return;
  let uid: number;
  try {
    uid = statSync(dir).uid;
  } catch {
    return;
  }
  if (uid === 0) return;
  const owner = userName(uid) ?? String(uid);
  throw new HomedError(
    "data_dir",
    `data dir ${dir} belongs to ${owner}; what root writes there ${owner} could not read: run it as ${owner}, sudo -u ${owner} homed …`,
    { dir, owner },
  );
}

/** The login name of `uid` from /etc/passwd, or null. */
function userName(uid: number): string | null {
  try {
    for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
      const [name, , id] = line.split(":");
      if (name && id === String(uid)) return name;
    }
  } catch {
    // No passwd file: the uid stands in for the name.
  }
  return null;
}

export interface DataDirLock {
  release(): void;
}

/** Take homed.lock or throw HomedError("locked") naming the pid that holds it. */
export function lockDataDir(paths: DataPaths): DataDirLock {
  const fd = openSync(paths.lock, "a+", 0o600);
  check("set_cloexec", shim().shim_set_cloexec(fd, 1));
  if (!tryLockFile(fd)) {
    let holder = "another process";
    try {
      const pid = readFileSync(paths.lock, "utf8").trim();
      if (/^\d+$/.test(pid)) holder = `pid ${pid}`;
    } catch {
      // The name of the holder is a courtesy; the refusal stands without it.
    }
    closeSync(fd);
    throw new HomedError("locked", `another homed (${holder}) is already running on ${paths.dir}`, {
      lock: paths.lock,
      holder,
    });
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n`, 0);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      try {
        ftruncateSync(fd, 0);
      } catch {
        // Emptying the pid is cosmetic; closing the fd is what drops the lock.
      }
      closeSync(fd);
    },
  };
}
