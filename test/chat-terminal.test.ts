/**
 * `homed chat` at a real terminal (tmux): the interactive session a person types into, and the
 * one-shot forms around it (a message on stdin, flags after the message, --version). The daemon
 * is the compiled binary with the scripted fake model behind it.
 */
import { describe, expect, test } from "bun:test";
import { HOMED, run, tempDir } from "./harness/binary.ts";
import { startAgentRig } from "./harness/agent-daemon.ts";
import { startTmux } from "./harness/tmux.ts";

const TERM_ENV = { TERM: "xterm-256color", LANG: "C.UTF-8" };

describe("homed chat, interactive at a terminal", () => {
  test("streams a reply, asks an approval in place, Ctrl-C stops a turn on the daemon, Ctrl-D exits", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    await using t = await startTmux(dir.path, [HOMED, "chat", "-data", rig.data, "-conv", "tty"], TERM_ENV);
    await t.waitFor("conversation tty", "the session's greeting");
    await t.waitFor(/^>$/m, "the prompt");

    // Streaming: the first half of the reply is on screen while the model has not finished.
    rig.llm.script([{ text: "first half, then the rest of it", stall: true }]);
    await t.type("hello there");
    await t.press("Enter");
    await t.waitFor("first", "the reply's first chunk while the model stalls");
    expect(await t.screen()).not.toContain("[done;");
    rig.llm.resume();
    await t.waitFor(/first half, then the rest of it\n\[done; \d+ in \/ \d+ out tokens; conversation: 1 turn\]\n>$/);

    // An approval asked inline, answered y: the tool runs and the turn goes on.
    rig.llm.script([{ toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/x" } }] }, { text: "removed it" }]);
    await t.type("remove /tmp/x");
    await t.press("Enter");
    await t.waitFor('? allow danger_rm {"path":"/tmp/x"} [y/N]', "the approval question");
    await t.type("y");
    await t.press("Enter");
    await t.waitFor("← danger_rm [ok] removed /tmp/x", "the tool's result");
    await t.waitFor(/removed it\n\[done;.*conversation: 2 turns\]\n>$/);
    expect(rig.seen().filter((s) => s.tool === "danger_rm").length).toBe(1);

    // History: Up brings back the last message typed (the approval answer is not one).
    await t.press("Up");
    await t.waitFor(/> remove \/tmp\/x$/, "the last message back from history");
    await t.press("C-u");

    // Ctrl-C during a turn stops it on the daemon: "cancelled" is the daemon's own stop reason.
    rig.llm.script([{ text: "a long answer that never ends", stall: true }]);
    await t.type("talk for a while");
    await t.press("Enter");
    await t.waitFor("a long", "the stalled reply's first chunk");
    await t.press("C-c");
    await t.waitFor(/\[cancelled; .*conversation: 3 turns\]\n>$/, "the turn to end as cancelled");
    expect(await t.exited()).toEqual({ dead: false, status: null });

    // The session goes on after a stopped turn.
    rig.llm.script([{ text: "still here" }]);
    await t.type("are you there?");
    await t.press("Enter");
    await t.waitFor(/still here\n\[done;.*conversation: 4 turns\]\n>$/);

    // Ctrl-D at an empty prompt leaves, status 0.
    await t.press("C-d");
    expect(await t.waitExit("the session to exit")).toBe(0);
  });

  test("a second Ctrl-C during a turn exits, and the daemon stops the turn", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    await using t = await startTmux(dir.path, [HOMED, "chat", "-data", rig.data], TERM_ENV);
    await t.waitFor(/^>$/m, "the prompt");
    rig.llm.script([{ text: "on and on", stall: true }, { text: "next" }]);
    await t.type("go");
    await t.press("Enter");
    await t.waitFor(/^on/m, "the first chunk");
    await t.press("C-c");
    await t.waitFor("[cancelled;", "the cancelled turn");
    await t.press("C-c");
    expect(await t.waitExit("the session to exit on the second Ctrl-C")).toBe(0);
    // The cancelled turn is in the log as such; the daemon serves the next chat as usual.
    const r = await rig.chat("after");
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("next\n");
    expect(r.stderr).toContain("conversation: 2 turns");
  });

  test("two Ctrl-C at an idle prompt exit; one alone does not", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    await using t = await startTmux(dir.path, [HOMED, "chat", "-data", rig.data], TERM_ENV);
    await t.waitFor(/^>$/m, "the prompt");
    await t.press("C-c");
    await t.waitFor("(Ctrl-C again or Ctrl-D exits)");
    expect((await t.exited()).dead).toBe(false);
    await t.press("C-c");
    expect(await t.waitExit("the session to exit")).toBe(0);
  });
});

