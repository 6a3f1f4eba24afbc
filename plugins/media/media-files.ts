/**
 * Files in and out of the media tools, inside the [tools.files] roots (plugins/sdk/confine.ts).
 * An input is opened once through the confinement's checks and copied into a private temporary
 * folder, and the programs run on that copy: a symlink swapped in after the check cannot point
 * them elsewhere, and a file changing underneath a slow program does not matter. Outputs are
 * written beside their target and renamed into place (whole or not at all).
 */
import {
  closeSync,
  constants,
  fsyncSync,
  lstatSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { basename, dirname, extname, join } from "node:path";
import { type Confinement, readAll, refuseIrregular } from "../sdk/confine.ts";
import { MediaError } from "./media-error.ts";

export const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;

/** A private folder (0700) for one call's copies and outputs, removed by dispose. */
export class Scratch {
  readonly dir = mkdtempSync(join(tmpdir(), "homed-media-"));
  path(name: string): string {
    return join(this.dir, name);
  }
  [Symbol.dispose](): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface Input {
  /** How the model named it (relative to the workspace where it can be). */
  what: string;
  bytes: Uint8Array;
  /** The copy the programs read, in the scratch folder, with the original's extension. */
  copy: string;
}

/** Read a confined input (at most maxBytes) and copy it into `scratch`. */
export function readInput(c: Confinement, path: string, maxBytes: number, scratch: Scratch): Input {
  const { real } = c.existing(path);
  const what = c.display(real);
  const { fd, stat } = c.openChecked(real, what, constants.O_RDONLY);
  let bytes: Uint8Array;
  try {
    if (stat.size === 0) throw new MediaError(`${what} is empty (0 bytes)`);
    if (stat.size > maxBytes)
      throw new MediaError(
        `${what} is ${mib(stat.size)}; media tools read at most ${mib(maxBytes)} ([tools.media] max_file_mb)`,
      );
    bytes = readAll(fd, stat.size);
  } finally {
    closeSync(fd);
  }
  const ext = extname(real)
    .toLowerCase()
    .replace(/[^.a-z0-9]/g, "");
  const copy = scratch.path(`input${ext}`);
  writeFileSync(copy, bytes, { mode: 0o600 });
  return { what, bytes, copy };
}

/** Write `bytes` to a confined path (parents made); an existing file is replaced only with `overwrite`. */
export function writeOutput(c: Confinement, path: string, bytes: Uint8Array, overwrite: boolean): string {
  const target = c.forWrite(path);
  const what = c.display(target.real);
  if (target.exists) {
    refuseIrregular(lstatSync(target.real), what);
    if (!overwrite) throw new MediaError(`${what} already exists; give another path or overwrite: true`);
  } else c.makeParents(target);
  const tmp = join(dirname(target.real), `.${basename(target.real)}.${randomBytes(6).toString("hex")}.homed-tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  let done = false;
  try {
    c.checkDescriptor(fd, what);
    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, target.real);
    done = true;
  } finally {
    if (!done) {
      try {
        closeSync(fd);
      } catch {}
      try {
        unlinkSync(tmp);
      } catch {}
    }
  }
  return what;
}
