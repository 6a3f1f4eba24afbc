/**
 * `waiter -connect URL`: waiter on a remote homed's web listener (the web plugin's HTTP API,
 * the same one the web UI uses). The daemon listens beyond loopback, so the login token from
 * DATA/web-token is required; waiter finds it with -data, $HOMED_TOKEN or -token-file. The
 * one-shot and the full-screen chat (tmux) both run over it, approvals and Stop included.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { WAITER, run, tempDir } from "./harness/binary.ts";
import { startAgentRig } from "./harness/agent-daemon.ts";
import { webUrlOf } from "./harness/daemon.ts";
import { startTmux } from "./harness/tmux.ts";

const TERM_ENV = { TERM: "xterm-256color", LANG: "C.UTF-8" };

describe("waiter -connect", () => {
  test("the token from -data, $HOMED_TOKEN or -token-file; none or a wrong one is refused in one line", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(join(dir.path), { plugin: false, env: { HOMED_LISTEN: "0.0.0.0:0" } });
    const url = await webUrlOf(rig.daemon);
    const token = readFileSync(join(rig.data, "web-token"), "utf8").trim();
    using elsewhere = tempDir();

    const none = await run([WAITER, "-connect", url, "-p", "hi"]);
    expect(none.exitCode).toBe(77);
    expect(none.stderr).toBe(
      `waiter: ${url.replace(/\/$/, "")} wants its login token: give it with -token-file FILE or $HOMED_TOKEN\n`,
    );
    const wrong = await run([WAITER, "-connect", url, "-p", "hi"], { env: { HOMED_TOKEN: "not-the-token-at-all" } });
    expect(wrong.exitCode).toBe(77);
    expect(wrong.stderr).toContain("the one given is wrong");
    expect(rig.llm.requests).toHaveLength(0);

    rig.llm.script([{ text: "via -data" }, { text: "via the environment" }, { text: "via a file" }]);
    const viaData = await run([WAITER, "-connect", url, "-data", rig.data, "-p", "one", "-conv", "remote"]);
    expect(viaData).toEqual({ exitCode: 0, stdout: "via -data\n", stderr: "" });
    const viaEnv = await run([WAITER, "-connect", url, "-p", "two", "-conv", "remote"], {
      env: { HOMED_TOKEN: token },
    });
    expect(viaEnv).toEqual({ exitCode: 0, stdout: "via the environment\n", stderr: "" });
    const file = join(elsewhere.path, "token");
    writeFileSync(file, `${token}\n`);
    const viaFile = await run([
      WAITER,
      "-connect",
      url,
      "-token-file",
      file,
      "-p",
      "three",
      "-conv",
      "remote",
      "-json",
    ]);
    expect(viaFile.exitCode).toBe(0);
    expect(JSON.parse(viaFile.stdout)).toMatchObject({ text: "via a file", conv: "remote" });
    expect(JSON.parse(viaFile.stdout).conversation.turns).toBe(3);

    const st = await run([WAITER, "-connect", url, "-data", rig.data, "-json", "status"]);
    expect(st.exitCode).toBe(0);
    expect(JSON.parse(st.stdout).pid).toBe(rig.daemon.proc.pid);

    const gone = await run([WAITER, "-connect", "http://127.0.0.1:9", "-p", "hi"]);
    expect(gone.exitCode).toBe(69);
    expect(gone.stderr).toStartWith("waiter: cannot reach homed at http://127.0.0.1:9: ");
    expect(gone.stderr.trim().split("\n")).toHaveLength(1);
  });

  test("the full-screen chat over the web API: streaming, a tool card answered always, Stop", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { env: { HOMED_LISTEN: "0.0.0.0:0" } });
    const url = await webUrlOf(rig.daemon);
    const token = readFileSync(join(rig.data, "web-token"), "utf8").trim();
    await using t = await startTmux(dir.path, [WAITER, "-connect", url, "-conv", "far"], {
      ...TERM_ENV,
      HOMED_TOKEN: token,
    });
    let s = await t.waitFor("● connected", "the title bar once connected");
    expect(s).toContain(`waiter · ${url.replace(/\/$/, "")} · far`);

    rig.llm.script([
      { toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/r" } }] },
      { text: "done remotely", stall: true },
    ]);
    await t.type("remove /tmp/r");
    await t.press("Enter");
    s = await t.waitFor("? allow this call — y yes · n no · a always", "the approval, asked over SSE");
    // a = always: approved, and the tool joins approval_allow through /api/settings/allow-tool.
    await t.type("a");
    await t.waitFor("✓ approved, always from now on", "always on the card");
    await t.waitFor("← ok: removed /tmp/r", "the result on the card");
    expect(JSON.parse(readFileSync(join(rig.data, "settings.json"), "utf8")).approval_allow).toContain("danger_rm");
    await t.waitFor(/│done/, "the reply's first chunk while the model stalls");
    rig.llm.resume();
    s = await t.waitFor(/done remotely[\s\S]*\[done; .*conversation: 1 turn\]/);
    expect(rig.seen().filter((x) => x.tool === "danger_rm")).toHaveLength(1);
    // One card, one reply: the turn is followed once (the opening load does not race the first message).
    expect(s).toContain("› remove /tmp/r");
    expect(s.match(/┌─ danger_rm/g)).toHaveLength(1);
    expect(s.match(/done remotely/g)).toHaveLength(1);

    rig.llm.script([{ text: "never ending", stall: true }]);
    await t.type("go on");
    await t.press("Enter");
    await t.waitFor(/│nev/, "the stalled reply");
    await t.press("Escape");
    s = await t.waitFor(/\[cancelled; .*conversation: 2 turns\]/, "Stop over /api/cancel");
    await t.press("C-d");
    expect(await t.waitExit()).toBe(0);
  }, 60_000);
});
