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
