/**
 * homed-{server,full}-<v>.x86_64.rpm, built with rpmbuild (Debian's `rpm` package) from the same
 * variant layout as the .deb (variants.ts), at Fedora's paths (the unit in /usr/lib/systemd/system). The
 * binaries go in as they are: rpmbuild's strip and debuginfo steps would cut the application
 * Bun appends to its executable, so both are off. The scriptlets make the `homed` user and its
 * data dir from the sysusers.d and tmpfiles.d snippets the .deb ships too, restart a running
 * service after an upgrade, and never enable or start it (`systemctl enable --now homed` does).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Arch, DistError, ROOT, run, VERSION } from "./common.ts";
import { staged } from "./stage.ts";
import {
  iconFiles,
  manPagesOf,
  others,
  packageName,
  placeVariant,
  SPECS,
  type Variant,
  weakDependencies,
  wrapped,
} from "./variants.ts";

const RPM_ARCH: Record<Arch["deb"], string> = { amd64: "x86_64", arm64: "aarch64" };

export function rpmName(v: Variant, arch: Arch): string {
  return `${packageName(v)}-${VERSION}.${RPM_ARCH[arch.deb]}.rpm`;
}

/** %files: what placeVariant laid out, with rpm's attributes. */
function files(v: Variant): string {
  const spec = SPECS[v];
  return [
    ...(spec.daemon ? ["%attr(0755,root,root) /usr/bin/homed"] : []),
    "%attr(0755,root,root) /usr/bin/waiter",
    ...(spec.desktop ? ["%attr(0755,root,root) /usr/bin/homed-desktop", "/usr/share/applications/homed.desktop"] : []),
    ...(spec.daemon
      ? [
          "/usr/lib/systemd/system/homed.service",
          "/usr/lib/systemd/user/homed.service",
          "/usr/lib/sysusers.d/homed.conf",
          "/usr/lib/tmpfiles.d/homed.conf",
        ]
      : []),
    ...manPagesOf(v).map((p) => `/usr/share/man/${p}`),
    ...(spec.desktop ? iconFiles().map((f) => `/usr/share/icons/hicolor/${f}`) : []),
    "%license /usr/share/doc/homed/LICENSE",
    "%license /usr/share/doc/homed/licenses",
    "%doc /usr/share/doc/homed/README.md",
    ...(spec.daemon ? ["%doc /usr/share/doc/homed/config.toml.example"] : []),
  ].join("\n");
}

/**
 * The daemon's scriptlets: Fedora's %sysusers_create_compat, %tmpfiles_create, %systemd_post,
 * %systemd_preun and %systemd_postun_with_restart written out (Debian's rpmbuild has none of
 * those macros), with two differences. %post runs no `systemctl preset`: the package never
 * enables the service. And homed-server and homed-full replace each other (`dnf swap`): the new
 * one is installed first, so its %post restarts a running service on the new binary, and the
 * old one's %preun leaves the unit alone while the other variant is installed.
 */
function daemonScriptlets(v: Variant): string {
  const sysusers = readFileSync(join(ROOT, "packaging/sysusers/homed.conf"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("#"))
    .join("\n");
  const other = others(v).filter((o) => o !== packageName("client"));
  return `%pre
if [ -x /usr/bin/systemd-sysusers ]; then
systemd-sysusers --replace=/usr/lib/sysusers.d/homed.conf - <<'SYSUSERS_EOF' || :
${sysusers}
SYSUSERS_EOF
else
getent group homed >/dev/null || groupadd -r homed
getent passwd homed >/dev/null || useradd -r -g homed -d /var/lib/homed -M -s /sbin/nologin -c "homed agent kernel" homed
fi
exit 0

%post
if [ -x /usr/bin/systemd-tmpfiles ]; then
  systemd-tmpfiles --create homed.conf >/dev/null 2>&1 || :
elif [ ! -d /var/lib/homed ]; then
  install -d -o homed -g homed -m 0700 /var/lib/homed || :
fi
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload >/dev/null 2>&1 || :
  # A first install of this name restarts only a service the other variant left running.
  if [ "$1" -eq 1 ]; then systemctl try-restart homed.service >/dev/null 2>&1 || :; fi
fi

%preun
if [ "$1" -eq 0 ] && ! rpm -q --quiet ${other.join(" ")}; then
  systemctl --no-reload disable --now homed.service >/dev/null 2>&1 || :
fi

%postun
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload >/dev/null 2>&1 || :
  if [ "$1" -ge 1 ]; then systemctl try-restart homed.service >/dev/null 2>&1 || :; fi
fi
`;
}

/** Fedora's names where they differ from Debian's. */
const FEDORA_NAMES: Record<string, string> = {
  "tesseract-ocr": "tesseract",
  ffmpeg: "ffmpeg-free",
  "pocketsphinx-en-us": "pocketsphinx-models",
};

/** Recommends and Suggests lines, as for the .deb (variants.ts), by Fedora's names. */
function weak(v: Variant): string {
  const { recommends, suggests } = weakDependencies(v);
  const names = (list: string[]) => [...new Set(list.map((p) => FEDORA_NAMES[p] ?? p))];
  return [
    ...names(recommends).map((p) => `Recommends: ${p}\n`),
    ...names(suggests).map((p) => `Suggests: ${p}\n`),
  ].join("");
}

function spec(v: Variant, arch: Arch, stage: string): string {
  const variant = SPECS[v];
  return `Name: ${packageName(v)}
Version: ${VERSION}
Release: 1
Summary: ${variant.summary.replace(/^s/, "S")}
License: AGPL-3.0-only
BuildArch: ${RPM_ARCH[arch.deb]}
AutoReqProv: no
${variant.daemon ? "Requires(pre): shadow-utils\n" : ""}${weak(v)}Conflicts: ${others(v).join(" ")}

%global debug_package %{nil}
%global __os_install_post %{nil}
%global __strip /bin/true

%description
${wrapped(variant.description, "")}

%install
cp -a ${stage}/. %{buildroot}/

${variant.daemon ? daemonScriptlets(v) : ""}
%files
${files(v)}
`;
}

/** Build variant `v`'s .rpm for `arch` into `outDir`; returns its path. */
export function buildRpm(v: Variant, arch: Arch, work: string, outDir: string): string {
  if (!Bun.which("rpmbuild")) throw new DistError("rpmbuild is missing: apt-get install rpm (make dist does)");
  const s = staged(arch, work);
  const top = join(work, `rpm-${v}-${arch.deb}`);
  const stage = join(top, "stage");
  rmSync(top, { recursive: true, force: true });
  placeVariant(stage, v, s, "usr/lib/systemd/system");
  const specFile = join(top, `${packageName(v)}.spec`);
  writeFileSync(specFile, spec(v, arch, stage));
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
  const out = join(outDir, rpmName(v, arch));
  run(["mv", join(archDir, built), out]);
  rmSync(top, { recursive: true, force: true });
  return out;
}
