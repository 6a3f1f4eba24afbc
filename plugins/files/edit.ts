/**
 * files_edit: exact-string replacement, as coding agents' editors do it. old_string must occur
 * exactly once (or replace_all is set); otherwise nothing is written and the error says what
 * to change: for no match the closest line of the file, quoted with its number (and whether
 * only whitespace differs); for several the count and their line numbers.
 */
import { closeSync, constants } from "node:fs";
import { type Confinement, FilesError } from "../sdk/confine.ts";
import { readAll, writeAtomicAt } from "../sdk/dir-entry.ts";
import { numbered } from "./read.ts";
import { decodeText, formatSize, lineNumbersAt } from "./text.ts";
import { existingTarget } from "./write.ts";

export interface EditArgs {
  path: string;
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

/** Lines of context shown around an edit, and the most lines the excerpt may have. */
const CONTEXT = 3;
const EXCERPT_MAX = 30;

export function filesEdit(c: Confinement, args: EditArgs, maxWriteKb: number): string {
  if (args.old_string === "")
    throw new FilesError("old_string is empty; to create a file or replace all of it use files_write");
  if (args.old_string === args.new_string)
    throw new FilesError("old_string and new_string are the same; nothing would change");
  const { real, root } = c.existing(args.path);
  const what = c.display(real);
  const cap = maxWriteKb * 1024;
  // Read and written through the one folder opened here, so both touch the same file.
  using e = c.entryAt(real, root, args.path);
  const { fd, stat } = e.openFile(what, constants.O_RDONLY);
  let text: string;
  try {
    if (stat.size > cap)
      throw new FilesError(
        `${what} is ${formatSize(stat.size)}; files_edit handles files up to ${formatSize(cap)} (max_write_kb)`,
      );
    text = decodeText(readAll(fd, stat.size), what);
  } finally {
    closeSync(fd);
  }

  // files_read shows CRLF lines without their \r, so a model copies them with \n alone: in a
  // CRLF file, both strings get the file's line ending (unless they spell \r themselves).
  const crlf = text.includes("\r\n") && !args.old_string.includes("\r");
  const oldString = crlf ? args.old_string.replaceAll("\n", "\r\n") : args.old_string;
  const newString = crlf ? args.new_string.replaceAll("\n", "\r\n") : args.new_string;
  const starts: number[] = [];
  for (let i = text.indexOf(oldString); i !== -1; i = text.indexOf(oldString, i + oldString.length)) {
    starts.push(i);
  }
  if (starts.length === 0) throw new FilesError(noMatch(text, args.old_string, what));
  const lines = lineNumbersAt(text, starts);
  if (starts.length > 1 && !args.replace_all) {
    const shown = lines.slice(0, 20).join(", ") + (lines.length > 20 ? ", …" : "");
    throw new FilesError(
      `old_string occurs ${starts.length} times in ${what} (lines ${shown}); include more surrounding text to pick one, or set replace_all: true to replace them all`,
    );
  }
  const updated = args.replace_all
    ? text.split(oldString).join(newString)
    : text.slice(0, starts[0]) + newString + text.slice((starts[0] as number) + oldString.length);
  const bytes = new TextEncoder().encode(updated);
  if (bytes.length > cap)
    throw new FilesError(
      `the edited ${what} would be ${formatSize(bytes.length)}, over ${formatSize(cap)} (max_write_kb)`,
    );

  const old = existingTarget(e, what);
  if (!old || old.ino !== stat.ino || old.size !== stat.size || old.mtimeMs !== stat.mtimeMs)
    throw new FilesError(`${what} changed while it was being edited; read it again and retry`);
  writeAtomicAt(e, bytes, old.mode);

  const count = starts.length;
  // The text before the first match is unchanged, so its line number holds in the new text.
  const first = lines[0] as number;
  const head = `edited ${what}: replaced ${count} occurrence${count === 1 ? "" : "s"} (line${count === 1 ? "" : "s"} ${lines.slice(0, 20).join(", ")}${lines.length > 20 ? ", …" : ""})`;
  return `${head}\n${excerpt(updated, first, args.new_string.split("\n").length)}`;
}

/** Numbered lines around the first edit, so the model sees the result without reading again. */
function excerpt(text: string, line: number, newLines: number): string {
  const all = text.split("\n");
  const from = Math.max(1, line - CONTEXT);
  const to = Math.min(all.length, line + newLines - 1 + CONTEXT, from + EXCERPT_MAX - 1);
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(numbered(n, (all[n - 1] as string).replace(/\r$/, "")));
  return out.join("\n");
}

/** The error for zero matches: the nearest line to old_string's first line, quoted. */
export function noMatch(text: string, oldString: string, what: string): string {
  const squash = (s: string) =>
    s
      .replace(/[ \t]+/g, " ")
      .replace(/ ?\n ?/g, "\n")
      .trim();
  if (squash(text).includes(squash(oldString)))
    return `old_string was not found in ${what} exactly, but it is there if spaces, tabs or indentation are ignored; copy the text exactly as files_read shows it (after the line number and tab)`;
  const want = (oldString.split("\n").find((l) => l.trim() !== "") ?? oldString).trim();
  const lines = text.split("\n");
  let best = -1;
  let bestScore = 0;
  for (let i = 0; i < lines.length; i++) {
    const score = similarity(want, (lines[i] as string).trim());
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }
  if (best < 0 || bestScore < 0.3)
    return `old_string was not found in ${what}, and no line looks like ${JSON.stringify(want.slice(0, 120))}; read the file (files_read) and copy the text exactly`;
  const line = (lines[best] as string).replace(/\r$/, "");
  return `old_string was not found in ${what}; the closest line is ${best + 1}: ${JSON.stringify(line.slice(0, 300))}; copy the text exactly as files_read shows it`;
}

/** Dice coefficient of character bigrams (0..1), on at most 500 characters of each side. */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  if (b.length > 3 * a.length + 10 || a.length > 3 * b.length + 10) return 0;
  const x = a.slice(0, 500);
  const y = b.slice(0, 500);
  const grams = new Map<string, number>();
  for (let i = 0; i < x.length - 1; i++) {
    const g = x.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  let both = 0;
  for (let i = 0; i < y.length - 1; i++) {
    const g = y.slice(i, i + 2);
    const n = grams.get(g) ?? 0;
    if (n > 0) {
      grams.set(g, n - 1);
      both++;
    }
  }
  return (2 * both) / (x.length - 1 + (y.length - 1));
}
