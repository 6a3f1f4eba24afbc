/**
 * homed-server-<v>.x86_64.rpm, built with rpmbuild (Debian's `rpm` package) from the same
 * staged files as the .deb, at Fedora's paths (the unit in /usr/lib/systemd/system). The
 * binaries go in as they are: rpmbuild's strip and debuginfo steps would cut the application
 * Bun appends to its executable, so both are off. %pre adds the `homed` system user; nothing
 * enables or starts the service (`systemctl enable --now homed` does).
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Arch, DistError, run, VERSION } from "./common.ts";
import { initConfig, place, placeTree, staged } from "./stage.ts";

const RPM_ARCH: Record<Arch["deb"], string> = { amd64: "x86_64", arm64: "aarch64" };

export function serverRpmName(arch: Arch): string {
  return `homed-server-${VERSION}.${RPM_ARCH[arch.deb]}.rpm`;
}

function spec(arch: Arch, stage: string): string {
  return `Name: homed-server
Version: ${VERSION}
Release: 1
Summary: Self-hosted agent kernel (server: daemon, client, systemd unit)
License: AGPL-3.0-only
BuildArch: ${RPM_ARCH[arch.deb]}
AutoReqProv: no
Requires(pre): shadow-utils
Recommends: bubblewrap
Recommends: chromium

%global debug_package %{nil}
%global __os_install_post %{nil}
%global __strip /bin/true

%description
homed runs an agent on your own machine: one executable with an append-only memory, a web UI
and plugins as separate processes. This package installs the daemon (homed), the client
(waiter) and a hardened systemd unit that runs homed as the system user homed with its data
in /var/lib/homed. Nothing is started on install; enable it with
systemctl enable --now homed.

%install
cp -a ${stage}/. %{buildroot}/

%pre
getent group homed >/dev/null || groupadd -r homed
getent passwd homed >/dev/null || useradd -r -g homed -d /var/lib/homed -M -s /sbin/nologin -c "homed agent kernel" homed
exit 0

%post
if [ -d /run/systemd/system ]; then systemctl daemon-reload >/dev/null 2>&1 || :; fi

%preun
if [ "$1" -eq 0 ] && [ -d /run/systemd/system ]; then systemctl stop homed.service >/dev/null 2>&1 || :; fi

%postun
if [ -d /run/systemd/system ]; then systemctl daemon-reload >/dev/null 2>&1 || :; fi

%files
%attr(0755,root,root) /usr/bin/homed
%attr(0755,root,root) /usr/bin/waiter
/usr/lib/systemd/system/homed.service
/usr/lib/systemd/user/homed.service
%license /usr/share/doc/homed/LICENSE
%license /usr/share/doc/homed/licenses
%doc /usr/share/doc/homed/README.md
%doc /usr/share/doc/homed/config.toml.example
`;
}

/** Build the server .rpm for `arch` into `outDir`; returns its path. */
export function buildServerRpm(arch: Arch, work: string, outDir: string): string {
  if (!Bun.which("rpmbuild")) throw new DistError("rpmbuild is missing: apt-get install rpm (make dist does)");
  const s = staged(arch, work);
  const top = join(work, `rpm-${arch.deb}`);
  const stage = join(top, "stage");
  rmSync(top, { recursive: true, force: true });
  place(stage, "usr/bin/homed", s.homed, 0o755);
  place(stage, "usr/bin/waiter", s.waiter, 0o755);
  place(stage, "usr/lib/systemd/system/homed.service", s.systemUnit);
  place(stage, "usr/lib/systemd/user/homed.service", s.userUnit);
  place(stage, "usr/share/doc/homed/LICENSE", s.license);
  place(stage, "usr/share/doc/homed/README.md", s.readme);
  placeTree(stage, "usr/share/doc/homed/licenses", s.licenses);
  writeFileSync(join(stage, "usr/share/doc/homed/config.toml.example"), initConfig(), { mode: 0o644 });
  const specFile = join(top, "homed-server.spec");
  writeFileSync(specFile, spec(arch, stage));
  mkdirSync(join(top, "RPMS"), { recursive: true });
  run([
    "rpmbuild",
    "-bb",
    "--quiet",
    "--target",
    RPM_ARCH[arch.deb],
    "--define",
    `_topdir ${top}`,
    "--define",
    `_rpmdir ${join(top, "RPMS")}`,
    "--define",
    "_build_id_links none",
    // zstd at level 3 with a thread per core: level 19 (the default) takes minutes on 300 MB.
    "--define",
    "_binary_payload w3T0.zstdio",
    specFile,
  ]);
  const archDir = join(top, "RPMS", RPM_ARCH[arch.deb]);
  const built = readdirSync(archDir).find((f) => f.endsWith(".rpm"));
  if (!built) throw new DistError(`rpmbuild left no package in ${archDir}`);
  const out = join(outDir, serverRpmName(arch));
  run(["mv", join(archDir, built), out]);
  rmSync(top, { recursive: true, force: true });
  return out;
}
