/**
 * lintian on the three amd64 .debs (issue 32): no errors and no warnings, so a new one turns this
 * red until it is fixed or overridden with its reason in packaging/debian/lintian-overrides.
 * The man pages (homed(1), waiter(1), homed-desktop(1), homed.conf(5)) took the last warnings
 * away (no-manual-page); lintian also reads them with man --warnings, so a page groff complains
 * about shows here. The desktop entry passes desktop-file-validate and its icon is in the
 * hicolor theme. Prints `bench: dist.lintian_errors`. lintian takes about 30 s a package;
 * make test installs it and desktop-file-utils (scripts/ensure-test-tools.sh).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, run } from "../harness/binary.ts";
import { buildArtefact } from "./deb-rig.ts";

const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const DEBS = ["server", "full", "client"].map((v) => `homed-${v}_${VERSION}_amd64.deb`);

let built: Awaited<ReturnType<typeof buildArtefact>>;
beforeAll(async () => {
  if (!Bun.which("lintian")) throw new Error("lintian is missing: make test installs Debian's lintian");
  built = await buildArtefact("deb-server-amd64", "deb-full-amd64", "deb-client-amd64");
}, 120_000);
afterAll(() => built?.dispose());

test("lintian: no errors and no warnings on any .deb", async () => {
  const r = await run(["lintian", "--tag-display-limit", "0", ...DEBS.map((d) => join(built.dir, d))]);
  const tags = r.stdout.split("\n").filter((l) => /^[EW]: /.test(l));
  const errors = tags.filter((l) => l.startsWith("E: "));
  console.log(`bench: dist.lintian_errors ${errors.length} errors`);
  expect(errors).toEqual([]);
  expect(tags).toEqual([]);
  // It looked: the run named the packages (an unreadable .deb is an error line, not silence).
  expect(r.exitCode).toBe(0);
}, 240_000);

test("the desktop entry names its icon, which the desktop packages ship; desktop-file-validate is clean", async () => {
  if (!Bun.which("desktop-file-validate"))
    throw new Error("desktop-file-validate is missing: make test installs Debian's desktop-file-utils");
  const entry = join(ROOT, "packaging/desktop/homed.desktop");
  const v = await run(["desktop-file-validate", entry]);
  expect(v.stdout + v.stderr).toBe("");
  expect(v.exitCode).toBe(0);
  expect(readFileSync(entry, "utf8")).toMatch(/^Icon=homed$/m);
  for (const deb of DEBS.slice(1)) {
    const list = (await run(["dpkg-deb", "-c", join(built.dir, deb)])).stdout;
    expect(list).toContain("./usr/share/icons/hicolor/scalable/apps/homed.svg\n");
    for (const n of [48, 128, 256]) expect(list).toContain(`./usr/share/icons/hicolor/${n}x${n}/apps/homed.png\n`);
  }
  const server = (await run(["dpkg-deb", "-c", join(built.dir, DEBS[0] as string)])).stdout;
  expect(server).not.toContain("icons/");
}, 60_000);
