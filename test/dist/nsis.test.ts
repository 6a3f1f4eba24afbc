/**
 * The Windows installers (issue 17): makensis builds HomedSetup-<v>-client.exe and -server.exe
 * from packaging/nsis/homed.nsi (the server one embeds the server .deb for WSL2, so the test
 * builds that too), each a 64-bit Windows GUI program by `file`, and SHA256SUMS covers them.
 * Built, not run: WSL2 bootstrapping and the Windows desktop app need a Windows machine.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ROOT, run } from "../harness/binary.ts";
import { buildArtefact, expectSums } from "./deb-rig.ts";

const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const CLIENT = `HomedSetup-${VERSION}-client.exe`;
const SERVER = `HomedSetup-${VERSION}-server.exe`;

let built: Awaited<ReturnType<typeof buildArtefact>>;
beforeAll(async () => {
  if (!Bun.which("makensis")) throw new Error("makensis is missing: make test installs Debian's nsis package");
  built = await buildArtefact("nsis-client", "nsis-server");
}, 400_000);
afterAll(() => built?.dispose());

test("makensis builds the client and server installers: PE32+ GUI programs, in SHA256SUMS", async () => {
  for (const name of [CLIENT, SERVER]) {
    expect((await run(["file", "-b", join(built.dir, name)])).stdout).toMatch(/^PE32\+ executable \(GUI\) x86-64/);
  }
  expect(built.stdout).toMatch(/^bench: dist\.setup_client_mb \d+\.\d MB$/m);
  // The server installer carries the Linux package for WSL2 on top of what the client has.
  const size = (n: string) => statSync(join(built.dir, n)).size;
  expect(size(SERVER) - size(CLIENT)).toBeGreaterThan(50e6);
  await expectSums(built.dir, [CLIENT, SERVER]);
}, 60_000);
