/**
 * The server .rpm (x86_64 and aarch64), built from dist/homed and dist/waiter (and their arm64
 * twins) by scripts/dist.ts (~10 s: rpmbuild, no compile) and read back with Debian's rpm: the
 * License tag is AGPL-3.0-only AND the licences of what the binaries embed (an SPDX expression),
 * bundled() Provides name Bun, ONNX Runtime, libvips, sharp and the jieba dictionary, the release
 * carries the .homed dist tag, it conflicts only with the other rpm (homed-full; there is no
 * homed-client rpm), the file list is the binaries, units, sysusers.d/tmpfiles.d snippets, man
 * pages and docs with /usr/share/doc/homed itself owned (an erase leaves no empty folder), %pre
 * adds the homed user and no scriptlet enables or starts the service, and the packed homed is
 * byte for byte dist/homed (rpmbuild's strip would have cut Bun's embedded application), by
 * rpm's own file digests.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, ROOT, run, WAITER } from "../harness/binary.ts";
import { buildArtefact } from "./deb-rig.ts";

const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const RPM = `homed-server-${VERSION}-1.homed.x86_64.rpm`;
const RPM_ARM64 = `homed-server-${VERSION}-1.homed.aarch64.rpm`;
const HOMED_ARM64 = join(ROOT, "dist/homed-linux-arm64");
const WAITER_ARM64 = join(ROOT, "dist/waiter-linux-arm64");

let built: Awaited<ReturnType<typeof buildArtefact>>;

beforeAll(async () => {
  if (!Bun.which("rpmbuild")) throw new Error("rpmbuild is missing: make test installs Debian's rpm package");
  built = await buildArtefact("rpm-server-x86_64", "rpm-server-aarch64");
}, 120_000);

afterAll(() => built?.dispose());

test("rpm -qip / -qlp / --scripts, and the packed binary is dist/homed", async () => {
  const rpm = join(built.dir, RPM);
  expect(built.stdout).toMatch(/^bench: dist\.rpm_mb \d+\.\d MB$/m);
  const info = (await run(["rpm", "-qip", rpm])).stdout;
  expect(info).toMatch(/^Name\s+: homed-server$/m);
  expect(info).toMatch(new RegExp(`^Version\\s+: ${VERSION.replaceAll(".", "\\.")}$`, "m"));
  expect(info).toMatch(/^Release\s+: 1\.homed$/m);
  expect(info).toMatch(/^Architecture: x86_64$/m);
  // homed's licence first, then each embedded component's: libvips (LGPL-3.0-or-later), JavaScriptCore
  // (LGPL-2.0-or-later), CC-CEDICT (CC-BY-SA-4.0), sharp (Apache-2.0), most npm packages (MIT).
  const licence = (await run(["rpm", "-qp", "--qf", "%{LICENSE}", rpm])).stdout;
  expect(licence).toMatch(/^AGPL-3\.0-only( AND (\([\w.+-]+( OR [\w.+-]+)+\)|[\w.+-]+))+$/);
  const ids = licence.split(" AND ");
  for (const id of [
    "MIT",
    "Apache-2.0",
    "LGPL-3.0-or-later",
    "LGPL-2.0-or-later",
    "CC-BY-SA-4.0",
    "LicenseRef-WordNet",
  ])
    expect(ids).toContain(id);
  expect(new Set(ids).size).toBe(ids.length);
  const provides = (await run(["rpm", "-qp", "--provides", rpm])).stdout;
  for (const b of ["bun", "onnxruntime", "libvips", "nodejs-sharp", "jieba-dict"])
    expect(provides).toMatch(new RegExp(`^bundled\\(${b}\\) = \\d+\\.\\d+`, "m"));
  expect(provides).not.toContain("chromium");
  expect((await run(["rpm", "-qp", "--conflicts", rpm])).stdout).toBe("homed-full\n");
  const list = (await run(["rpm", "-qlvp", rpm])).stdout.trim().split("\n");
  for (const line of list) expect(line).toMatch(/^[-d]r[-w][-x]r-[-x]r-[-x]\s+\d+ root\s+root /);
  const files = list.map((l) => l.split(/\s+/).pop() as string);
  expect(files.filter((f) => !f.startsWith("/usr/share/doc/homed/licenses/"))).toEqual([
    "/usr/bin/homed",
    "/usr/bin/waiter",
    "/usr/lib/systemd/system/homed.service",
    "/usr/lib/systemd/user/homed.service",
    "/usr/lib/sysusers.d/homed.conf",
    "/usr/lib/tmpfiles.d/homed.conf",
    "/usr/share/doc/homed",
    "/usr/share/doc/homed/LICENSE",
    "/usr/share/doc/homed/README.md",
    "/usr/share/doc/homed/config.toml.example",
    "/usr/share/doc/homed/licenses",
    "/usr/share/man/man1/homed.1.gz",
    "/usr/share/man/man1/waiter.1.gz",
    "/usr/share/man/man5/homed.conf.5.gz",
  ]);
  expect(files).toContain("/usr/share/doc/homed/licenses/INDEX.txt");
  const scripts = (await run(["rpm", "-qp", "--scripts", rpm])).stdout;
  expect(scripts).toContain("systemd-sysusers --replace=/usr/lib/sysusers.d/homed.conf -");
  expect(scripts).toContain("useradd -r -g homed -d /var/lib/homed");
  // try-restart and `disable --now` on erase only; upgrade.test.ts runs them under systemd.
  expect(scripts).not.toMatch(/systemctl[^\n]*\s(enable|start)\b|preset/);
  expect(scripts).toContain("systemctl try-restart homed.service");
  // rpm's own per-file digests (--dump): the packed binaries are dist/homed and dist/waiter.
  const dump = (await run(["rpm", "-qp", "--dump", rpm])).stdout;
  const digest = (path: string) => new RegExp(`^${path} \\d+ \\d+ ([0-9a-f]{64}) `, "m").exec(dump)?.[1];
  const hash = (p: string) => new Bun.CryptoHasher("sha256").update(readFileSync(p)).digest("hex");
  expect(digest("/usr/bin/homed")).toBe(hash(HOMED));
  expect(digest("/usr/bin/waiter")).toBe(hash(WAITER));
}, 60_000);

test("the aarch64 rpm packs the arm64 binaries under the same metadata", async () => {
  const rpm = join(built.dir, RPM_ARM64);
  expect(built.stdout).toMatch(/^bench: dist\.rpm_aarch64_mb \d+\.\d MB$/m);
  const q = (await run(["rpm", "-qp", "--qf", "%{NAME} %{VERSION}-%{RELEASE} %{ARCH}", rpm])).stdout;
  expect(q).toBe(`homed-server ${VERSION}-1.homed aarch64`);
  const dump = (await run(["rpm", "-qp", "--dump", rpm])).stdout;
  const digest = (path: string) => new RegExp(`^${path} \\d+ \\d+ ([0-9a-f]{64}) `, "m").exec(dump)?.[1];
  const hash = (p: string) => new Bun.CryptoHasher("sha256").update(readFileSync(p)).digest("hex");
  expect(digest("/usr/bin/homed")).toBe(hash(HOMED_ARM64));
  expect(digest("/usr/bin/waiter")).toBe(hash(WAITER_ARM64));
  expect(digest("/usr/bin/homed")).not.toBe(hash(HOMED));
}, 60_000);
