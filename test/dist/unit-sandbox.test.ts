/**
 * The system unit under real systemd: the server .deb installed into an overlay copy of /, and
 * systemd booted over it in a container (systemd-nspawn; no systemd runs as pid 1 on the test
 * machine). homed.service is enabled there as a person would, and must answer `homed status`
 * as user homed with a 0700 state dir; a probe unit with homed.service's own hardening (every
 * line but ExecStart) runs the shell tool's bubblewrap call as it would be made, and the
 * sandbox must come up. Root's `homed status` finds the service without -data, the login link is
 * in /var/lib/homed/login-link and not in the journal, and `systemctl reload homed` reloads. This is the check that the SystemCallFilter and the Protect* lines
 * leave bubblewrap its namespaces and mounts (drop @mount from the filter and it fails:
 * "bwrap: Failed to make / slave: Operation not permitted").
 *
 * White-box in one place: the probe's argv comes from plugins/shell/sandbox.ts's bwrapArgs,
 * so it stays the call the shell tool really makes (driving the tool through the daemon would
 * need a model). Needs root and systemd-nspawn (make test installs systemd-container).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bwrapArgs } from "../../plugins/shell/sandbox.ts";
import { run } from "../harness/binary.ts";
import { buildArtefact } from "./deb-rig.ts";

const VERSION = (JSON.parse(readFileSync(join(import.meta.dir, "../../package.json"), "utf8")) as { version: string })
  .version;
const WORKSPACE = "/var/lib/homed/workspace";

let built: Awaited<ReturnType<typeof buildArtefact>>;
let scratch: string;

beforeAll(async () => {
  built = await buildArtefact("deb-server-amd64");
  scratch = mkdtempSync(join(tmpdir(), "homed-nspawn-"));
}, 120_000);

afterAll(() => {
  built?.dispose();
  if (scratch) {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(`${scratch}.probe`, { force: true });
  }
});

/** ExecStart lines for the probe: the shell tool's bwrap argv, quoted for a unit file. */
function probeExec(): string {
  const argv = bwrapArgs(
    {
      mode: "bwrap",
      network: false,
      timeoutMs: 30_000,
      outputBytes: 65_536,
      maxJobs: 1,
      workspace: WORKSPACE,
      searchPath: "/usr/bin",
    },
    { argv: ["/bin/sh", "-c", "echo sandbox-ok; id -un; grep NoNewPrivs /proc/self/status"] },
  );
  const quoted = argv.map((a) => (/[\s;"%$\\]/.test(a) ? JSON.stringify(a.replaceAll("%", "%%")) : a));
  return `ExecStartPre=/bin/mkdir -p ${WORKSPACE}\nExecStart=/usr/bin/bwrap ${quoted.join(" ")}\n`;
}

test("homed.service runs as user homed under systemd, and bubblewrap works inside its hardening", async () => {
  if (!Bun.which("systemd-nspawn")) throw new Error("systemd-nspawn is missing: make test installs systemd-container");
  const probe = `${scratch}.probe`;
  writeFileSync(probe, probeExec());
  const deb = join(built.dir, `homed-server_${VERSION}_amd64.deb`);
  const r = await run([
    "unshare",
    "-m",
    "--propagation",
    "private",
    "bash",
    join(import.meta.dir, "nspawn-boot.sh"),
    deb,
    scratch,
    probe,
  ]);
  const [, probeOut = "", statusOut = ""] = r.stdout.split(/^---- (?:probe|status)\n/m);
  expect(probeOut).toBe("sandbox-ok\nhomed\nNoNewPrivs:\t1\n");
  expect(statusOut).toContain("homed 700\n");
  expect(statusOut).toContain("User=homed\n");
  // The container's console may eat the start of a long line, so read the fields, not the line.
  const dataDir = /"dataDir":"([^"]*)"/.exec(statusOut)?.[1];
  if (!dataDir) throw new Error(`homed status never answered:\n${r.stdout}\n${r.stderr}`);
  expect(dataDir).toBe("/var/lib/homed");
  expect(statusOut).toContain('"path":"/var/lib/homed/homed.db"');
  expect(statusOut).toMatch(/"name":"web","builtin":true,"transport":"shm","state":"(starting|ready)"/);
  // Root's `homed status` without -data finds the service (issue 45).
  expect(statusOut).toContain('nodata "dataDir":"/var/lib/homed"');
  // The login link is in a file of the homed user's, and the journal says only where.
  expect(statusOut).toContain("login-link 600 homed\n");
  expect(statusOut).toContain("journal-codes 0\n");
  expect(statusOut).toContain("journal-where 1\n");
  // `systemctl reload homed` is SIGHUP, and the daemon reloads.
  expect(statusOut).toContain("reload ok\n");
}, 120_000);
