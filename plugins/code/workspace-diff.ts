/**
 * What a program did to the workspace: a snapshot of every regular file (size, mtime) before and
 * after, compared. Bounded: past MAX_ENTRIES files the walk stops and the report says the list
 * may be incomplete, so a workspace holding a huge tree costs a bounded walk per run.
 */
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

const MAX_ENTRIES = 20_000;

export interface Snapshot {
  files: Map<string, { size: number; mtimeMs: number }>;
  /** The walk stopped at MAX_ENTRIES. */
  partial: boolean;
}

export function snapshotWorkspace(root: string): Snapshot {
  const files = new Map<string, { size: number; mtimeMs: number }>();
  let seen = 0;
  const walk = (rel: string): boolean => {
    let names: string[];
    try {
      names = readdirSync(join(root, rel));
    } catch {
      return true;
    }
    for (const name of names.sort()) {
      if (++seen > MAX_ENTRIES) return false;
      const path = rel === "" ? name : `${rel}/${name}`;
      const st = lstatSync(join(root, path), { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) {
        if (!walk(path)) return false;
      } else if (st.isFile()) files.set(path, { size: st.size, mtimeMs: st.mtimeMs });
    }
    return true;
  };
  const complete = walk("");
  return { files, partial: !complete };
}

function size(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** "created: a.txt (12 B)" lines for created, changed and deleted files; "" when nothing moved. */
export function describeChanges(before: Snapshot, after: Snapshot): string {
  const created: string[] = [];
  const changed: string[] = [];
  const deleted: string[] = [];
  for (const [path, a] of after.files) {
    const b = before.files.get(path);
    if (!b) created.push(`${path} (${size(a.size)})`);
    else if (b.size !== a.size || b.mtimeMs !== a.mtimeMs) changed.push(`${path} (${size(a.size)})`);
  }
  for (const path of before.files.keys()) if (!after.files.has(path)) deleted.push(path);
  const lines: string[] = [];
  if (created.length > 0) lines.push(`created: ${created.join(", ")}`);
  if (changed.length > 0) lines.push(`changed: ${changed.join(", ")}`);
  if (deleted.length > 0) lines.push(`deleted: ${deleted.join(", ")}`);
  if (before.partial || after.partial)
    lines.push(`(the workspace has over ${MAX_ENTRIES} entries: the list may be incomplete)`);
  return lines.join("\n");
}
