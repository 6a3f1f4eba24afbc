/**
 * A release folder as `make dist` writes it: SHA256SUMS covers exactly the artefacts there
 * with bare names and verifies, and the .tar.gz holds homed, waiter, the commented
 * config.toml, LICENSE, the units and the licences, and nothing else. The test builds the
 * amd64 tarball itself (from the binaries `make test` built; ~45 s of gzip), so it always runs.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, ROOT, run, tempDir } from "../harness/binary.ts";
import { buildArtefact } from "./deb-rig.ts";

const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

let built: Awaited<ReturnType<typeof buildArtefact>>;
let RELEASE = "";
beforeAll(async () => {
  built = await buildArtefact("tar-amd64");
  RELEASE = built.dir;
}, 240_000);
afterAll(() => built?.dispose());

test("a release folder: SHA256SUMS with bare names verifies; the tarball holds exactly what it should", async () => {
  const sums = readFileSync(join(RELEASE, "SHA256SUMS"), "utf8").trim().split("\n");
  const named = sums.map((l) => l.split("  ")[1]).sort();
  expect(named).toEqual(
    readdirSync(RELEASE)
      .filter((f) => f !== "SHA256SUMS")
      .sort(),
  );
  for (const name of named) expect(name).not.toContain("/");
  const check = await run(["sha256sum", "--strict", "-c", "SHA256SUMS"], { cwd: RELEASE });
  expect(check.exitCode).toBe(0);
  expect(named).toEqual([`homed-${VERSION}-linux-amd64.tar.gz`]);
  for (const arch of ["amd64"]) {
    const tgz = join(RELEASE, `homed-${VERSION}-linux-${arch}.tar.gz`);
    const top = `homed-${VERSION}-linux-${arch}`;
    const list = (await run(["tar", "tzf", tgz])).stdout.trim().split("\n");
    const files = list.filter((f) => !f.endsWith("/") && !f.startsWith(`${top}/licenses/`)).sort();
    expect(files).toEqual(
      [
        "LICENSE",
        "README.md",
        "config.toml",
        "homed",
        "man/man1/homed.1.gz",
        "man/man1/waiter.1.gz",
        "man/man5/homed.conf.5.gz",
        "systemd/homed-user.service",
        "systemd/homed.service",
        "waiter",
      ]
        .map((f) => `${top}/${f}`)
        .sort(),
    );
    expect(list).toContain(`${top}/licenses/INDEX.txt`);
    using dir = tempDir();
    await run(["tar", "xzf", tgz, "-C", dir.path, `${top}/config.toml`]);
    using fresh = tempDir();
    await run([HOMED, "initconfig", "-data", fresh.path]);
    expect(readFileSync(join(dir.path, top, "config.toml"), "utf8")).toBe(
      readFileSync(join(fresh.path, "config.toml"), "utf8"),
    );
  }
}, 120_000);
