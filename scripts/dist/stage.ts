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
import { writeManPages } from "./man.ts";

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

/** The man pages (man1/, man5/, gzipped), written once per `make dist` run into `work`. */
let manCache: string | null = null;
export function manPagesIn(work: string): string {
  if (manCache !== null) return manCache;
  manCache = writeManPages(join(work, "man"), initConfig());
  return manCache;
}

/** The icon sizes rasterized from packaging/icons/homed.svg for the hicolor theme (besides the SVG itself). */
export const ICON_SIZES = [48, 128, 256] as const;

/**
 * The desktop entry's icon as a hicolor tree (scalable/apps/homed.svg, NxN/apps/homed.png),
 * rasterized once per run with rsvg-convert (Debian's librsvg2-bin).
 */
let iconCache: string | null = null;
export function iconsIn(work: string): string {
  if (iconCache !== null) return iconCache;
  if (!Bun.which("rsvg-convert"))
    throw new DistError("rsvg-convert is missing: apt-get install librsvg2-bin (make dist does)");
  const svg = join(ROOT, "packaging/icons/homed.svg");
  const out = join(work, "icons");
  mkdirSync(join(out, "scalable/apps"), { recursive: true });
  copyFileSync(svg, join(out, "scalable/apps/homed.svg"));
  for (const n of ICON_SIZES) {
    mkdirSync(join(out, `${n}x${n}/apps`), { recursive: true });
    run(["rsvg-convert", "-w", String(n), "-h", String(n), svg, "-o", join(out, `${n}x${n}/apps/homed.png`)]);
  }
  iconCache = out;
  return out;
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
  /** man1/{homed,waiter,homed-desktop}.1.gz and man5/homed.conf.5.gz (man.ts). */
  man: string;
  /** The hicolor icon tree: scalable/apps/homed.svg and NxN/apps/homed.png. */
  icons: string;
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
    man: manPagesIn(work),
    icons: iconsIn(work),
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