describe("homed chat, interactive: what can go wrong", () => {
  test("Ctrl-C at an approval question stops the turn and the tool does not run", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    await using t = await startTmux(dir.path, [HOMED, "chat", "-data", rig.data], TERM_ENV);
    await t.waitFor(/^>$/m, "the prompt");
    rig.llm.script([{ toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/y" } }] }, { text: "never" }]);
    await t.type("remove /tmp/y");
    await t.press("Enter");
    await t.waitFor("? allow danger_rm", "the approval question");
    await t.press("C-c");
    await t.waitFor(/\[cancelled;.*\]\n>$/, "the turn to end as cancelled");
    expect(rig.seen().filter((s) => s.tool === "danger_rm")).toEqual([]);
    expect(rig.llm.requests.length).toBe(1);
  });

  test("typing while a reply runs is not sent; the daemon going away ends the session with 69", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    await using t = await startTmux(dir.path, [HOMED, "chat", "-data", rig.data], TERM_ENV);
    await t.waitFor(/^>$/m, "the prompt");
    rig.llm.script([{ hang: true }]);
    await t.type("wait for it");
    await t.press("Enter");
    await rig.llm.received(1);
    await t.type("impatient");
    await t.press("Enter");
    await t.waitFor("[a reply is running: wait for it, or Ctrl-C to stop it]");
    rig.daemon.proc.kill("SIGKILL");
    await t.waitFor("homed: the daemon closed the connection", "the session to say the daemon is gone");
    expect(await t.waitExit()).toBe(69);
    expect(rig.llm.requests.length).toBe(1);
  });

  test("-json has no interactive form: refused with one line, exit 2", async () => {
    using dir = tempDir();
    await using t = await startTmux(dir.path, [HOMED, "chat", "-data", dir.path, "-json"], TERM_ENV);
    expect(await t.waitExit()).toBe(2);
    expect(await t.screen()).toStartWith(
      "homed: -json needs a message: the interactive session has no JSON form\n[exit 2]",
    );
  });
});

describe("homed chat, one message", () => {
  test("a message on stdin is sent when there is none in the arguments", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([{ text: "hi back" }]);
    const r = await run([HOMED, "chat", "-data", rig.data], { stdin: "hi from a pipe\n" });
    expect({ code: r.exitCode, out: r.stdout }).toEqual({ code: 0, out: "hi back\n" });
    const sent = JSON.stringify(rig.llm.requests[0]?.body.messages);
    expect(sent).toContain("hi from a pipe");
  });

  test("flags after the message are parsed, unknown ones refused with one line and exit 2", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([{ text: "ok" }]);
    const r = await run([HOMED, "chat", "-data", rig.data, "hello", "world", "-conv", "after", "-json"]);
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout);
    expect({ conv: out.conv, text: out.text }).toEqual({ conv: "after", text: "ok" });
    expect(JSON.stringify(rig.llm.requests[0]?.body.messages)).toContain("hello world");
    expect(JSON.stringify(rig.llm.requests[0]?.body.messages)).not.toContain("-conv");

    const bad = await run([HOMED, "chat", "-data", rig.data, "hello", "-bogus"]);
    expect({ code: bad.exitCode, out: bad.stdout }).toEqual({ code: 2, out: "" });
    expect(bad.stderr).toStartWith("homed: flag provided but not defined: -bogus\n");
    // After --, a dash is part of the message.
    rig.llm.script([{ text: "minus" }]);
    const dash = await run([HOMED, "chat", "-data", rig.data, "--", "what", "is", "-1"]);
    expect(dash.exitCode).toBe(0);
    expect(JSON.stringify(rig.llm.requests[1]?.body.messages)).toContain("what is -1");
    expect(rig.llm.requests.length).toBe(2);
  });

  test("--version and -version print the version", async () => {
    for (const flag of ["--version", "-version"]) {
      const r = await run([HOMED, flag]);
      expect({ code: r.exitCode, err: r.stderr }).toEqual({ code: 0, err: "" });
      expect(r.stdout).toMatch(/^homed \d+\.\d+\.\d+ \(bun [\d.]+, linux\/x64\)\n$/);
    }
  });
});
