/**
 * `make dist`: the release artefacts in dist/release/, offline, from the binaries make already
 * built (dist/homed, dist/waiter and their -linux-arm64 twins; this script never compiles).
 *
 *   bun scripts/dist.ts                       everything, into dist/release/ (emptied first)
 *   bun scripts/dist.ts -out DIR NAME…        only the named artefacts (tests build just one)
 *   bun scripts/dist.ts -out DIR -sign NAME…  those, signed, with the repositories (tests of the signing)
 *
 * Names: deb-{server,full,client}-{amd64,arm64}, rpm-{server,full}-{x86_64,aarch64}, tar-{amd64,arm64},
 * waiter-{windows-amd64,darwin-arm64,darwin-amd64}, nsis-{full,server,client} (HomedSetup-<v>-*.exe).
 * SHA256SUMS always covers what was built. A full run (or -sign) also signs: the .rpm packages
 * (rpmsign), SHA256SUMS (SHA256SUMS.asc), and writes the APT and dnf repositories (apt/, rpm/;
 * dist/repo.ts) with their signed Release and repomd.xml, and the public key
 * (homed-release-key.asc); the key comes from the environment or is made for the run (dist/sign.ts). Prints `bench: dist.seconds` and each artefact's size in MB; a full run keeps
 * them in dist/release-sizes.json for `make bench`.
 */
import { copyFileSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { ARCHES, CROSS_WAITERS, DIST, DistError, needBinary, SIZES } from "./dist/common.ts";
import { buildDeb } from "./dist/deb.ts";
import { buildInstaller } from "./dist/nsis.ts";
import { buildRpm, RPM_ARCH } from "./dist/rpm.ts";
import { writeSums } from "./dist/sums.ts";
import { buildAptRepo, buildDnfRepo } from "./dist/repo.ts";
import { makeSigner, writePublicKey } from "./dist/sign.ts";
import { buildTarball } from "./dist/tarball.ts";
import { VARIANTS } from "./dist/variants.ts";

type Builder = (work: string, out: string) => string;

/** Each artefact, with the bench figure its size is reported under (the server's keep their old names). */
const ARTEFACTS: Record<string, { build: Builder; figure: string }> = {};
for (const v of VARIANTS) {
  for (const arch of [ARCHES.amd64, ARCHES.arm64]) {
    const figure = v === "server" ? `dist.deb_${arch.deb}_mb` : `dist.deb_${v}_${arch.deb}_mb`;
    ARTEFACTS[`deb-${v}-${arch.deb}`] = { build: (w, o) => buildDeb(v, arch, w, o), figure };
  }
  if (v !== "client") {
    for (const arch of [ARCHES.amd64, ARCHES.arm64]) {
      const rpmArch = RPM_ARCH[arch.deb];
      // The server's x86_64 figure keeps its old name.
      const figure = `dist.rpm${v === "server" ? "" : `_${v}`}${rpmArch === "x86_64" ? "" : `_${rpmArch}`}_mb`;
      ARTEFACTS[`rpm-${v}-${rpmArch}`] = { build: (w, o) => buildRpm(v, arch, w, o), figure };
    }
  }
}
for (const arch of [ARCHES.amd64, ARCHES.arm64]) {
  ARTEFACTS[`tar-${arch.deb}`] = { build: (w, o) => buildTarball(arch, w, o), figure: `dist.tar_${arch.deb}_mb` };
}
for (const [target, path] of Object.entries(CROSS_WAITERS)) {
  const copy: Builder = (_w, o) => {
    const out = join(o, basename(path));
    copyFileSync(needBinary(path), out);
    return out;
  };
  ARTEFACTS[`waiter-${target}`] = { build: copy, figure: `dist.waiter_${target.replace("-", "_")}_mb` };
}
// After the .debs: the full and server installers embed the server .deb this run built.
for (const v of VARIANTS) {
  ARTEFACTS[`nsis-${v}`] = { build: (w, o) => buildInstaller(v, w, o), figure: `dist.setup_${v}_mb` };
}

function parseArgs(argv: string[]): { out: string; names: string[]; all: boolean; sign: boolean } {
  let out = join(DIST, "release");
  const names: string[] = [];
  let sign = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "-sign" || a === "--sign") sign = true;
    else if (a === "-out" || a === "--out") {
      const v = argv[++i];
      if (!v) throw new DistError("-out needs a folder");
      out = resolve(v);
    } else if (a in ARTEFACTS) names.push(a);
    else throw new DistError(`unknown artefact ${a} (known: ${Object.keys(ARTEFACTS).join(", ")})`);
  }
  const all = names.length === 0;
  return { out, names: all ? Object.keys(ARTEFACTS) : names, all, sign: sign || all };
}

/**
 * Sign the release and lay out the repositories: the .rpm packages signed in place first (so
 * SHA256SUMS has their final bytes), SHA256SUMS and its signature, the public key, then apt/
 * and rpm/ from the same files.
 */
function signAndPublish(out: string, built: string[]): void {
  const signer = makeSigner();
  try {
    const t = performance.now();
    const rpms = built.filter((p) => p.endsWith(".rpm"));
    signer.signRpms(rpms);
    signer.detach(writeSums(out, built));
    writePublicKey(signer, out);
    const debs = built.filter((p) => p.endsWith(".deb"));
    if (debs.length > 0) buildAptRepo(join(out, "apt"), debs, signer);
    if (rpms.length > 0) buildDnfRepo(join(out, "rpm"), rpms, signer);
    console.log(
      `dist: signed with ${signer.fingerprint}${signer.throwaway ? " (a throwaway key)" : ""}; ` +
        `SHA256SUMS.asc, ${debs.length > 0 ? "apt/ " : ""}${rpms.length > 0 ? "rpm/ " : ""}in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
  } finally {
    signer.dispose();
  }
}

function main(): void {
  const t0 = performance.now();
  const { out, names, all, sign } = parseArgs(process.argv.slice(2));
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
    if (sign) signAndPublish(out, built);
    else writeSums(out, built);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const seconds = (performance.now() - t0) / 1000;
  // Beside the release folder, not in it: dist/release/ holds what SHA256SUMS covers, its signature,
  // the public key and the repositories made of the same files.
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
