/**
 * The arm64 server .deb: built from dist/homed-linux-arm64 and dist/waiter-linux-arm64 (make
 * test builds them; packaging takes about 10 s), its metadata says arm64, its homed is an
 * aarch64 executable that runs `version` under qemu-aarch64-static, and its licences are the
 * arm64 native packages', not the host's.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../harness/binary.ts";
import { buildArtefact } from "./deb-rig.ts";

const VERSION = (JSON.parse(readFileSync(join(import.meta.dir, "../../package.json"), "utf8")) as { version: string })
  .version;
const DEB = `homed-server_${VERSION}_arm64.deb`;

let built: Awaited<ReturnType<typeof buildArtefact>>;
let root: string;

beforeAll(async () => {
  built = await buildArtefact("deb-server-arm64");
  root = mkdtempSync(join(tmpdir(), "homed-deb-arm64-"));
  const x = await run(["dpkg-deb", "-x", join(built.dir, DEB), root]);
  if (x.exitCode !== 0) throw new Error(x.stderr);
}, 120_000);

afterAll(() => {
  built?.dispose();
  if (root) rmSync(root, { recursive: true, force: true });
});

test("the arm64 .deb holds aarch64 binaries that run under qemu, with the arm64 licences", async () => {
  expect(built.stdout).toMatch(/^bench: dist\.deb_arm64_mb \d+\.\d MB$/m);
  expect((await run(["dpkg-deb", "-f", join(built.dir, DEB), "Architecture"])).stdout).toBe("arm64\n");
  for (const bin of ["homed", "waiter"]) {
    const elf = readFileSync(join(root, "usr/bin", bin)).subarray(0, 20);
    expect(elf.subarray(0, 4).toString("latin1")).toBe("\x7fELF");
    expect(elf.readUInt16LE(18)).toBe(183); // e_machine EM_AARCH64
  }
  // The aarch64 libc comes from the cross toolchain make test installs (as in test/arm64.test.ts).
  const v = await run(["qemu-aarch64-static", "-L", "/usr/aarch64-linux-gnu", join(root, "usr/bin/homed"), "version"]);
  expect(v.stdout).toBe(`homed ${VERSION} (bun ${Bun.version}, linux/arm64)\n`);
  const index = readFileSync(join(root, "usr/share/doc/homed/licenses/INDEX.txt"), "utf8");
  expect(index).toContain("linux/arm64");
  expect(index).toMatch(/^npm:@img\/sharp-libvips-linux-arm64 /m);
  expect(index).toMatch(/^npm:@node-rs\/jieba-linux-arm64-gnu /m);
  expect(index).not.toContain("linux-x64");
}, 60_000);
