/**
 * The package repositories `make dist` writes into the release folder, from the packages it
 * built, so that `apt upgrade` and `dnf upgrade` bring new versions:
 *
 *   apt/  an APT repository: pool/main/h/homed/*.deb, dists/stable/main/binary-{amd64,arm64}/
 *         Packages(.gz), and dists/stable/Release (apt-ftparchive, Debian's apt-utils) signed as
 *         InRelease (clear-signed) and Release.gpg (detached)
 *         deb [signed-by=/etc/apt/keyrings/homed.asc] URL/apt stable main
 *   rpm/  a dnf repository: the .rpm packages (signed by rpmsign) and repodata/ (createrepo_c,
 *         Debian's createrepo-c, gzip metadata so older dnf and yum read it too) with
 *         repodata/repomd.xml.asc for repo_gpgcheck
 *
 * The packages in both are hard links to the ones beside SHA256SUMS (a copy where the file system
 * has none), so the repositories take no extra room.
 */
import { copyFileSync, linkSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { DistError, run } from "./common.ts";
import type { Signer } from "./sign.ts";

export const APT_SUITE = "stable";
export const APT_COMPONENT = "main";
export const APT_ARCHES = ["amd64", "arm64"] as const;

function linkOrCopy(src: string, dest: string): void {
  try {
    linkSync(src, dest);
  } catch {
    copyFileSync(src, dest);
  }
}

/** The APT repository at `root` (emptied first) holding `debs`; returns `root`. */
export function buildAptRepo(root: string, debs: string[], signer: Signer): string {
  if (!Bun.which("apt-ftparchive")) throw new DistError("apt-ftparchive is missing: apt-get install apt-utils");
  if (debs.length === 0) throw new DistError("no .deb to put in the APT repository");
  rmSync(root, { recursive: true, force: true });
  const pool = join(root, "pool", APT_COMPONENT, "h", "homed");
  mkdirSync(pool, { recursive: true });
  for (const deb of debs) linkOrCopy(deb, join(pool, basename(deb)));
  const dist = join(root, "dists", APT_SUITE);
  for (const arch of APT_ARCHES) {
    const dir = join(dist, APT_COMPONENT, `binary-${arch}`);
    mkdirSync(dir, { recursive: true });
    // Paths relative to the repository's root, as apt fetches them (Filename: pool/main/h/homed/…).
    const packages = run(["apt-ftparchive", "--arch", arch, "packages", `pool/${APT_COMPONENT}`], { cwd: root });
    writeFileSync(join(dir, "Packages"), packages);
    writeFileSync(join(dir, "Packages.gz"), Bun.gzipSync(new TextEncoder().encode(packages), { level: 9 }));
  }
  const field = (name: string, value: string) => ["-o", `APT::FTPArchive::Release::${name}=${value}`];
  const release = run(
    [
      "apt-ftparchive",
      ...field("Origin", "homed"),
      ...field("Label", "homed"),
      ...field("Suite", APT_SUITE),
      ...field("Codename", APT_SUITE),
      ...field("Architectures", APT_ARCHES.join(" ")),
      ...field("Components", APT_COMPONENT),
      ...field("Description", "homed, a self-hosted agent kernel"),
      "release",
      ".",
    ],
    { cwd: dist },
  );
  writeFileSync(join(dist, "Release"), release);
  signer.clearsign(join(dist, "Release"), join(dist, "InRelease"));
  signer.detach(join(dist, "Release"), join(dist, "Release.gpg"));
  return root;
}

/** The dnf repository at `root` (emptied first) holding `rpms` (already signed); returns `root`. */
export function buildDnfRepo(root: string, rpms: string[], signer: Signer): string {
  if (!Bun.which("createrepo_c")) throw new DistError("createrepo_c is missing: apt-get install createrepo-c");
  if (rpms.length === 0) throw new DistError("no .rpm to put in the dnf repository");
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  for (const rpm of rpms) linkOrCopy(rpm, join(root, basename(rpm)));
  // No database files (dnf reads the XML) and gzip, which every dnf and yum reads.
  run(["createrepo_c", "--quiet", "--no-database", "--general-compress-type=gz", root]);
  signer.detach(join(root, "repodata", "repomd.xml"));
  const listed = readdirSync(join(root, "repodata"));
  if (!listed.some((f) => f.endsWith("primary.xml.gz"))) throw new DistError("createrepo_c wrote no primary.xml.gz");
  return root;
}
