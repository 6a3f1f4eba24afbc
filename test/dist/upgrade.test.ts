/**
 * Upgrades and variant switches under real systemd (issue 32): the packages are installed,
 * upgraded, switched and purged inside a container that booted systemd over an overlay copy of
 * / (nspawn-scenario.sh), so the maintainer scripts' deb-systemd-invoke and systemctl calls
 * reach a live service manager as on an administrator's machine. The "newer" packages are the
 * same binaries packed under a bumped number (HOMED_DIST_VERSION), which is all dpkg and rpm
 * look at. After each step the scenario prints the unit's state, its main pid and whether any
 * process of the unit runs a deleted executable (the old binary an upgrade replaced).
 * Needs root and systemd-nspawn, as unit-sandbox.test.ts does.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, run } from "../harness/binary.ts";

const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const NEWER = `${VERSION}.1`;

let pkgs: string;

beforeAll(async () => {
  if (!Bun.which("systemd-nspawn")) throw new Error("systemd-nspawn is missing: make test installs systemd-container");
  pkgs = mkdtempSync(join(tmpdir(), "homed-upgrade-"));
  const build = async (version: string, ...names: string[]) => {
    const r = await run([BUN, join(ROOT, "scripts/dist.ts"), "-out", pkgs, ...names], {
      env: { HOMED_DIST_VERSION: version },
    });
    if (r.exitCode !== 0) throw new Error(`scripts/dist.ts ${names.join(" ")} failed:\n${r.stderr}`);
  };
  await build(VERSION, "deb-server-amd64", "rpm-server-x86_64");
  await build(NEWER, "deb-server-amd64", "deb-full-amd64", "rpm-server-x86_64", "rpm-full-x86_64");
}, 240_000);

afterAll(() => {
  if (pkgs) rmSync(pkgs, { recursive: true, force: true });
});

/** Shell functions every scenario starts with. */
const HELPERS = `
set -u
cd /srv/homed-scenario/pkgs
# One line per step: the unit's state, its main pid, and how many of its processes run a
# deleted executable (the binary an upgrade replaced).
report() {
  pid=$(systemctl show -p MainPID --value homed.service)
  cg=$(systemctl show -p ControlGroup --value homed.service)
  deleted=0
  procs=0
  # By /proc/PID/cgroup: the unified and the legacy hierarchies both name the unit's group.
  for p in /proc/[0-9]*; do
    grep -Eq "^[0-9]+:(name=systemd)?:$cg$" "$p/cgroup" 2>/dev/null || continue
    procs=$((procs + 1))
    readlink "$p/exe" | grep -q deleted && deleted=$((deleted + 1))
  done
  echo "$1 active=$(systemctl is-active homed.service) enabled=$(systemctl is-enabled homed.service 2>/dev/null) pid=$pid procs=$procs deleted=$deleted"
}
# The daemon answers on its socket (so the next step replaces a service that is really up).
ready() {
  for i in $(seq 150); do /usr/bin/homed status -data /var/lib/homed >/dev/null 2>&1 && return 0; sleep 0.2; done
  echo "homed never answered"
}
quiet() { "$@" >/srv/homed-scenario/step.log 2>&1 || { echo "failed: $*"; cat /srv/homed-scenario/step.log; }; }
`;

/** Run `script` in a booted container with the built packages at /srv/homed-scenario/pkgs; its output lines. */
async function scenario(script: string): Promise<string> {
  const scratch = mkdtempSync(join(tmpdir(), "homed-nspawn-"));
  const file = `${scratch}.sh`;
  writeFileSync(file, HELPERS + script);
  try {
    const r = await run([
      "unshare",
      "-m",
      "--propagation",
      "private",
      "bash",
      join(import.meta.dir, "nspawn-scenario.sh"),
      pkgs,
      scratch,
      file,
    ]);
    const out = r.stdout.split(/^---- scenario\n/m)[1] ?? "";
    if (process.env.HOMED_SCENARIO_DEBUG) console.log(out);
    if (!out.includes("end")) throw new Error(`the scenario did not finish:\n${r.stdout}\n${r.stderr}`);
    return out;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(file, { force: true });
  }
}

/** The report line of `step` as fields. */
function step(out: string, name: string): Record<string, string> {
  const line = out.split("\n").find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`no ${name} line in:\n${out}`);
  return Object.fromEntries(
    line
      .split(" ")
      .slice(1)
      .map((kv) => kv.split("=") as [string, string]),
  );
}

