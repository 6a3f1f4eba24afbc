/**
 * The Debian packages homed-{server,full,client}_<v>_<arch>.deb, built with dpkg-deb (files
 * owned by root, gzip-compressed: the binaries are ~100 MB each and xz would take minutes).
 *
 * Layout (variants.ts says which variant ships what): /usr/bin/{homed,waiter,homed-desktop},
 * the system unit at /lib/systemd/system/homed.service, the per-person unit at
 * /usr/lib/systemd/user/homed.service, the desktop entry, /usr/share/doc/homed/ (LICENSE,
 * README.md, config.toml.example, licenses/), the sysusers.d and tmpfiles.d snippets and Debian's
 * copyright file. The maintainer scripts (packaging/debian/) of the variants with the daemon
 * make the `homed` system user and /var/lib/homed, restart a running service after an upgrade
 * or a switch between homed-server and homed-full, and never enable or start it on a fresh
 * install: the person does, with `systemctl enable --now homed`.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Arch, ROOT, run, VERSION } from "./common.ts";
import { place, staged } from "./stage.ts";
import { others, packageName, placeVariant, SPECS, type Variant, weakDependencies, wrapped } from "./variants.ts";

/** Who answers for the package; override with HOMED_MAINTAINER="Name <mail>". */
const MAINTAINER = process.env.HOMED_MAINTAINER ?? "homed maintainers <maintainers@homed.invalid>";

/** The Debian package's file name for variant `v` on `arch`. */
export function debName(v: Variant, arch: Arch): string {
  return `${packageName(v)}_${VERSION}_${arch.deb}.deb`;
}

function copyrightFile(): string {
  return `Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: homed
Upstream-Contact: ${MAINTAINER}

Files: *
Copyright: ${new Date().getUTCFullYear()} the homed contributors
License: AGPL-3.0-only
 This program is free software: you can redistribute it and/or modify it under the terms of
 the GNU Affero General Public License as published by the Free Software Foundation, version 3.
 .
 The full text of the licence is in /usr/share/doc/homed/LICENSE.

Files: usr/bin/*
Comment: The executables embed the Bun runtime, ONNX Runtime, libvips (through sharp), the
 jieba dictionary, WordNet, CC-CEDICT and npm packages. Each of those, its version and its
 licence text are in /usr/share/doc/homed/licenses/ (INDEX.txt lists them).
Copyright: see /usr/share/doc/homed/licenses/
License: AGPL-3.0-only and the licences in /usr/share/doc/homed/licenses/
`;
}

/** Debian's changelog for a native package: one entry for this version, gzipped as policy asks. */
function changelog(): Uint8Array {
  const date = new Date().toUTCString().replace("GMT", "+0000");
  const text = `homed (${VERSION}) unstable; urgency=medium\n\n  * Release ${VERSION}.\n\n -- ${MAINTAINER}  ${date}\n`;
  return Bun.gzipSync(new TextEncoder().encode(text), { level: 9 });
}

/** DEBIAN/md5sums: each file's MD5 and its path without the leading /, as dpkg --verify and debsums read it. */
function md5sums(root: string): string {
  const lines: string[] = [];
  const walk = (d: string, rel: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p, r);
      else if (e.isFile()) lines.push(`${new Bun.CryptoHasher("md5").update(readFileSync(p)).digest("hex")}  ${r}`);
    }
  };
  walk(root, "");
  return `${lines.join("\n")}\n`;
}

/** Sum of the file sizes under `dir` in KiB, for Installed-Size. */
function kib(dir: string): number {
  let bytes = 0;
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) bytes += statSync(p).size;
    }
  };
  walk(dir);
  return Math.ceil(bytes / 1024);
}

function control(v: Variant, arch: Arch, installedKiB: number): string {
  const spec = SPECS[v];
  const depends = spec.daemon ? "adduser, libc6" : "libc6";
  const { recommends, suggests } = weakDependencies(v);
  return `Package: ${packageName(v)}
Version: ${VERSION}
Architecture: ${arch.deb}
Maintainer: ${MAINTAINER}
Installed-Size: ${installedKiB}
Depends: ${depends}
Recommends: ${recommends.join(", ")}
${suggests.length > 0 ? `Suggests: ${suggests.join(", ")}\n` : ""}Conflicts: ${others(v).join(", ")}
Replaces: ${others(v).join(", ")}
Section: net
Priority: optional
Description: ${spec.summary}
${wrapped(spec.description, " ")}
`;
}

/** The lintian overrides, named for this package and only for the files it ships. */
function lintianOverrides(v: Variant): string {
  const text = readFileSync(join(ROOT, "packaging/debian/lintian-overrides"), "utf8");
  return text
    .split("\n")
    .filter((l) => SPECS[v].daemon || !l.includes("usr/bin/homed"))
    .map((l) => l.replace(/^homed-server:/, `${packageName(v)}:`))
    .join("\n");
}

/** The .debs built by this run, by file name: the Windows installers embed the server's. */
const builtDebs = new Map<string, string>();

/** Variant `v`'s .deb for `arch`: the one this run built already, else a fresh one in `work`. */
export function debFor(v: Variant, arch: Arch, work: string): string {
  return builtDebs.get(debName(v, arch)) ?? buildDeb(v, arch, work, work);
}

/** Build variant `v`'s .deb for `arch` into `outDir`; returns its path. */
export function buildDeb(v: Variant, arch: Arch, work: string, outDir: string): string {
  const s = staged(arch, work);
  const name = packageName(v);
  const root = join(work, `deb-${v}-${arch.deb}`);
  rmSync(root, { recursive: true, force: true });
  placeVariant(root, v, s, "lib/systemd/system");
  mkdirSync(join(root, `usr/share/doc/${name}`), { recursive: true });
  writeFileSync(join(root, `usr/share/doc/${name}/copyright`), copyrightFile(), { mode: 0o644 });
  writeFileSync(join(root, `usr/share/doc/${name}/changelog.gz`), changelog(), { mode: 0o644 });
  mkdirSync(join(root, "usr/share/lintian/overrides"), { recursive: true });
  writeFileSync(join(root, `usr/share/lintian/overrides/${name}`), lintianOverrides(v), { mode: 0o644 });
  const installed = kib(root);
  const sums = md5sums(root);
  const debian = join(root, "DEBIAN");
  mkdirSync(debian, { mode: 0o755 });
  writeFileSync(join(debian, "md5sums"), sums, { mode: 0o644 });
  writeFileSync(join(debian, "control"), control(v, arch, installed), { mode: 0o644 });
  // The client has no daemon: no user to create, no unit to tell systemd about.
  if (SPECS[v].daemon) {
    for (const script of ["postinst", "prerm", "postrm"]) {
      place(root, `DEBIAN/${script}`, join(ROOT, "packaging/debian", script), 0o755);
    }
  }
  run(["chmod", "-R", "go-w", root]);
  const out = join(outDir, debName(v, arch));
  // gzip members: lintian (and dpkg before 1.21.18, Debian 11, Ubuntu before 21.10) cannot read
  // zstd ones. Level 3: 141 MB in ~6 s for the server (level 6: 135 MB in ~12 s; xz -0: 121 MB
  // in ~18 s), on a build the test suites repeat.
  run(["dpkg-deb", "--root-owner-group", "-Zgzip", "-z3", "--build", root, out]);
  rmSync(root, { recursive: true, force: true });
  builtDebs.set(debName(v, arch), out);
  return out;
}
