/**
 * What every packaging step shares: the repository's paths, the one version (package.json's, as
 * src/version.ts bundles it), the architectures and which compiled binaries belong to each,
 * and `run`, which runs a tool and fails the build loudly when the tool fails.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "../..");
export const DIST = join(ROOT, "dist");
/** The figures of the last full `make dist` (seconds, sizes in MB), read by `make bench`. */
export const SIZES = join(DIST, "release-sizes.json");
/** The figures of the last `make dist-check` (scripts/dist-check.sh), read by `make bench` too. */
export const CHECKED = join(DIST, "dist-check.json");

/**
 * package.json's version: src/version.ts bundles the same field into the binary.
 * HOMED_DIST_VERSION packs the same binaries under another number, so a test can build the
 * "newer" package an upgrade installs (test/dist/upgrade.test.ts) without a second compile.
 */
export const VERSION: string =
  process.env.HOMED_DIST_VERSION ||
  (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

/** Debian's name of an architecture, Bun's name, and the compiled binaries make builds for it. */
export interface Arch {
  deb: "amd64" | "arm64";
  bun: "x64" | "arm64";
  homed: string;
  waiter: string;
}

export const ARCHES: Record<"amd64" | "arm64", Arch> = {
  amd64: { deb: "amd64", bun: "x64", homed: join(DIST, "homed"), waiter: join(DIST, "waiter") },
  arm64: {
    deb: "arm64",
    bun: "arm64",
    homed: join(DIST, "homed-linux-arm64"),
    waiter: join(DIST, "waiter-linux-arm64"),
  },
};

/** The waiter for Windows and macOS (make build-cross), shipped as they are under these names. */
export const CROSS_WAITERS = {
  "windows-amd64": join(DIST, "waiter-windows-amd64.exe"),
  "darwin-arm64": join(DIST, "waiter-darwin-arm64"),
  "darwin-amd64": join(DIST, "waiter-darwin-amd64"),
} as const;

export class DistError extends Error {}

/** Run `argv`; throw DistError with its stderr when it exits non-zero. Returns stdout. */
export function run(argv: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): string {
  const p = Bun.spawnSync(argv, { cwd: opts.cwd, env: opts.env ?? process.env, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) {
    throw new DistError(`${argv.join(" ")} failed (exit ${p.exitCode}): ${p.stderr.toString().trim()}`);
  }
  return p.stdout.toString();
}

/** The binary at `path`, or a DistError telling which make target builds it. */
export function needBinary(path: string): string {
  if (!existsSync(path)) throw new DistError(`${path} is missing: run make ${path.slice(ROOT.length + 1)}`);
  return path;
}
