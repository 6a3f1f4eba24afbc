/**
 * The full and client variants (issue 17), built by scripts/dist.ts from the binaries make test
 * built: each package's file list is what its variant promises (full = server + desktop app;
 * client = waiter + desktop app, no daemon, no user, no unit), the client has no maintainer
 * scripts, and the client .deb installs with `dpkg -i` into an overlay copy of / where its waiter
 * runs and homed-desktop reaches `waiter desktop`.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, run } from "../harness/binary.ts";
import { buildArtefact, installAndRun } from "./deb-rig.ts";

const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const CLIENT = `homed-client_${VERSION}_amd64.deb`;
const FULL = `homed-full_${VERSION}_amd64.deb`;
const FULL_RPM = `homed-full-${VERSION}-1.homed.x86_64.rpm`;

let built: Awaited<ReturnType<typeof buildArtefact>>;
beforeAll(async () => {
  built = await buildArtefact("deb-client-amd64", "deb-full-amd64", "rpm-full-x86_64");
}, 180_000);
afterAll(() => built?.dispose());

/** The files (not folders, not the collected licences) a .deb ships, without the leading "./". */
async function debFiles(name: string): Promise<string[]> {
  const list = (await run(["dpkg-deb", "-c", join(built.dir, name)])).stdout.trim().split("\n");
  return list
    .filter((l) => !l.startsWith("d"))
    .map((l) => (l.split(/\s+/).pop() as string).replace(/^\.\//, ""))
    .filter((f) => !f.startsWith("usr/share/doc/homed/licenses/"))
    .sort();
}

const DOCS = ["usr/share/doc/homed/LICENSE", "usr/share/doc/homed/README.md"];
const ICONS = [
  "usr/share/icons/hicolor/128x128/apps/homed.png",
  "usr/share/icons/hicolor/256x256/apps/homed.png",
  "usr/share/icons/hicolor/48x48/apps/homed.png",
  "usr/share/icons/hicolor/scalable/apps/homed.svg",
];

test("homed-client: waiter and the desktop app only; no daemon, unit or maintainer scripts", async () => {
  expect(await debFiles(CLIENT)).toEqual(
    [
      "usr/bin/homed-desktop",
      "usr/bin/waiter",
      "usr/share/applications/homed.desktop",
      ...DOCS,
      "usr/share/doc/homed-client/changelog.gz",
      "usr/share/doc/homed-client/copyright",
      ...ICONS,
      "usr/share/lintian/overrides/homed-client",
      "usr/share/man/man1/homed-desktop.1.gz",
      "usr/share/man/man1/waiter.1.gz",
    ].sort(),
  );
  const info = (await run(["dpkg-deb", "-I", join(built.dir, CLIENT)])).stdout;
  expect(info).toContain("Package: homed-client\n");
  expect(info).toMatch(/^ Depends: libc6$/m);
  expect(info).toMatch(/^ Conflicts: homed-server, homed-full$/m);
  expect(info).not.toMatch(/postinst|prerm|postrm/);
}, 60_000);

test("homed-full: the server's files plus the desktop app, with the user-creating postinst", async () => {
  expect(await debFiles(FULL)).toEqual(
    [
      "lib/systemd/system/homed.service",
      "usr/bin/homed",
      "usr/bin/homed-desktop",
      "usr/bin/waiter",
      "usr/lib/systemd/user/homed.service",
      "usr/lib/sysusers.d/homed.conf",
      "usr/lib/tmpfiles.d/homed.conf",
      "usr/share/applications/homed.desktop",
      ...DOCS,
      "usr/share/doc/homed/config.toml.example",
      "usr/share/doc/homed-full/changelog.gz",
      "usr/share/doc/homed-full/copyright",
      ...ICONS,
      "usr/share/lintian/overrides/homed-full",
      "usr/share/man/man1/homed-desktop.1.gz",
      "usr/share/man/man1/homed.1.gz",
      "usr/share/man/man1/waiter.1.gz",
      "usr/share/man/man5/homed.conf.5.gz",
    ].sort(),
  );
  const info = (await run(["dpkg-deb", "-I", join(built.dir, FULL)])).stdout;
  expect(info).toContain("Package: homed-full\n");
  expect(info).toMatch(/^ Depends: adduser, libc6$/m);
  // Made for a desktop: the tools' programs come with it (the server only suggests them).
  const recommends = /^ Recommends: (.*)$/m.exec(info)?.[1]?.split(", ") ?? [];
  expect(recommends).toEqual(expect.arrayContaining(["bubblewrap", "chromium", "tesseract-ocr", "ffmpeg"]));
  expect(info).toMatch(/\*\s+postinst\s/);
}, 60_000);

test("homed-full .rpm: AGPL and the embedded licences, its file list, %pre adds the user", async () => {
  const rpm = join(built.dir, FULL_RPM);
  expect((await run(["rpm", "-qp", "--qf", "%{NAME} %{LICENSE}", rpm])).stdout).toMatch(
    /^homed-full AGPL-3\.0-only AND .*\bLGPL-3\.0-or-later\b/,
  );
  const files = (await run(["rpm", "-qlp", rpm])).stdout.trim().split("\n");
  expect(files.filter((f) => !f.startsWith("/usr/share/doc/homed/licenses/"))).toEqual([
    "/usr/bin/homed",
    "/usr/bin/homed-desktop",
    "/usr/bin/waiter",
    "/usr/lib/systemd/system/homed.service",
    "/usr/lib/systemd/user/homed.service",
    "/usr/lib/sysusers.d/homed.conf",
    "/usr/lib/tmpfiles.d/homed.conf",
    "/usr/share/applications/homed.desktop",
    "/usr/share/doc/homed",
    "/usr/share/doc/homed/LICENSE",
    "/usr/share/doc/homed/README.md",
    "/usr/share/doc/homed/config.toml.example",
    "/usr/share/doc/homed/licenses",
    "/usr/share/icons/hicolor/128x128/apps/homed.png",
    "/usr/share/icons/hicolor/256x256/apps/homed.png",
    "/usr/share/icons/hicolor/48x48/apps/homed.png",
    "/usr/share/icons/hicolor/scalable/apps/homed.svg",
    "/usr/share/man/man1/homed-desktop.1.gz",
    "/usr/share/man/man1/homed.1.gz",
    "/usr/share/man/man1/waiter.1.gz",
    "/usr/share/man/man5/homed.conf.5.gz",
  ]);
  expect((await run(["rpm", "-qp", "--scripts", rpm])).stdout).toContain("useradd -r -g homed");
}, 60_000);

test("the client .deb installs in an overlay of /; its waiter runs and homed-desktop reaches waiter desktop", async () => {
  const script = [
    "waiter version",
    "waiter --version",
    "homed-desktop --version",
    "test ! -e /usr/bin/homed && echo no-daemon",
    "test ! -e /lib/systemd/system/homed.service && echo no-unit",
    "getent passwd homed >/dev/null || echo no-user",
    "homed-desktop -connect http://127.0.0.1:9 -browser /nonexistent/browser; echo desktop-exit=$?",
  ].join("; ");
  const r = await installAndRun(join(built.dir, CLIENT), ["sh", "-c", script]);
  expect(r.stderr).toContain("Setting up homed-client");
  expect(r.stdout).toContain(
    `waiter ${VERSION} (linux/x64)\nwaiter ${VERSION} (linux/x64)\nwaiter ${VERSION} (linux/x64)\n`,
  );
  expect(r.stdout).toContain("no-daemon\nno-unit\nno-user\n");
  // The launcher got as far as looking for the browser: a usage error (exit 2) naming it.
  expect(r.stderr).toContain("browser /nonexistent/browser not found");
  expect(r.stdout).toContain("desktop-exit=2\n");
  expect(r.exitCode).toBe(0);
}, 120_000);
