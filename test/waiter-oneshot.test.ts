/**
 * `waiter -p TEXT`, the one-shot for scripts: dist/waiter against dist/homed with the scripted
 * fake model. stdout is exactly the reply, the exit status says whether the turn finished, and
 * every failure is one plain line on stderr.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { callDaemon } from "../src/client/control-client.ts";
import { ConversationSummary } from "../src/protocol/channel.ts";
import { WAITER, run, tempDir } from "./harness/binary.ts";
import { startAgentRig } from "./harness/agent-daemon.ts";
import { startTmux } from "./harness/tmux.ts";

describe("waiter -p", () => {
  test("prints the reply and exits 0; -conv continues a conversation, which declares waiter's scene", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([{ text: "Paris, on the Seine." }, { text: "About two million." }]);
    const a = await run([WAITER, "-data", rig.data, "-p", "capital of France?", "-conv", "script"]);
    expect(a).toEqual({ exitCode: 0, stdout: "Paris, on the Seine.\n", stderr: "" });
    const b = await run([WAITER, "-data", rig.data, "-conv", "script", "-p", "how many live there?"]);
    expect(b).toEqual({ exitCode: 0, stdout: "About two million.\n", stderr: "" });
    // The second turn saw the first: the model was sent the conversation so far.
    expect(JSON.stringify(rig.llm.requests[1]?.body)).toContain("Paris, on the Seine.");
    const list = await callDaemon(rig.daemon.socket, "conversations.list", {}, v.array(ConversationSummary));
    expect(list.find((c) => c.id === "script")).toMatchObject({
      turns: 2,
      channel: "cli",
      scene: "chan:cli/peer:waiter",
    });
  });

  test("$HOMED_DATA finds the daemon; -json prints the turn", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([{ text: "from the environment" }]);
    const r = await run([WAITER, "-p", "hi", "-json"], { env: { HOMED_DATA: rig.data } });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ text: "from the environment", stopReason: "done", conv: "cli" });
  });

  test("a failed turn exits 1 with one line; a tool needing approval is denied without a terminal", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    rig.llm.script([{ status: 400, body: { error: { message: "bad request from the test" } } }]);
    const bad = await run([WAITER, "-data", rig.data, "-p", "fail please"]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toMatch(/^waiter: the turn ended with error: .*\n$/);

    rig.llm.script([{ toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/x" } }] }]);
    const denied = await run([WAITER, "-data", rig.data, "-p", "remove /tmp/x"]);
    expect(denied.exitCode).toBe(1);
    expect(denied.stderr).toContain("? allow danger_rm");
    expect(denied.stderr).toContain("no answer: denied");
    expect(denied.stderr).toEndWith("waiter: the turn ended with denied\n");
    expect(rig.seen().filter((s) => s.tool === "danger_rm")).toHaveLength(0);
  });

  test("at a terminal an approval is asked on it, and y runs the tool", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    rig.llm.script([
      { toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/t" } }] },
      { text: "removed, as asked" },
    ]);
    await using t = await startTmux(dir.path, [WAITER, "-data", rig.data, "-p", "remove /tmp/t"], {
      TERM: "xterm-256color",
    });
    await t.waitFor('? allow danger_rm {"path":"/tmp/t"} [y/N]', "the question on the terminal");
    await t.type("y");
    await t.press("Enter");
    expect(await t.waitExit()).toBe(0);
    expect(await t.screen()).toMatch(/← danger_rm \[ok\] removed \/tmp\/t\nremoved, as asked\n\[exit 0\]/);
    expect(rig.seen().filter((s) => s.tool === "danger_rm")).toHaveLength(1);
  });

  test("no daemon: exit 69 and one line naming the data dir", async () => {
    using dir = tempDir();
    const r = await run([WAITER, "-data", dir.path, "-p", "anyone there?"]);
    expect(r).toEqual({
      exitCode: 69,
      stdout: "",
      stderr: `waiter: homed is not running on ${dir.path} (no control socket at ${dir.path}/homed.sock)\n`,
    });
  });

  test("usage: an empty question, a bad -connect URL, version", async () => {
    const empty = await run([WAITER, "-p", " "]);
    expect(empty).toEqual({ exitCode: 2, stdout: "", stderr: "waiter: -p needs a question\n" });
    const url = await run([WAITER, "-connect", "ftp://x", "-p", "hi"]);
    expect(url).toEqual({
      exitCode: 2,
      stdout: "",
      stderr: 'waiter: -connect needs an http:// or https:// URL, not "ftp://x"\n',
    });
    const ver = await run([WAITER, "version"]);
    expect(ver.stdout).toMatch(/^waiter \S+ \(linux\/x64\)\n$/);
  });
});
