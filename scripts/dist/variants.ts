/**
 * The three package variants and what each holds, laid out once for the .deb and the .rpm:
 *   server  homed + waiter + the systemd units (a machine that runs the agent)
 *   full    server + the desktop app (homed-desktop and its menu entry)
 *   client  waiter + the desktop app, for a remote homed: no daemon, no user, no unit
 * The packages ship the same /usr/bin/waiter, so each conflicts with (and replaces) the others.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGES } from "../../plugins/media/programs.ts";
import { ICON_SIZES, initConfig, place, placeTree, type Staged } from "./stage.ts";

export type Variant = "server" | "full" | "client";
export const VARIANTS: readonly Variant[] = ["server", "full", "client"];

export interface VariantSpec {
  /** Ships homed, the system user and the systemd units. */
  daemon: boolean;
  /** Ships homed-desktop and its .desktop entry. */
  desktop: boolean;
  summary: string;
  description: string;
}

const INTRO =
  "homed runs an agent on your own machine: one executable with an append-only memory, a web UI and plugins as separate processes.";
const UNIT =
  "The hardened systemd unit runs homed as the system user homed with its data in /var/lib/homed. Nothing is started on install; enable it with `systemctl enable --now homed`.";
const DESKTOP =
  "homed-desktop opens the web UI of a local or remote homed in a window of its own (Chromium, Chrome or Edge in app mode), logged in.";

export const SPECS: Record<Variant, VariantSpec> = {
  server: {
    daemon: true,
    desktop: false,
    summary: "self-hosted agent kernel (server: daemon, client, systemd unit)",
    description: `${INTRO} This package installs the daemon (homed), the terminal client (waiter) and the systemd units. ${UNIT}`,
  },
  full: {
    daemon: true,
    desktop: true,
    summary: "self-hosted agent kernel (full: daemon, clients, desktop app, systemd unit)",
    description: `${INTRO} This package installs the daemon (homed), the terminal client (waiter), the desktop app and the systemd units. ${UNIT} ${DESKTOP}`,
  },
  client: {
    daemon: false,
    desktop: true,
    summary: "self-hosted agent kernel (client: waiter and desktop app for a remote homed)",
    description: `${INTRO} This package installs only the clients for a homed running elsewhere: the terminal client (waiter) and the desktop app. ${DESKTOP}`,
  },
};

/**
 * Debian packages a tool runs when they are there (each tool that misses one names its package
 * in its answer: plugins/media/programs.ts, plugins/browser/session.ts, plugins/code/runner.ts,
 * plugins/music/mpv.ts). Together with Chromium they weigh about 900 MB and pull in a desktop,
 * so the headless server only Suggests them; the full variant, made for a desktop, Recommends.
 */
export const TOOL_PACKAGES: readonly string[] = [
  "chromium",
  ...new Set(Object.values(PACKAGES)),
  "pocketsphinx-en-us",
  "python3",
  "mpv",
];

/** A variant's weak dependencies, by Debian's package names. */
export function weakDependencies(v: Variant): { recommends: string[]; suggests: string[] } {
  // bubblewrap (about 0.1 MB) is the shell and code tools' sandbox: without it they refuse.
  if (v === "server") return { recommends: ["bubblewrap"], suggests: [...TOOL_PACKAGES] };
  if (v === "full") return { recommends: ["bubblewrap", ...TOOL_PACKAGES], suggests: [] };
  return { recommends: ["chromium"], suggests: [] };
}

export const packageName = (v: Variant): string => `homed-${v}`;

/** The other variants' package names: they ship the same files, so one replaces another. */
export const others = (v: Variant): string[] => VARIANTS.filter((o) => o !== v).map(packageName);

/** The man pages variant `v` ships, as man1/NAME.1.gz paths: one per program it installs, and homed.conf(5) with the daemon. */
export function manPagesOf(v: Variant): string[] {
  const spec = SPECS[v];
  return [
    ...(spec.daemon ? ["man1/homed.1.gz"] : []),
    "man1/waiter.1.gz",
    ...(spec.desktop ? ["man1/homed-desktop.1.gz"] : []),
    ...(spec.daemon ? ["man5/homed.conf.5.gz"] : []),
  ];
}

/** The icon files of the desktop variants, under /usr/share/icons/hicolor. */
export function iconFiles(): string[] {
  return ["scalable/apps/homed.svg", ...ICON_SIZES.map((n) => `${n}x${n}/apps/homed.png`)];
}

/** Files every layout of `v` ships, under `root`; `unitDir` is the distribution's system unit folder. */
export function placeVariant(root: string, v: Variant, s: Staged, unitDir: string): void {
  const spec = SPECS[v];
  place(root, "usr/bin/waiter", s.waiter, 0o755);
  if (spec.daemon) {
    place(root, "usr/bin/homed", s.homed, 0o755);
    place(root, `${unitDir}/homed.service`, s.systemUnit);
    place(root, "usr/lib/systemd/user/homed.service", s.userUnit);
    place(root, "usr/lib/sysusers.d/homed.conf", s.sysusers);
    place(root, "usr/lib/tmpfiles.d/homed.conf", s.tmpfiles);
  }
  if (spec.desktop) {
    place(root, "usr/bin/homed-desktop", s.desktopLauncher, 0o755);
    place(root, "usr/share/applications/homed.desktop", s.desktopEntry);
    placeTree(root, "usr/share/icons/hicolor", s.icons);
  }
  for (const page of manPagesOf(v)) place(root, `usr/share/man/${page}`, join(s.man, page));
  place(root, "usr/share/doc/homed/LICENSE", s.license);
  place(root, "usr/share/doc/homed/README.md", s.readme);
  placeTree(root, "usr/share/doc/homed/licenses", s.licenses);
  if (spec.daemon) {
    writeFileSync(join(root, "usr/share/doc/homed/config.toml.example"), initConfig(), { mode: 0o644 });
  }
}

/** Text wrapped for a package description (Debian: lines start with a space). */
export function wrapped(text: string, indent: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + word.length + 1 > 76) {
      lines.push(`${indent}${line}`);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(`${indent}${line}`);
  return lines.join("\n");
}
