/**
 * The Debian package homed-server_<v>_<arch>.deb, built with dpkg-deb (files owned by root,
 * zstd-compressed: the binaries are ~200 MB each and xz would take minutes).
 *
 * Layout: /usr/bin/{homed,waiter}, the system unit at /lib/systemd/system/homed.service, the
 * per-person unit at /usr/lib/systemd/user/homed.service, /usr/share/doc/homed/ (LICENSE,
 * README.md, config.toml.example, licenses/) and Debian's copyright file. The maintainer
 * scripts (packaging/debian/) create the `homed` system user and never enable or start the
 * service: the person does, with `systemctl enable --now homed`.
 */
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Arch, ROOT, run, VERSION } from "./common.ts";
import { initConfig, place, placeTree, staged } from "./stage.ts";

/** Who answers for the package; override with HOMED_MAINTAINER="Name <mail>". */
const MAINTAINER = process.env.HOMED_MAINTAINER ?? "homed maintainers <maintainers@homed.invalid>";

/** The Debian package's file name for `arch`. */
export function serverDebName(arch: Arch): string {
  return `homed-server_${VERSION}_${arch.deb}.deb`;
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

Files: usr/bin/homed usr/bin/waiter
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

function control(arch: Arch, installedKiB: number): string {
  return `Package: homed-server
Version: ${VERSION}
Architecture: ${arch.deb}
Maintainer: ${MAINTAINER}
Installed-Size: ${installedKiB}
Depends: adduser, libc6
Recommends: bubblewrap, chromium
Suggests: python3
Section: net
Priority: optional
Description: self-hosted agent kernel (server: daemon, client, systemd unit)
 homed runs an agent on your own machine: one executable with an append-only
 memory, a web UI and plugins as separate processes. This package installs the
 daemon (homed), the client (waiter) and a hardened systemd unit that runs homed
 as the system user homed with its data in /var/lib/homed. Nothing is started
 on install; enable it with \`systemctl enable --now homed\`.
`;
}

/** Build the server .deb for `arch` into `outDir`; returns its path. */
export function buildServerDeb(arch: Arch, work: string, outDir: string): string {
  const s = staged(arch, work);
  const root = join(work, `deb-server-${arch.deb}`);
  rmSync(root, { recursive: true, force: true });
  place(root, "usr/bin/homed", s.homed, 0o755);
  place(root, "usr/bin/waiter", s.waiter, 0o755);
  place(root, "lib/systemd/system/homed.service", s.systemUnit);
  place(root, "usr/lib/systemd/user/homed.service", s.userUnit);
  place(root, "usr/share/doc/homed/LICENSE", s.license);
  place(root, "usr/share/doc/homed/README.md", s.readme);
  placeTree(root, "usr/share/doc/homed/licenses", s.licenses);
  mkdirSync(join(root, "usr/share/doc/homed-server"), { recursive: true });
  writeFileSync(join(root, "usr/share/doc/homed/config.toml.example"), initConfig(), { mode: 0o644 });
  writeFileSync(join(root, "usr/share/doc/homed-server/copyright"), copyrightFile(), { mode: 0o644 });
  writeFileSync(join(root, "usr/share/doc/homed-server/changelog.gz"), changelog(), { mode: 0o644 });
  place(root, "usr/share/lintian/overrides/homed-server", join(ROOT, "packaging/debian/lintian-overrides"));
  const installed = kib(root);
  const debian = join(root, "DEBIAN");
  mkdirSync(debian, { mode: 0o755 });
  writeFileSync(join(debian, "control"), control(arch, installed), { mode: 0o644 });
  for (const script of ["postinst", "prerm", "postrm"]) {
    place(root, `DEBIAN/${script}`, join(ROOT, "packaging/debian", script), 0o755);
  }
  run(["chmod", "-R", "go-w", root]);
  const out = join(outDir, serverDebName(arch));
  run(["dpkg-deb", "--root-owner-group", "-Zzstd", "-z3", "--build", root, out]);
  rmSync(root, { recursive: true, force: true });
  return out;
}
