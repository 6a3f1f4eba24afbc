/**
 * Lay out the files one package or archive ships, in a staging folder: the binaries, the
 * systemd units, LICENSE, the README, a commented config.toml and the third-party licences
 * collected for the architecture. The .deb, the .rpm and the .tar.gz each map this
 * one layout onto their own paths, so what they contain cannot drift apart.
 */
import { chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { collectLicenses } from "../collect-licenses.ts";
import { ARCHES, type Arch, DistError, needBinary, ROOT, run } from "./common.ts";

/** Licences per architecture, collected once per `make dist` run. */
const licenceCache = new Map<string, string>();

export function licencesFor(arch: Arch, work: string): string {
  const cached = licenceCache.get(arch.deb);
  if (cached) return cached;
  const out = join(work, `licenses-${arch.deb}`);
  collectLicenses(arch.bun, out);
  licenceCache.set(arch.deb, out);
  return out;
}

/** The commented config.toml `homed initconfig` writes (the same for every architecture). */
let configCache: string | null = null;
export function initConfig(): string {
  if (configCache !== null) return configCache;
  const dir = mkdtempSync(join(tmpdir(), "homed-dist-config-"));
  try {
    run([needBinary(ARCHES.amd64.homed), "initconfig", "-data", dir], { env: { PATH: process.env.PATH ?? "" } });
    configCache = readFileSync(join(dir, "config.toml"), "utf8");
    if (!configCache.includes("[")) throw new DistError("homed initconfig wrote a config.toml without sections");
    return configCache;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface Staged {
  homed: string;
  waiter: string;
  systemUnit: string;
  userUnit: string;
  license: string;
  readme: string;
  licenses: string;
  /** homed-desktop (runs `waiter desktop`) and its freedesktop menu entry. */
  desktopLauncher: string;
  desktopEntry: string;
  /** sysusers.d and tmpfiles.d snippets: the homed user and /var/lib/homed, made at install. */
  sysusers: string;
  tmpfiles: string;
}

/** The shared pieces for `arch`, each a path to copy from. */
export function staged(arch: Arch, work: string): Staged {
  return {
    homed: needBinary(arch.homed),
    waiter: needBinary(arch.waiter),
    systemUnit: join(ROOT, "packaging/systemd/homed.service"),
    userUnit: join(ROOT, "packaging/systemd/homed-user.service"),
    license: join(ROOT, "LICENSE"),
    readme: join(ROOT, "README.md"),
    licenses: licencesFor(arch, work),
    desktopLauncher: join(ROOT, "packaging/desktop/homed-desktop"),
    desktopEntry: join(ROOT, "packaging/desktop/homed.desktop"),
    sysusers: join(ROOT, "packaging/sysusers/homed.conf"),
    tmpfiles: join(ROOT, "packaging/tmpfiles/homed.conf"),
  };
}

/** Copy `src` to `root/rel` with `mode`, making the folders. */
export function place(root: string, rel: string, src: string, mode = 0o644): void {
  const dest = join(root, rel);
  mkdirSync(dirname(dest), { recursive: true });
  copyFileSync(src, dest);
  chmodSync(dest, mode);
}

/** Copy a folder tree to `root/rel` (files 0644, folders 0755). */
export function placeTree(root: string, rel: string, src: string): void {
  const dest = join(root, rel);
  mkdirSync(dirname(dest), { recursive: true });
  cpSync(src, dest, { recursive: true });
  run(["chmod", "-R", "u=rwX,go=rX", dest]);
}
