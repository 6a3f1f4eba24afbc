/**
 * The Debian programs the media tools run, found on PATH, each with the package that ships it:
 * a missing one is a sentence the model can pass on ("tesseract is not installed: apt install
 * tesseract-ocr"), never a spawn error. Runs are bound to the tool call's signal and a time cap,
 * with a minimal environment (no secrets reach a child).
 */
import { childEnvironment } from "../../src/shared/child-env.ts";
import { runProcess, type ProcessResult } from "../sdk/run-process.ts";
import { MediaError } from "./media-error.ts";

/** program → the Debian package that installs it. */
export const PACKAGES = {
  pdftotext: "poppler-utils",
  pdfinfo: "poppler-utils",
  pdftoppm: "poppler-utils",
  tesseract: "tesseract-ocr",
  "espeak-ng": "espeak-ng",
  pocketsphinx_continuous: "pocketsphinx",
  ffmpeg: "ffmpeg",
  ffprobe: "ffmpeg",
} as const;
export type Program = keyof typeof PACKAGES;

/** The program's path, or a MediaError naming the package to install. */
export function need(program: Program, extra = ""): string {
  const path = Bun.which(program, { PATH: process.env.PATH ?? "/usr/bin:/bin" });
  if (!path) throw new MediaError(`${program} is not installed: apt install ${PACKAGES[program]}${extra}`);
  return path;
}

export interface RunOptions {
  signal: AbortSignal;
  timeoutMs: number;
  cwd?: string;
  env?: Record<string, string>;
}

/**
 * Run a program; a non-zero exit, a time-out or a stop is a MediaError that quotes the last
 * line of its stderr. Returns the result when it exited 0.
 */
export async function runProgram(program: Program, args: string[], opts: RunOptions): Promise<ProcessResult> {
  const path = need(program);
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = AbortSignal.any([opts.signal, timeout]);
  const env = childEnvironment(process.env, { LANG: "C.UTF-8", HOME: opts.cwd ?? "/tmp", ...opts.env });
  const r = await runProcess([path, ...args], { signal, cwd: opts.cwd, env, graceMs: 500 });
  if (timeout.aborted && !opts.signal.aborted)
    throw new MediaError(`${program} took longer than ${opts.timeoutMs} ms ([tools.media] timeout_ms) and was stopped`);
  if (r.cancelled) throw new MediaError(`${program} was stopped`);
  if (r.exitCode !== 0) {
    const last = r.stderr.trim().split("\n").filter(Boolean).slice(-2).join(" / ").slice(0, 300);
    throw new MediaError(`${program} failed (exit ${r.exitCode ?? r.signalCode}): ${last || "no message"}`);
  }
  return r;
}
