/**
 * Shared by the packaging suites: build one artefact with scripts/dist.ts into a temp folder
 * (from the binaries make test already built; never a compile), and boot an installed .deb in
 * a throwaway overlay of / (overlay-install.sh) as its systemd unit would run it.
 */
import type { Subprocess } from "bun";
import { expect } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, run, streamText } from "../harness/binary.ts";

/** Build `names` (e.g. deb-server-amd64) into a fresh folder; returns the folder and the dist output. */
export async function buildArtefact(...names: string[]): Promise<{ dir: string; stdout: string; dispose(): void }> {
  const dir = mkdtempSync(join(tmpdir(), "homed-dist-"));
  const r = await run([BUN, join(ROOT, "scripts/dist.ts"), "-out", dir, ...names]);
  if (r.exitCode !== 0) throw new Error(`scripts/dist.ts ${names.join(" ")} failed:\n${r.stderr}`);
  return { dir, stdout: r.stdout, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** SHA256SUMS in `dir` names exactly `names` (bare, sorted) and `sha256sum -c` verifies it. */
export async function expectSums(dir: string, names: readonly string[]): Promise<void> {
  const listed = readFileSync(join(dir, "SHA256SUMS"), "utf8")
    .trim()
    .split("\n")
    .map((l) => l.split("  ")[1])
    .sort();
  expect(listed).toEqual([...names].sort());
  expect((await run(["sha256sum", "--strict", "-c", "SHA256SUMS"], { cwd: dir })).exitCode).toBe(0);
}

export interface InstalledDaemon {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  stderr(): string;
  /** Run argv inside the overlay (its mount namespace and root), as root. */
  inside(argv: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** `dpkg -i deb` in an overlay of /, then the unit's ExecStart as its User; the web on port 0. */
export function bootInstalled(deb: string): InstalledDaemon {
  const scratch = mkdtempSync(join(tmpdir(), "homed-overlay-"));
  const proc = Bun.spawn(
    ["unshare", "-m", "--propagation", "private", "bash", join(import.meta.dir, "overlay-install.sh"), deb, scratch],
    {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOMED_LISTEN: "127.0.0.1:0" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const err = streamText(proc.stderr);
  void new Response(proc.stdout).text();
  return {
    proc,
    stderr: () => err.text(),
    inside: (argv) => run(["nsenter", "-t", String(proc.pid), "-m", "-r", "-w", ...argv]),
    async [Symbol.asyncDispose]() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
      await proc.exited;
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** `dpkg -i deb` in a throwaway overlay of /, then `argv` inside it as root; its result. */
export async function installAndRun(
  deb: string,
  argv: string[],
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const scratch = mkdtempSync(join(tmpdir(), "homed-overlay-"));
  try {
    return await run(
      [
        "unshare",
        "-m",
        "--propagation",
        "private",
        "bash",
        join(import.meta.dir, "overlay-install.sh"),
        deb,
        scratch,
        ...argv,
      ],
      { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
