/**
 * `make dist`: the release artefacts in dist/release/, offline, from the binaries make already
 * built (dist/homed, dist/waiter and their -linux-arm64 twins; this script never compiles).
 *
 *   bun scripts/dist.ts                       everything, into dist/release/ (emptied first)
 *   bun scripts/dist.ts -out DIR NAME…        only the named artefacts (tests build just one)
 *
 * Names: deb-server-amd64, deb-server-arm64, rpm-server-x86_64, tar-amd64, tar-arm64. SHA256SUMS always covers
 * what was built. Prints `bench: dist.seconds` and each artefact's size in MB; a full run keeps
 * them in dist/release-sizes.json for `make bench`.
 */
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { ARCHES, DIST, DistError, SIZES } from "./dist/common.ts";
import { buildServerDeb } from "./dist/deb.ts";
import { buildServerRpm } from "./dist/rpm.ts";
import { writeSums } from "./dist/sums.ts";
import { buildTarball } from "./dist/tarball.ts";

type Builder = (work: string, out: string) => string;

/** Each artefact, with the bench figure its size is reported under. */
const ARTEFACTS: Record<string, { build: Builder; figure: string }> = {
  "deb-server-amd64": { build: (w, o) => buildServerDeb(ARCHES.amd64, w, o), figure: "dist.deb_amd64_mb" },
  "deb-server-arm64": { build: (w, o) => buildServerDeb(ARCHES.arm64, w, o), figure: "dist.deb_arm64_mb" },
  "rpm-server-x86_64": { build: (w, o) => buildServerRpm(ARCHES.amd64, w, o), figure: "dist.rpm_mb" },
  "tar-amd64": { build: (w, o) => buildTarball(ARCHES.amd64, w, o), figure: "dist.tar_amd64_mb" },
  "tar-arm64": { build: (w, o) => buildTarball(ARCHES.arm64, w, o), figure: "dist.tar_arm64_mb" },
};

function parseArgs(argv: string[]): { out: string; names: string[]; all: boolean } {
  let out = join(DIST, "release");
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "-out" || a === "--out") {
      const v = argv[++i];
      if (!v) throw new DistError("-out needs a folder");
      out = resolve(v);
    } else if (a in ARTEFACTS) names.push(a);
    else throw new DistError(`unknown artefact ${a} (known: ${Object.keys(ARTEFACTS).join(", ")})`);
  }
  return { out, names: names.length > 0 ? names : Object.keys(ARTEFACTS), all: names.length === 0 };
}

function main(): void {
  const t0 = performance.now();
  const { out, names, all } = parseArgs(process.argv.slice(2));
  if (all) rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const work = join(DIST, `.dist-work-${process.pid}`);
  mkdirSync(work, { recursive: true });
  const sizes: Record<string, number> = {};
  const built: string[] = [];
  try {
    for (const name of names) {
      const t = performance.now();
      const path = (ARTEFACTS[name] as (typeof ARTEFACTS)[string]).build(work, out);
      built.push(path);
      const mb = statSync(path).size / 1e6;
      sizes[(ARTEFACTS[name] as (typeof ARTEFACTS)[string]).figure] = mb;
      console.log(`dist: ${basename(path)} ${mb.toFixed(1)} MB in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
    writeSums(out, built);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const seconds = (performance.now() - t0) / 1000;
  // Beside the release folder, not in it: dist/release/ holds only what SHA256SUMS covers.
  if (all) writeFileSync(SIZES, `${JSON.stringify({ seconds, ...sizes }, null, 2)}\n`);
  console.log(`bench: dist.seconds ${seconds.toFixed(1)} s`);
  for (const [figure, mb] of Object.entries(sizes)) console.log(`bench: ${figure} ${mb.toFixed(1)} MB`);
}

try {
  main();
} catch (e) {
  if (!(e instanceof DistError) && !(e instanceof Error)) throw e;
  console.error(`dist: ${e.message}`);
  process.exit(1);
}
