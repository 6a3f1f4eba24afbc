/**
 * DATA/index: where memory keeps its person-wide index between starts (src/memory/index-snapshot.ts),
 * one file per scope, 0600 like the database it is made of. A file is written whole under another
 * name and renamed into place, so a crash mid-write leaves the one before; one that cannot be read
 * is as if there were none (memory makes the index from the log again).
 */
import { closeSync, fstatSync, mkdirSync, openSync, readSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { IndexSnapshots } from "../memory/index-snapshot.ts";
import type { Logger } from "./log.ts";

export function indexFiles(dataDir: string, log: Logger): IndexSnapshots {
  const dir = join(dataDir, "index");
  const file = (name: string) => join(dir, `${name}.bin`);
  return {
    load(name) {
      let fd: number;
      try {
        fd = openSync(file(name), "r");
      } catch {
        return null;
      }
      try {
        // A buffer of its own, starting at offset 0: the snapshot's columns are views of it.
        const size = fstatSync(fd).size;
        const bytes = new Uint8Array(size);
        for (let at = 0; at < size; ) {
          const n = readSync(fd, bytes, at, size - at, at);
          if (n <= 0) return null;
          at += n;
        }
        return bytes;
      } catch (err) {
        log.warn("memory index snapshot unreadable; making the index from the log", {
          file: file(name),
          err: (err as Error).message,
        });
        return null;
      } finally {
        closeSync(fd);
      }
    },
    save(name, bytes) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const tmp = `${file(name)}.tmp`;
      writeFileSync(tmp, bytes, { mode: 0o600 });
      renameSync(tmp, file(name));
    },
  };
}
