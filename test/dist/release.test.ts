/**
 * The whole of dist/release/ as `make dist` left it: SHA256SUMS covers exactly the artefacts
 * there and verifies, and the .tar.gz holds homed, waiter, the commented config.toml, LICENSE,
 * the units and the licences, and nothing else. Runs only when dist/release/ exists: the
 * tarballs alone take ~90 s of gzip, too slow to rebuild in every `make test` (the .debs are
 * rebuilt and checked on every run by server-deb.test.ts and arm64-deb.test.ts), and only
 * when it is newer than dist/homed (else it holds other binaries and another config).
 */
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { HOMED, ROOT, run, tempDir } from "../harness/binary.ts";

const RELEASE = join(ROOT, "dist/release");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

/** A release older than dist/homed was packaged from other binaries: nothing to compare. */
const SUMS = join(RELEASE, "SHA256SUMS");
const current = existsSync(SUMS) && statSync(SUMS).mtimeMs >= statSync(HOMED).mtimeMs;

test.skipIf(!current)(
  "dist/release: SHA256SUMS and the tarballs",
  async () => {
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
    for (const arch of ["amd64", "arm64"]) {
      const tgz = join(RELEASE, `homed-bin-linux_${arch}.tar.gz`);
      if (!existsSync(tgz)) continue;
      const top = `homed-${VERSION}-linux-${arch}`;
      const list = (await run(["tar", "tzf", tgz])).stdout.trim().split("\n");
      const files = list.filter((f) => !f.endsWith("/") && !f.startsWith(`${top}/licenses/`)).sort();
      expect(files).toEqual(
        [
          "LICENSE",
          "README.md",
          "config.toml",
          "homed",
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
  },
  120_000,
);
