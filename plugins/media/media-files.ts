/**
 * Files in and out of the media tools, inside the [tools.files] roots (plugins/sdk/confine.ts).
 * An input is opened once through the confinement's checks and copied into a private temporary
 * folder, and the programs run on that copy: a symlink swapped in after the check cannot point
 * them elsewhere, and a file changing underneath a slow program does not matter. Outputs are
 * written beside their target, in its folder as opened beneath its root, and renamed into
 * place (whole or not at all).
 */
import { closeSync, constants, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import type { Confinement } from "../sdk/confine.ts";
import { readAll, refuseIrregular, writeAtomicAt } from "../sdk/dir-entry.ts";
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
  using e = c.writeEntry(target, path);
  const old = e.lstat();
  if (old) {
    refuseIrregular(old, what);
    if (!overwrite) throw new MediaError(`${what} already exists; give another path or overwrite: true`);
  }
  writeAtomicAt(e, bytes);
  return what;
}
