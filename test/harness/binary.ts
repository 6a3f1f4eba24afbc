/**
 * Where the suites find what they run: the compiled binaries in dist/ (built by `make test`),
 * so the tests exercise what a user downloads.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "../..");
export const HOMED = process.env.HOMED_BIN ?? join(ROOT, "dist/homed");
export const WAITER = process.env.WAITER_BIN ?? join(ROOT, "dist/waiter");
export const BUN = process.execPath;

if (!existsSync(HOMED)) throw new Error(`${HOMED} is missing: run make build (make test does it for you)`);

/** A fresh temporary directory, removed by the returned disposer. */
export function tempDir(prefix = "homed-test-"): { path: string; [Symbol.dispose](): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    [Symbol.dispose]() {
      rmSync(path, { recursive: true, force: true });
    },
  };
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Run a command to completion with a clean environment of our choosing. */
export async function run(
  cmd: string[],
  opts: { cwd?: string; env?: Record<string, string>; stdin?: string } = {},
): Promise<RunResult> {
  const proc = Bun.spawn(cmd, {
    cwd: opts.cwd ?? ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", ...opts.env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: opts.stdin === undefined ? "ignore" : new TextEncoder().encode(opts.stdin),
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { exitCode, stdout, stderr };
}

/**
 * Read a child's output stream in the background as it arrives; `text()` is what came so far.
 * `onChunk` runs after each piece (to watch for a line).
 */
export function streamText(stream: ReadableStream<Uint8Array>, onChunk?: () => void): { text(): string } {
  let got = "";
  void (async () => {
    const dec = new TextDecoder();
    for await (const chunk of stream) {
      got += dec.decode(chunk, { stream: true });
      onChunk?.();
    }
  })();
  return { text: () => got };
}
