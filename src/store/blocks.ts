/**
 * Content-addressed blocks: media bytes (tool-result images today) stored once each as
 * `DATA/blocks/<sha256[0:2]>/<sha256>` — the layout later work (media in messages, memory II)
 * adopts. A block is written to a temporary name in its folder and renamed into place, so a
 * reader never sees half a file and a crash leaves at most a stray `.tmp-*`; an existing block
 * is not written again (same name, same bytes).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { blockRelPath } from "../protocol/images.ts";

export class BlockStore {
  /** `dataDir` is the daemon's data dir; blocks go under its `blocks/`. */
  constructor(private readonly dataDir: string) {}

  /** The file a block lives in (whether or not it exists). */
  path(sha256: string): string {
    return join(this.dataDir, blockRelPath(sha256));
  }

  /** Store `bytes` (no-op when the block exists) and return its hash. */
  put(bytes: Uint8Array): string {
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const file = this.path(sha256);
    if (existsSync(file)) return sha256;
    const dir = join(file, "..");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = join(dir, `.tmp-${sha256.slice(0, 16)}-${process.pid}-${crypto.randomUUID().slice(0, 8)}`);
    try {
      writeFileSync(tmp, bytes, { mode: 0o600 });
      renameSync(tmp, file);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
    return sha256;
  }

  /** A block's bytes, or null when it is not stored. */
  read(sha256: string): Uint8Array | null {
    try {
      return readFileSync(this.path(sha256));
    } catch {
      return null;
    }
  }
}
