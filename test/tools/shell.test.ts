/**
 * shell_run, shell_jobs and shell_kill through dist/homed, as the model uses them: a daemon
 * with a scripted model, the owner allowing shell_run and shell_kill, the real bubblewrap.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { poll } from "../harness/poll.ts";
import { toolTurn } from "./tool-turns.ts";

// Commands' output is untrusted unless the owner trusts the tool: this owner does, so one
// command's output does not turn the next allowed command into a question.
const ALLOW = `[approval]\nallow = ["shell_run", "shell_kill"]\n\n[trust]\ntools = ["shell_*"]\n`;
const unique = () => `homed-escape-${process.pid}-${Math.random().toString(36).slice(2)}`;

describe("shell plugin", () => {
  test("commands run confined to the workspace, in the background too, and jobs can be followed and ended", async () => {
    using dir = tempDir();
    await Bun.write(join(dir.path, "config.toml"), ALLOW);
    await using rig = await startAgentRig(dir.path, {
      plugin: false,
      env: { HOMED_WEB_TOKEN: "tok-should-never-leak-0123456789", CLOUD_SECRET: "cloud-should-never-leak" },
    });
    const tools = (await rig.status()).tools as { name: string; risk: string }[];
    const risk = Object.fromEntries(tools.map((t) => [t.name, t.risk]));
    expect([risk.shell_run, risk.shell_jobs, risk.shell_kill]).toEqual(["exec", "read", "exec"]);

    const name = unique();
    const first = await toolTurn(rig, [
      [
        {
          name: "shell_run",
          arguments: {
            command: `touch /tmp/${name} && echo hello > note.txt && pwd && env && cat ${dir.path}/secrets.json`,
          },
        },
      ],
      [{ name: "shell_run", arguments: { command: "sleep 30", timeout_ms: 300 } }],
    ]);
    expect(first.exitCode).toBe(0);
    const [run, slow] = first.results as [string, string];
    expect(run).toStartWith("exit 1,");
    expect(run).toContain("/workspace\n");
    expect(run).toContain(`${dir.path}/secrets.json: No such file or directory`);
    expect(run).not.toContain("never-leak");
    expect(run).not.toContain("HOMED_");
    expect(run).not.toContain("sk-test-secret-key");
    expect(existsSync(`/tmp/${name}`)).toBe(false);
    expect(readFileSync(join(dir.path, "workspace/note.txt"), "utf8")).toBe("hello\n");
    expect(slow).toStartWith("timed out after 300 ms and was killed");

    // A background job: started at once, its output readable while it runs, ended by shell_kill.
    const second = await toolTurn(rig, [
      [{ name: "shell_run", arguments: { command: "echo job-started; touch job-ready; sleep 60", background: true } }],
      [
        {
          name: "shell_run",
          arguments: { command: "while [ ! -e job-ready ]; do sleep 0.02; done", timeout_ms: 10_000 },
        },
      ],
      [{ name: "shell_jobs", arguments: {} }],
      [{ name: "shell_jobs", arguments: { id: "j1" } }],
      [{ name: "shell_kill", arguments: { id: "j1" } }],
      [{ name: "shell_jobs", arguments: {} }],
      [{ name: "shell_jobs", arguments: { id: "j9" } }],
    ]);
    const [started, , listed, shown, killed, after, missing] = second.results as string[];
    expect(started).toStartWith("started background job j1");
    expect(listed).toMatch(/^j1\trunning\t[\d.]+ s\techo job-started; touch job-ready; sleep 60$/m);
    expect(shown).toStartWith("j1: running");
    expect(shown).toContain("--- stdout (12 bytes) ---\njob-started\n");
    expect(killed).toMatch(/^j1 stopped \(SIGTERM\) after \d+ ms$/);
    expect(after).toMatch(/^j1\tstopped \(SIGTERM\)\t/m);
    expect(missing).toBe("shell_jobs: no job j9 (jobs: j1)");

    // Jobs end with the plugin: a job still running when the daemon stops is gone after it.
    const marker = `${70 + Math.floor(Math.random() * 1000) / 1000}`;
    const third = await toolTurn(rig, [
      [{ name: "shell_run", arguments: { command: `sleep ${marker}`, background: true } }],
    ]);
    expect(third.results[0]).toStartWith("started background job j2");
    const sleeping = () =>
      Bun.spawnSync(["pgrep", "-f", `sleep ${marker}`])
        .stdout.toString()
        .trim();
    expect(sleeping()).not.toBe("");
    await rig.daemon.stop();
    await poll(sleeping, (pids) => pids === "", { what: "the background job to end with the plugin", timeoutMs: 5000 });
  }, 60_000);

  test("by default shell_run is asked about: no runs nothing, yes runs it; shell_jobs (read) runs unasked", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    // A round whose every call is denied ends the turn: no further model call to script.
    rig.llm.script([{ toolCalls: [{ name: "shell_run", arguments: { command: "touch asked.txt" } }] }]);
    const declined = await rig.chat("touch it", { stdin: "n\n" });
    expect(declined.stderr).toContain("? allow shell_run");
    expect(declined.stderr).toContain("denied: the user declined shell_run");
    expect(existsSync(join(dir.path, "workspace/asked.txt"))).toBe(false);
    const approved = await toolTurn(
      rig,
      [[{ name: "shell_run", arguments: { command: "touch asked.txt" } }], [{ name: "shell_jobs", arguments: {} }]],
      { stdin: "y\n" },
    );
    expect(approved.results).toEqual([expect.stringMatching(/^exit 0, \d+ ms\n\(no output\)$/), "no background jobs"]);
    expect(approved.stderr.match(/\? allow/g)?.length).toBe(1);
    expect(existsSync(join(dir.path, "workspace/asked.txt"))).toBe(true);
  }, 60_000);

  test('without bwrap the tool refuses and runs nothing; mode = "none" runs unconfined only when set', async () => {
    using noBwrap = tempDir();
    const name = unique();
    {
      using dir = tempDir();
      await Bun.write(join(dir.path, "config.toml"), ALLOW);
      await using rig = await startAgentRig(dir.path, { plugin: false, env: { PATH: noBwrap.path } });
      const turn = await toolTurn(rig, [[{ name: "shell_run", arguments: { command: `touch /tmp/${name}` } }]]);
      expect(turn.results).toEqual([
        'shell_run: bubblewrap (bwrap) is not installed; install the Debian package bubblewrap, or set [tools.sandbox] mode = "none" to run unconfined',
      ]);
      expect(existsSync(`/tmp/${name}`)).toBe(false);
    }
    using dir = tempDir();
    await Bun.write(join(dir.path, "config.toml"), `${ALLOW}\n[tools.sandbox]\nmode = "none"\n`);
    await using rig = await startAgentRig(dir.path, { plugin: false, env: { PATH: `${noBwrap.path}:/usr/bin:/bin` } });
    try {
      const turn = await toolTurn(rig, [[{ name: "shell_run", arguments: { command: `touch /tmp/${name} && pwd` } }]]);
      expect(turn.results[0]).toStartWith("exit 0,");
      expect(turn.results[0]).toContain(`${dir.path}/workspace\n`);
      expect(existsSync(`/tmp/${name}`)).toBe(true);
    } finally {
      rmSync(`/tmp/${name}`, { force: true });
    }
  }, 60_000);
});
