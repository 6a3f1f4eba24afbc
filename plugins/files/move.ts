/**
 * files_move and files_delete: a directory entry renamed or removed inside the roots. Both act
 * on the entry itself (confine.ts `entry`): a symlink is moved or removed as a link, its target
 * untouched; nothing crosses a root's edge, and a root itself is never moved or deleted.
 * Deleting a folder with something in it takes `recursive`, which removes links inside it as
 * links (never what they point to). Both act on names in folders opened beneath their roots
 * (dir-entry.ts), never on a path looked up again.
 */
import { closeSync, constants, openSync, readdirSync, renameSync, rmdirSync, type Stats, unlinkSync } from "node:fs";
import { type Confinement, FilesError } from "../sdk/confine.ts";
import { at, emptyFolder } from "../sdk/dir-entry.ts";
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

const kind = (st: Stats) => (st.isDirectory() ? "folder" : st.isSymbolicLink() ? "symlink" : "file");

export function filesMove(c: Confinement, args: MoveArgs): string {
  using from = c.entry(args.from);
  const fromWhat = c.display(from.real);
  const src = from.lstat();
  if (!src) throw new FilesError(`${args.from} does not exist (files_list or files_glob can find what is there)`);
  using to = c.entry(args.to, true);
  const toWhat = c.display(to.real);
  if (to.real === from.real) throw new FilesError(`${args.from} and ${args.to} are the same place`);
  if (src.isDirectory() && `${to.real}/`.startsWith(`${from.real}/`))
    throw new FilesError(`${args.from} is a folder and ${args.to} is inside it; a folder cannot move into itself`);
  const dst = to.lstat();
  if (dst) {
    if (dst.isDirectory())
      throw new FilesError(
        `${toWhat} is an existing folder; name the new path in full (e.g. ${toWhat}/${args.from.split("/").pop()})`,
      );
    if (!args.overwrite) throw new FilesError(`${toWhat} exists (${kind(dst)}); pass overwrite: true to replace it`);
    if (src.isDirectory()) throw new FilesError(`${toWhat} is a ${kind(dst)}; a folder cannot replace it`);
  }
  try {
    renameSync(from.path(), to.path());
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EXDEV")
      throw new FilesError(
        `${fromWhat} and ${toWhat} are on different filesystems; copy it with files_read and files_write, then files_delete the old one`,
      );
    throw err;
  }
  return `moved ${kind(src)} ${fromWhat} → ${toWhat}${dst ? ` (replaced a ${kind(dst)})` : ""}`;
}

export function filesDelete(c: Confinement, args: DeleteArgs): string {
  using e = c.entry(args.path);
  const what = c.display(e.real);
  const st = e.lstat();
  if (!st) throw new FilesError(`${args.path} does not exist (files_list or files_glob can find what is there)`);
  if (!st.isDirectory()) {
    unlinkSync(e.path());
    return `deleted ${kind(st)} ${what}${st.isFile() ? ` (${formatSize(st.size)})` : ""}`;
  }
  const dir = openSync(e.path(), constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  let inside: number;
  try {
    inside = readdirSync(at(dir)).length;
    if (inside > 0 && !args.recursive)
      throw new FilesError(
        `${what} is a folder with ${inside} entr${inside === 1 ? "y" : "ies"}; pass recursive: true to delete it and everything in it`,
      );
    emptyFolder(dir);
  } finally {
    closeSync(dir);
  }
  rmdirSync(e.path());
  return `deleted folder ${what}${inside > 0 ? ` and its ${inside} entr${inside === 1 ? "y" : "ies"}` : ""}`;
}
