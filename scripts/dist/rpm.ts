/**
 * homed-{server,full}-<v>-<release>.{x86_64,aarch64}.rpm, built with rpmbuild (Debian's `rpm` package) from the same
 * variant layout as the .deb (variants.ts), at Fedora's paths (the unit in /usr/lib/systemd/system). The
 * binaries go in as they are: rpmbuild's strip and debuginfo steps would cut the application
 * Bun appends to its executable, so both are off. The scriptlets make the `homed` user and its
 * data dir from the sysusers.d and tmpfiles.d snippets the .deb ships too, restart a running
 * service after an upgrade, and never enable or start it (`systemctl enable --now homed` does).
 * make dist signs them afterwards (rpmsign, dist/sign.ts) and lists them in the dnf repository.
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

export const RPM_ARCH: Record<Arch["deb"], string> = { amd64: "x86_64", arm64: "aarch64" };

/**
 * The Release: a build number, then ".homed" where Fedora puts its dist tag (".fc41"). One rpm
 * serves every rpm distribution (the binaries need only glibc), so no distribution's tag would
 * be true; ".homed" says whose build it is, as a dist tag does, and keeps a distribution's own
 * homed package, should one appear, from being mistaken for ours. HOMED_DIST_RELEASE bumps the
 * number for a packaging-only rebuild of the same version.
 */
export const RELEASE = `${process.env.HOMED_DIST_RELEASE || "1"}.homed`;

export function rpmName(v: Variant, arch: Arch): string {
  return `${packageName(v)}-${VERSION}-${RELEASE}.${RPM_ARCH[arch.deb]}.rpm`;
}

/** SPDX ids for the licence column of licenses/INDEX.txt where it is not one already. */
const SPDX_OF: Record<string, string[]> = {
  // Bun is MIT; the JavaScriptCore it embeds is LGPL-2.0-or-later (WebKit's notice: "version 2 … or any later").
  "MIT (and LGPL-2.0 JavaScriptCore)": ["MIT", "LGPL-2.0-or-later"],
  "CC-BY-SA-4.0 (data), MIT (npm package)": ["CC-BY-SA-4.0", "MIT"],
  // Princeton's WordNet licence has no SPDX id of its own.
  WordNet: ["LicenseRef-WordNet"],
};

/**
 * The License tag: homed's AGPL-3.0-only AND every licence of what the binaries embed, read from
 * the INDEX.txt that collect-licenses wrote for this architecture, as one SPDX expression.
 * A licence that is neither an SPDX id (or an OR of them) nor in SPDX_OF fails the build, so a
 * new dependency's licence is looked at before it ships.
 */
export function licenseTag(index: string): string {
  const ids = new Set<string>();
  for (const line of index.split("\n")) {
    const m = /^(\S+) (\S+) (.+)$/.exec(line);
    if (!m || line.startsWith("Third-party") || line.startsWith("Each has")) continue;
    const text = m[3] as string;
    const mapped = SPDX_OF[text] ?? (/^\(?[\w.+-]+( OR [\w.+-]+)*\)?$/.test(text) ? [text] : null);
    if (!mapped)
      throw new DistError(`licenses/INDEX.txt: "${text}" (${m[1]}) is no SPDX expression; add it to SPDX_OF`);
    for (const id of mapped) ids.add(id);
  }
  if (ids.size === 0) throw new DistError("licenses/INDEX.txt lists no component");
  ids.delete("AGPL-3.0-only");
  return ["AGPL-3.0-only", ...[...ids].sort()].join(" AND ");
}

/** Provides: bundled(…) for the libraries and data compiled into the binaries (Fedora's bundling policy). */
export function bundledProvides(): string[] {
  const version = (pkg: string, field = "version") =>
    (JSON.parse(readFileSync(join(ROOT, "node_modules", pkg, "package.json"), "utf8")) as Record<string, string>)[
      field
    ];
  // The libvips build sharp links is the same version on both architectures (one sharp-libvips release).
  const vips = (
    JSON.parse(readFileSync(join(ROOT, "node_modules/@img/sharp-libvips-linux-x64/versions.json"), "utf8")) as {
      vips: string;
    }
  ).vips;
  return [
    `bundled(bun) = ${version("bun")}`,
    `bundled(onnxruntime) = ${version("onnxruntime-node")}`,
    `bundled(libvips) = ${vips}`,
    `bundled(nodejs-sharp) = ${version("sharp")}`,
    `bundled(jieba-dict) = ${version("@node-rs/jieba")}`,
  ];
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
    // The folder too, so an erase leaves no empty /usr/share/doc/homed behind.
    "%dir /usr/share/doc/homed",
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

/** The spec; the architecture comes from rpmbuild --target (a BuildArch other than the host's is refused). */
function spec(v: Variant, stage: string, licence: string): string {
  const variant = SPECS[v];
  // There is no homed-client rpm (the client variant is a .deb and the Windows installer).
  const conflicts = others(v).filter((o) => o !== packageName("client"));
  return `Name: ${packageName(v)}
Version: ${VERSION}
Release: ${RELEASE}
Summary: ${variant.summary.replace(/^s/, "S")}
License: ${licence}
AutoReqProv: no
${bundledProvides()
  .map((p) => `Provides: ${p}\n`)
  .join("")}${variant.daemon ? "Requires(pre): shadow-utils\n" : ""}${weak(v)}Conflicts: ${conflicts.join(" ")}

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
  writeFileSync(specFile, spec(v, stage, licenseTag(readFileSync(join(s.licenses, "INDEX.txt"), "utf8"))));
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
