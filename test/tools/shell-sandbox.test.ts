/**
 * The sandbox of shell_run and code_run (plugins/shell/sandbox.ts) with the real bubblewrap.
 * White-box on purpose: each confinement property is checked through the module's own entry
 * (runSandboxed), one bwrap run per property instead of one daemon per property; the same
 * properties through dist/homed are in shell.test.ts and code.test.ts.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { type SandboxResult, type SandboxSettings, formatResult, runSandboxed } from "../../plugins/shell/sandbox.ts";

const data = tempDir("homed-sandbox-");
afterAll(() => data[Symbol.dispose]());
const workspace = join(data.path, "workspace");
mkdirSync(workspace);
writeFileSync(join(data.path, "secrets.json"), '{"values":{"k":"secret-value-never-seen"}}');

function settings(over: Partial<SandboxSettings> = {}): SandboxSettings {
  return {
    mode: "bwrap",
    network: false,
    timeoutMs: 20_000,
    outputBytes: 64 * 1024,
    maxJobs: 4,
    workspace,
    searchPath: process.env.PATH ?? "/usr/bin:/bin",
    ...over,
  };
}

async function sh(command: string, over: Partial<SandboxSettings> = {}, timeoutMs?: number): Promise<SandboxResult> {
  const r = await runSandboxed(settings(over), "shell_run", { argv: ["bash", "-c", command] }, { timeoutMs });
  if ("refused" in r) throw new Error(r.refused);
  return r;
}

const unique = () => `homed-escape-${process.pid}-${Math.random().toString(36).slice(2)}`;

describe("the bwrap sandbox", () => {
  test("touch /tmp/<name> stays inside; a file written in the workspace is there outside", async () => {
    const name = unique();
    const r = await sh(`touch /tmp/${name} && ls /tmp && echo made > made-here.txt && pwd`);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.text()).toContain(name);
    expect(r.stdout.text()).toContain("/workspace");
    expect(existsSync(`/tmp/${name}`)).toBe(false);
    expect(readFileSync(join(workspace, "made-here.txt"), "utf8")).toBe("made\n");
  });

  test("the data dir around the workspace, home folders and /etc secrets cannot be read", async () => {
    const r = await sh(
      `cat ${data.path}/secrets.json; cat ../secrets.json; cat /workspace/../secrets.json; ls /root; ls ${process.cwd()}; cat /etc/shadow; ls /`,
    );
    const out = r.stdout.text() + r.stderr.text();
    expect(out).not.toContain("secret-value-never-seen");
    expect(r.stderr.text()).toContain(`${data.path}/secrets.json: No such file or directory`);
    expect(r.stderr.text()).toContain("../secrets.json: No such file or directory");
    expect(r.stderr.text()).toContain("/root");
    expect(r.stderr.text()).toContain(`${process.cwd()}': No such file or directory`);
    expect(r.stdout.text().split("\n").sort()).not.toContain("root");
    if (existsSync("/etc/shadow")) expect(r.stderr.text()).toContain("/etc/shadow");
    // And writing outside the workspace fails: the system is read-only.
    const w = await sh("touch /usr/homed-was-here /etc/homed-was-here");
    expect(w.exitCode).not.toBe(0);
    expect(existsSync("/usr/homed-was-here") || existsSync("/etc/homed-was-here")).toBe(false);
  });

  test("no network: a local HTTP server on 127.0.0.1 is unreachable unless network = true", async () => {
    using server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("reached-the-host") });
    const get = `exec 3<>/dev/tcp/127.0.0.1/${server.port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;
    const closed = await sh(get);
    expect(closed.exitCode).not.toBe(0);
    expect(closed.stdout.text()).not.toContain("reached-the-host");
    const open = await sh(get, { network: true });
    expect(open.exitCode).toBe(0);
    expect(open.stdout.text()).toContain("reached-the-host");
  });

  test("the environment is PATH, HOME, LANG, TZ and TMPDIR — no HOMED_* or secrets of the daemon", async () => {
    const savedTz = process.env.TZ;
    process.env.HOMED_WEB_TOKEN = "tok-should-never-leak";
    process.env.AWS_SECRET_ACCESS_KEY = "aws-should-never-leak";
    process.env.TZ = "Europe/Paris";
    try {
      for (const mode of ["bwrap", "none"] as const) {
        const r = await sh("env", { mode });
        const names = r.stdout
          .text()
          .trim()
          .split("\n")
          .map((l) => l.slice(0, l.indexOf("=")));
        expect(r.stdout.text()).not.toContain("never-leak");
        // bash adds PWD, SHLVL and _ itself.
        expect(names.filter((n) => !["PWD", "SHLVL", "_"].includes(n)).sort()).toEqual(
          ["HOME", "LANG", "PATH", "TMPDIR", "TZ"].sort(),
        );
      }
    } finally {
      delete process.env.HOMED_WEB_TOKEN;
      delete process.env.AWS_SECRET_ACCESS_KEY;
      if (savedTz === undefined) delete process.env.TZ;
      else process.env.TZ = savedTz;
    }
  });

  test("a command past its time limit is killed, with what was left running, and says so", async () => {
    const started = Date.now();
    const marker = `${40 + Math.floor(Math.random() * 1000) / 1000}`;
    const r = await sh(`echo begun; sleep ${marker} & sleep ${marker}`, {}, 300);
    expect(
      Bun.spawnSync(["pgrep", "-f", `sleep ${marker}`])
        .stdout.toString()
        .trim(),
    ).toBe("");
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.timedOut).toBe(true);
    expect(r.exitCode === 0 && r.signal === null).toBe(false);
    expect(formatResult(r)).toContain("timed out after 300 ms and was killed");
    expect(r.stdout.text()).toContain("begun");
    // A call cannot raise the limit above the configured one.
    const capped = await sh("sleep 30", { timeoutMs: 200 }, 60_000);
    expect(capped.timedOut).toBe(true);
    expect(capped.timeoutMs).toBe(200);
  });

  test("unconfined, a timed-out command's children are ended too (process group)", async () => {
    const marker = `${30 + Math.floor(Math.random() * 1000) / 1000}`;
    const r = await sh(`sleep ${marker} & sleep ${marker}`, { mode: "none" }, 300);
    expect(r.timedOut).toBe(true);
    const left = Bun.spawnSync(["pgrep", "-f", `sleep ${marker}`])
      .stdout.toString()
      .trim();
    expect(left).toBe("");
  });

  test("a command that leaves a child behind returns when it exits; the child is ended", async () => {
    for (const mode of ["bwrap", "none"] as const) {
      const marker = `${50 + Math.floor(Math.random() * 1000) / 1000}`;
      const started = Date.now();
      const r = await sh(`sleep ${marker} & echo left`, { mode }, 10_000);
      expect(r.exitCode).toBe(0);
      expect(r.stdout.text()).toBe("left\n");
      expect(Date.now() - started).toBeLessThan(5000);
      expect(
        Bun.spawnSync(["pgrep", "-f", `sleep ${marker}`])
          .stdout.toString()
          .trim(),
      ).toBe("");
    }
  });

  test("output past output_kb keeps its head and tail and says how much was cut", async () => {
    const r = await sh("seq 1 100000", { outputBytes: 1000 });
    expect(r.exitCode).toBe(0);
    const text = r.stdout.text();
    expect(text.startsWith("1\n2\n3\n")).toBe(true);
    expect(text.trimEnd().endsWith("99999\n100000")).toBe(true);
    expect(r.stdout.total).toBe(588_895);
    expect(text).toContain(`[… ${588_895 - 1000} bytes cut; 588895 bytes in all …]`);
    expect(text.length).toBeLessThan(1100);
    // Both streams together keep to the cap, each showing its own start and end.
    const both = formatResult(await sh("seq 1 100000; seq 1 100000 >&2", { outputBytes: 1000 }));
    expect(both.length).toBeLessThan(1300);
    expect(both).toMatch(/--- stdout ---\n1\n2\n[\s\S]*\n100000\n\n--- stderr ---\n1\n2\n[\s\S]*\n100000\n$/);
    expect(both.match(/bytes cut; 588895 bytes in all/g)?.length).toBe(2);
  });

  test("exit status and signal are reported", async () => {
    expect(formatResult(await sh("exit 3"))).toStartWith("exit 3,");
    const killed = await sh("kill -KILL $$");
    expect(killed.exitCode === 137 || killed.signal === "SIGKILL").toBe(true);
  });

  test('mode = "none" runs unconfined, and only when set', async () => {
    const name = unique();
    try {
      const r = await sh(`touch /tmp/${name}; pwd`, { mode: "none" });
      expect(r.exitCode).toBe(0);
      expect(r.stdout.text().trim()).toBe(workspace);
      expect(existsSync(`/tmp/${name}`)).toBe(true);
    } finally {
      rmSync(`/tmp/${name}`, { force: true });
    }
  });

  test("without bwrap on the PATH the tools refuse, saying what to do; they never run unconfined", async () => {
    const name = unique();
    using empty = tempDir();
    const r = await runSandboxed(settings({ searchPath: empty.path }), "shell_run", {
      argv: ["bash", "-c", `touch /tmp/${name}`],
    });
    expect(r).toEqual({
      refused:
        'shell_run: bubblewrap (bwrap) is not installed; install the Debian package bubblewrap, or set [tools.sandbox] mode = "none" to run unconfined',
    });
    expect(existsSync(`/tmp/${name}`)).toBe(false);
  });

  test("a workspace that holds the data dir is refused: the sandbox would show the keys", async () => {
    for (const dataDir of [data.path, workspace]) {
      const r = await runSandboxed(settings({ workspace: data.path, dataDir }), "shell_run", {
        argv: ["cat", "secrets.json"],
      });
      expect(r).toEqual({
        refused: `shell_run: the workspace ${data.path} holds the data dir (keys, the log); set the first of [tools.files] roots to a folder that does not contain ${dataDir}`,
      });
    }
    const beside = await sh("true", { dataDir: data.path });
    expect(beside.exitCode).toBe(0);
  });

  test("a bwrap that cannot build its sandbox is a refusal naming bwrap's own complaint", async () => {
    using fake = tempDir();
    // A stand-in that fails the way bwrap does where user namespaces are not allowed.
    writeFileSync(
      join(fake.path, "bwrap"),
      "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n",
      { mode: 0o755 },
    );
    const r = await runSandboxed(settings({ searchPath: fake.path }), "code_run", { argv: ["true"] });
    expect("refused" in r && r.refused).toStartWith(
      "code_run: bubblewrap cannot build its sandbox here (bwrap: No permissions to creating new namespace)",
    );
    expect("refused" in r && r.refused).toEndWith('or set [tools.sandbox] mode = "none" to run unconfined');
  });
});
