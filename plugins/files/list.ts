/**
 * files_list: one folder's entries with type, size and modification time (UTC), folders first,
 * then by name; at most LIST_MAX entries. Entries are lstat-ed, never followed: a symlink shows
 * as `link` with the text it points to, whether or not that lies inside a root. The folder is
 * opened beneath its root and its entries are looked up in that open folder.
 */
import { closeSync, lstatSync, readdirSync, readlinkSync, type Stats } from "node:fs";
import { type Confinement, FilesError } from "../sdk/confine.ts";
import { at } from "../sdk/dir-entry.ts";
import { formatSize } from "./text.ts";

/** Enough for any folder a person keeps by hand; bigger ones want files_glob. */
export const LIST_MAX = 500;

/** UTC to the minute, e.g. 2026-12-01 12:30. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}

function kind(st: Stats): string {
  if (st.isDirectory()) return "dir";
  if (st.isFile()) return "file";
  if (st.isSymbolicLink()) return "link";
  if (st.isFIFO()) return "fifo";
  if (st.isSocket()) return "socket";
  return "device";
}

export function filesList(c: Confinement, args: { path?: string }): string {
  const { real } = c.existing(args.path ?? ".");
  const what = c.display(real);
  const dir = c.openFolder(real, args.path ?? ".");
  if (dir === undefined) throw new FilesError(`${what} is a file, not a folder; use files_read to read it`);
  try {
    return listing(dir, what);
  } finally {
    closeSync(dir);
  }
}

function listing(dir: number, what: string): string {
  const names = readdirSync(at(dir));
  if (names.length === 0) return `${what} is empty`;
  const entries: { name: string; st: Stats | undefined }[] = names.map((name) => {
    try {
      return { name, st: lstatSync(at(dir, name)) };
    } catch {
      return { name, st: undefined }; // removed since readdir
    }
  });
  entries.sort((a, b) => {
    const da = a.st?.isDirectory() ? 0 : 1;
    const db = b.st?.isDirectory() ? 0 : 1;
    return da - db || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  });
  const rows = entries.slice(0, LIST_MAX).map(({ name, st: e }) => {
    if (!e) return `gone  ${name}`;
    const type = kind(e).padEnd(6);
    const size = (e.isFile() ? formatSize(e.size) : "-").padStart(10);
    let shown = e.isDirectory() ? `${name}/` : name;
    if (e.isSymbolicLink()) {
      try {
        shown += ` -> ${readlinkSync(at(dir, name))}`;
      } catch {}
    }
    return `${type}${size}  ${formatTime(e.mtimeMs)}  ${shown}`;
  });
  const more =
    entries.length > LIST_MAX ? `\n… and ${entries.length - LIST_MAX} more (use files_glob to narrow down)` : "";
  return `${what}: ${entries.length} entr${entries.length === 1 ? "y" : "ies"}\n${rows.join("\n")}${more}`;
}
