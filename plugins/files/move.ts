/**
 * files_move and files_delete: a directory entry renamed or removed inside the roots. Both act
 * on the entry itself (confine.ts `entry`): a symlink is moved or removed as a link, its target
 * untouched; nothing crosses a root's edge, and a root itself is never moved or deleted.
 * Deleting a folder with something in it takes `recursive`, which removes links inside it as
 * links (never what they point to).
 */
import { lstatSync, readdirSync, renameSync, rmSync, type Stats } from "node:fs";
import { type Confinement, FilesError } from "../sdk/confine.ts";
import { formatSize } from "./text.ts";

export interface MoveArgs {
  from: string;
  to: string;
  overwrite?: boolean;
}

export interface DeleteArgs {
  path: string;
  recursive?: boolean;
}

function stat(real: string): Stats | undefined {
  try {
    return lstatSync(real);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

const kind = (st: Stats) => (st.isDirectory() ? "folder" : st.isSymbolicLink() ? "symlink" : "file");

export function filesMove(c: Confinement, args: MoveArgs): string {
  const from = c.entry(args.from);
  const src = stat(from.real);
  if (!src) throw new FilesError(`${args.from} does not exist (files_list or files_glob can find what is there)`);
  const to = c.entry(args.to, true);
  if (to.real === from.real) throw new FilesError(`${args.from} and ${args.to} are the same place`);
  if (src.isDirectory() && `${to.real}/`.startsWith(`${from.real}/`))
    throw new FilesError(`${args.from} is a folder and ${args.to} is inside it; a folder cannot move into itself`);
  const dst = stat(to.real);
  if (dst) {
    if (dst.isDirectory())
      throw new FilesError(
        `${to.what} is an existing folder; name the new path in full (e.g. ${to.what}/${args.from.split("/").pop()})`,
      );
    if (!args.overwrite) throw new FilesError(`${to.what} exists (${kind(dst)}); pass overwrite: true to replace it`);
    if (src.isDirectory()) throw new FilesError(`${to.what} is a ${kind(dst)}; a folder cannot replace it`);
  }
  try {
    renameSync(from.real, to.real);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EXDEV")
      throw new FilesError(
        `${from.what} and ${to.what} are on different filesystems; copy it with files_read and files_write, then files_delete the old one`,
      );
    throw err;
  }
  return `moved ${kind(src)} ${from.what} → ${to.what}${dst ? ` (replaced a ${kind(dst)})` : ""}`;
}

export function filesDelete(c: Confinement, args: DeleteArgs): string {
  const e = c.entry(args.path);
  const st = stat(e.real);
  if (!st) throw new FilesError(`${args.path} does not exist (files_list or files_glob can find what is there)`);
  if (st.isDirectory()) {
    const inside = readdirSync(e.real).length;
    if (inside > 0 && !args.recursive)
      throw new FilesError(
        `${e.what} is a folder with ${inside} entr${inside === 1 ? "y" : "ies"}; pass recursive: true to delete it and everything in it`,
      );
    rmSync(e.real, { recursive: true, force: false });
    return `deleted folder ${e.what}${inside > 0 ? ` and its ${inside} entr${inside === 1 ? "y" : "ies"}` : ""}`;
  }
  rmSync(e.real, { force: false });
  return `deleted ${kind(st)} ${e.what}${st.isFile() ? ` (${formatSize(st.size)})` : ""}`;
}