describe("under a booted systemd", () => {
  test(".deb: a fresh install starts nothing; an upgrade and a switch of variants (dpkg -i, apt) restart the running service; purging the replaced variant leaves it alone", async () => {
    const out = await scenario(`
quiet dpkg -i homed-server_${VERSION}_amd64.deb
echo "datadir $(stat -c '%U %a' /var/lib/homed) $(runuser -u homed -- test -w /var/lib/homed && echo writable)"
report fresh
quiet systemctl enable --now homed.service
ready
report started
quiet dpkg -i homed-server_${NEWER}_amd64.deb
ready
report upgraded
quiet dpkg -i homed-full_${NEWER}_amd64.deb
ready
report switched
echo "server $(dpkg-query -W -f='\${db:Status-Abbrev}' homed-server)"
quiet dpkg -P homed-server
report purged
ls /var/lib/homed | grep -qx homed.db && echo "data kept"
# apt switches back its own way: it removes homed-full first, then unpacks homed-server.
quiet apt-get install -y --no-install-recommends ./homed-server_${NEWER}_amd64.deb
ready
report apt-switched
quiet apt-get purge -y homed-full
report apt-purged
quiet dpkg -r homed-server
report removed
# A removal of its own, long before the next install, is not a switch: nothing starts.
test -e /run/homed.service.was-active && echo "noted"
quiet touch -d '20 minutes ago' /run/homed.service.was-active
quiet dpkg -i homed-full_${NEWER}_amd64.deb
report later
echo end
`);
    expect(out).toContain("datadir homed 700 writable\n");
    expect(step(out, "fresh")).toMatchObject({ active: "inactive", enabled: "disabled", pid: "0" });
    const started = step(out, "started");
    expect(started).toMatchObject({ active: "active", enabled: "enabled", deleted: "0" });
    const upgraded = step(out, "upgraded");
    expect(upgraded).toMatchObject({ active: "active", enabled: "enabled", deleted: "0" });
    expect(upgraded.pid).not.toBe(started.pid);
    // The kernel and the plugins it started: none runs the binary the upgrade replaced.
    expect(Number(upgraded.procs)).toBeGreaterThan(1);
    const switched = step(out, "switched");
    expect(switched).toMatchObject({ active: "active", enabled: "enabled", deleted: "0" });
    expect(switched.pid).not.toBe(upgraded.pid);
    // dpkg removed homed-server in favour of homed-full and kept its record for the purge.
    expect(out).toMatch(/^server [ir]c $/m);
    expect(step(out, "purged")).toMatchObject({ active: "active", enabled: "enabled", pid: switched.pid });
    expect(out).toContain("data kept\n");
    const aptSwitched = step(out, "apt-switched");
    expect(aptSwitched).toMatchObject({ active: "active", enabled: "enabled", deleted: "0" });
    expect(aptSwitched.pid).not.toBe(switched.pid);
    expect(step(out, "apt-purged")).toMatchObject({ active: "active", enabled: "enabled", pid: aptSwitched.pid });
    expect(step(out, "removed")).toMatchObject({ active: "inactive", pid: "0" });
    expect(out).toContain("noted\n");
    expect(step(out, "later")).toMatchObject({ active: "inactive", enabled: "enabled", pid: "0" });
    expect(out).not.toContain("failed:");
  }, 240_000);

  test(".rpm: the same with rpm: upgrade restarts, the other variant taking over keeps the unit", async () => {
    const out = await scenario(`
quiet rpm -i --nodeps homed-server-${VERSION}-1.homed.x86_64.rpm
echo "datadir $(stat -c '%U %a' /var/lib/homed)"
report fresh
quiet systemctl enable --now homed.service
ready
report started
quiet rpm -U --nodeps homed-server-${NEWER}-1.homed.x86_64.rpm
ready
report upgraded
# dnf swap's order: the new variant first, then the old one erased.
quiet rpm -i --nodeps --replacefiles homed-full-${NEWER}-1.homed.x86_64.rpm
ready
quiet rpm -e --nodeps homed-server
report switched
quiet rpm -e homed-full
report erased
echo end
`);
    expect(out).toContain("datadir homed 700\n");
    expect(step(out, "fresh")).toMatchObject({ active: "inactive", enabled: "disabled", pid: "0" });
    const started = step(out, "started");
    expect(started).toMatchObject({ active: "active", enabled: "enabled", deleted: "0" });
    const upgraded = step(out, "upgraded");
    expect(upgraded).toMatchObject({ active: "active", enabled: "enabled", deleted: "0" });
    expect(upgraded.pid).not.toBe(started.pid);
    // The kernel and the plugins it started: none runs the binary the upgrade replaced.
    expect(Number(upgraded.procs)).toBeGreaterThan(1);
    const switched = step(out, "switched");
    expect(switched).toMatchObject({ active: "active", enabled: "enabled", deleted: "0" });
    expect(switched.pid).not.toBe(upgraded.pid);
    expect(step(out, "erased")).toMatchObject({ active: "inactive", pid: "0" });
    expect(out).not.toContain("failed:");
  }, 240_000);
});
