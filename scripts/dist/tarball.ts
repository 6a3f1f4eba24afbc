/**
 * homed-<v>-linux-<arch>.tar.gz: for people without dpkg or rpm, named after the one top folder
 * homed-<v>-linux-<arch>/ with homed, waiter, a commented config.toml (from `homed initconfig`),
 * LICENSE, README.md, the systemd units, licenses/ and man/ (homed(1), waiter(1), homed.conf(5): `man -l man/man1/homed.1.gz`).
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Arch, run, VERSION } from "./common.ts";
import { initConfig, place, placeTree, staged } from "./stage.ts";
import { manPagesOf } from "./variants.ts";

export function tarballName(arch: Arch): string {
  return `homed-${VERSION}-linux-${arch.deb}.tar.gz`;
}

/** Build the tarball for `arch` into `outDir`; returns its path. */
export function buildTarball(arch: Arch, work: string, outDir: string): string {
  const s = staged(arch, work);
  const top = `homed-${VERSION}-linux-${arch.deb}`;
  const root = join(work, `tar-${arch.deb}`);
  rmSync(root, { recursive: true, force: true });
  place(root, `${top}/homed`, s.homed, 0o755);
  place(root, `${top}/waiter`, s.waiter, 0o755);
  place(root, `${top}/LICENSE`, s.license);
  place(root, `${top}/README.md`, s.readme);
  place(root, `${top}/systemd/homed.service`, s.systemUnit);
  place(root, `${top}/systemd/homed-user.service`, s.userUnit);
  placeTree(root, `${top}/licenses`, s.licenses);
  for (const page of manPagesOf("server")) place(root, `${top}/man/${page}`, join(s.man, page));
  writeFileSync(join(root, top, "config.toml"), initConfig(), { mode: 0o644 });
  const out = join(outDir, tarballName(arch));
  // Owner root and a fixed order, so the archive does not depend on who built it.
  run(["tar", "--sort=name", "--owner=0", "--group=0", "--numeric-owner", "-czf", out, "-C", root, top]);
  rmSync(root, { recursive: true, force: true });
  return out;
}
