/**
 * Root on a data dir that belongs to another user (issue 32): `sudo homed initconfig -data
 * /var/lib/homed` once wrote config.toml as root:root 0600 and the service, running as homed,
 * exited 78 on EACCES. Every command that writes into a data dir now refuses there, in one line
 * that names the command that works, and writes nothing. Needs root (it is the case under test;
 * make test runs as root).
 */
import { beforeAll, expect, test } from "bun:test";
import { chownSync, readdirSync } from "node:fs";
import { HOMED, run, tempDir } from "./harness/binary.ts";

/** nobody's uid on Debian; any user but root would do. */
const NOBODY = 65534;

beforeAll(() => {
  if (process.getuid?.() !== 0) throw new Error("this suite checks what root may do: run it as root");
});

test("initconfig, recall and the daemon refuse root on a dir another user owns, naming sudo -u", async () => {
  using dir = tempDir();
  chownSync(dir.path, NOBODY, NOBODY);
  for (const argv of [
    ["initconfig", "-data", dir.path],
    ["recall", "-stdio", "-data", dir.path],
    ["skills", "disable", "some-skill", "-data", dir.path],
    ["-data", dir.path, "-listen", "127.0.0.1:0"],
  ]) {
    const r = await run([HOMED, ...argv], { stdin: "" });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(`data dir ${dir.path} belongs to nobody`);
    expect(r.stderr).toContain("sudo -u nobody homed");
    expect(r.stdout).toBe("");
  }
  expect(readdirSync(dir.path)).toEqual([]);
});

test("root on its own data dir, or a new one, is not refused", async () => {
  using dir = tempDir();
  const r = await run([HOMED, "initconfig", "-data", `${dir.path}/new`]);
  expect(r.stderr).toBe("");
  expect(r.exitCode).toBe(0);
  const again = await run([HOMED, "initconfig", "-data", dir.path]);
  expect(again.exitCode).toBe(0);
});
