/**
 * files_grep: lines matching a JavaScript RegExp, as `path:line: text`, files in name order.
 *
 * Guards, since the pattern and the files are anyone's: files over GREP_FILE_MAX, binary files
 * (NUL or invalid UTF-8), symlinks and hard-linked files are skipped and counted; each line is
 * matched on its first LINE_MATCH_MAX characters (a 50 MB minified line costs no more than a
 * short one) and shown cut to LINE_SHOW_MAX; matching runs in a worker that is killed when one
 * file takes over GREP_FILE_TIME_MS (a catastrophically backtracking pattern), and a line the
 * regex engine gives up on (GREP_LINE_TIME_MS) stops the file rather than count as no match; the walk stops
 * at GREP_FILES_MAX files or GREP_TIME_MS, saying so, with what it found until then.
 */
import { closeSync, constants } from "node:fs";
import { type Confinement, FilesError } from "../sdk/confine.ts";
import { readAll } from "../sdk/dir-entry.ts";
import { nulOffset, strictDecoder } from "./text.ts";
import { RegexRunner } from "./regex-worker.ts";
import { checkPattern, walk } from "./walk.ts";

export const GREP_FILE_MAX = 8 * 1024 * 1024;
export const GREP_FILES_MAX = 20_000;
export const GREP_TIME_MS = 15_000;
/** One file's matching may take this long before the pattern is called runaway. */
export const GREP_FILE_TIME_MS = 5_000;
/**
 * One line that takes this long and comes back "no match" may be one JavaScriptCore gave up
 * on (see regex-worker.ts); the file's matching stops there rather than report a false "no".
 * A sane pattern takes microseconds on the LINE_MATCH_MAX characters a line is cut to.
 */
export const GREP_LINE_TIME_MS = 250;
const RUNAWAY_ADVICE =
  "the pattern probably backtracks without end — nested quantifiers such as (a+)+ or (.*)* — so simplify it";
const LINE_MATCH_MAX = 10_000;
const LINE_SHOW_MAX = 300;
const DEFAULT_LIMIT = 100;

export interface GrepArgs {
  pattern: string;
  path?: string;
  glob?: string;
  ignore_case?: boolean;
  limit?: number;
}

export async function filesGrep(c: Confinement, args: GrepArgs, signal?: AbortSignal): Promise<string> {
  try {
    new RegExp(args.pattern, args.ignore_case ? "i" : ""); // compiled here to refuse a bad one early
  } catch (err) {
    throw new FilesError(`pattern is not a valid JavaScript regular expression: ${(err as Error).message}`);
  }
  if (args.glob !== undefined) checkPattern(args.glob, "glob");
  const { real } = c.existing(args.path ?? ".");
  const where = c.display(real);
  const dirFd = c.openFolder(real, args.path ?? ".");
  const isFolder = dirFd !== undefined;
  let files: string[];
  let truncated = false;
  if (dirFd !== undefined) {
    try {
      ({ paths: files, truncated } = await walk({
        pattern: args.glob ?? "**",
        dir: real,
        dirFd,
        max: GREP_FILES_MAX,
        signal,
      }));
    } finally {
      closeSync(dirFd);
    }
    files.sort();
  } else {
    files = [real];
  }

  const limit = args.limit ?? DEFAULT_LIMIT;
  const out: string[] = [];
  let matches = 0;
  let searched = 0;
  const skipped = { binary: 0, large: 0, links: 0, unreadable: 0 };
  const deadline = Date.now() + GREP_TIME_MS;
  let stopped = "";
  const runner = new RegexRunner(args.pattern, args.ignore_case ? "i" : "");
  const stop = () => runner.close();
  signal?.addEventListener("abort", stop);
  try {
    for (const file of files) {
      if (signal?.aborted) throw new FilesError("cancelled");
      const left = deadline - Date.now();
      if (left <= 0) {
        stopped = `(stopped after ${GREP_TIME_MS / 1000} s with ${searched} files searched; narrow path or glob)`;
        break;
      }
      const text = readText(c, file, skipped, !isFolder);
      if (text === undefined) continue;
      searched++;
      const shown = c.display(file);
      const timeoutMs = Math.min(left, GREP_FILE_TIME_MS);
      const found = await runner.match(text, limit - out.length, {
        lineMatchMax: LINE_MATCH_MAX,
        lineShowMax: LINE_SHOW_MAX,
        slowLineMs: GREP_LINE_TIME_MS,
        timeoutMs,
      });
      if (signal?.aborted) throw new FilesError("cancelled");
      if (!found) {
        stopped =
          timeoutMs === GREP_FILE_TIME_MS
            ? `(stopped: matching /${args.pattern}/ in ${shown} took over ${GREP_FILE_TIME_MS / 1000} s; ${RUNAWAY_ADVICE})`
            : `(stopped after ${GREP_TIME_MS / 1000} s with ${searched} files searched; narrow path or glob)`;
        break;
      }
      matches += found.count;
      for (const h of found.hits) out.push(`${shown}:${h.line}: ${h.text}`);
      if (found.slowLine) {
        const { line, ms } = found.slowLine;
        stopped = `(stopped: matching /${args.pattern}/ in ${shown} took ${(ms / 1000).toFixed(1)} s on line ${line} alone, and the regex engine may have given up on it; ${RUNAWAY_ADVICE})`;
        break;
      }
    }
  } finally {
    signal?.removeEventListener("abort", stop);
    runner.close();
  }

  const notes: string[] = [];
  if (matches > out.length)
    notes.push(`… and ${matches - out.length} more matching lines (raise limit, or narrow path or glob)`);
  const skips = Object.entries(skipped)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k === "large" ? "over 8 MiB" : k === "links" ? "symlinks, hard-linked or special" : k}`);
  if (skips.length > 0) notes.push(`(skipped files: ${skips.join(", ")})`);
  if (truncated) notes.push(`(stopped after ${GREP_FILES_MAX} files; narrow path or glob)`);
  if (stopped) notes.push(stopped);
  if (matches === 0)
    return [
      `no lines match /${args.pattern}/ in ${searched} file${searched === 1 ? "" : "s"} under ${where}`,
      ...notes,
    ].join("\n");
  return [...out, ...notes].join("\n");
}

/** A file's text, or undefined (counted in `skipped`). Searching one named file says why instead. */
function readText(
  c: Confinement,
  file: string,
  skipped: { binary: number; large: number; links: number; unreadable: number },
  single: boolean,
): string | undefined {
  const what = c.display(file);
  let fd: number;
  let size: number;
  try {
    const opened = c.openChecked(file, what, constants.O_RDONLY);
    fd = opened.fd;
    size = opened.stat.size;
  } catch (err) {
    if (single) throw err;
    if (err instanceof FilesError) skipped.links++;
    else skipped.unreadable++;
    return undefined;
  }
  try {
    if (size > GREP_FILE_MAX) {
      if (single)
        throw new FilesError(`${what} is over 8 MiB; files_grep skips files that large (files_read pages through it)`);
      skipped.large++;
      return undefined;
    }
    const bytes = readAll(fd, size);
    if (nulOffset(bytes) >= 0) {
      if (single) throw new FilesError(`${what} is a binary file; files_grep searches UTF-8 text only`);
      skipped.binary++;
      return undefined;
    }
    try {
      return strictDecoder().decode(bytes);
    } catch {
      if (single) throw new FilesError(`${what} is not valid UTF-8; files_grep searches UTF-8 text only`);
      skipped.binary++;
      return undefined;
    }
  } finally {
    closeSync(fd);
  }
}
