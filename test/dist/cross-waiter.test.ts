/**
 * The waiter for Windows and macOS (make build-cross: Bun's cross compile with the runtimes of
 * @oven/bun-windows-x64 and @oven/bun-darwin-*), as scripts/dist.ts ships them: each is an
 * executable of its platform and architecture by `file`, carries the waiter's own code (its
 * usage text, not a bare Bun runtime), and SHA256SUMS covers all three. Built, not run: this
 * machine runs neither Windows nor macOS programs.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../harness/binary.ts";
import { buildArtefact, expectSums } from "./deb-rig.ts";

const EXPECTED: Record<string, RegExp> = {
  "waiter-windows-amd64.exe": /^PE32\+ executable \(console\) x86-64, for MS Windows/,
  "waiter-darwin-arm64": /^Mach-O 64-bit arm64 executable/,
  "waiter-darwin-amd64": /^Mach-O 64-bit x86_64 executable/,
};

let built: Awaited<ReturnType<typeof buildArtefact>>;
beforeAll(async () => {
  built = await buildArtefact("waiter-windows-amd64", "waiter-darwin-arm64", "waiter-darwin-amd64");
}, 120_000);
afterAll(() => built?.dispose());

test("PE32+ x86-64 and Mach-O arm64/x86_64 executables holding the waiter, covered by SHA256SUMS", async () => {
  for (const [name, kind] of Object.entries(EXPECTED)) {
    const path = join(built.dir, name);
    expect((await run(["file", "-b", path])).stdout).toMatch(kind);
    expect(readFileSync(path).includes("open the web UI in a window, logged in")).toBe(true);
  }
  await expectSums(built.dir, Object.keys(EXPECTED));
}, 60_000);
