/**
 * `homed chat` re-attaches to a turn the web UI started in the same conversation: it is shown
 * what the reply said so far, asked the open approval question (the first answer from either
 * client counts, and the other is told), and follows the turn to its end.
 */
import { describe, expect, test } from "bun:test";
import { HOMED, tempDir } from "./harness/binary.ts";
import { startAgentRig } from "./harness/agent-daemon.ts";
import { webUrlOf } from "./harness/daemon.ts";
import { poll } from "./harness/poll.ts";
import { webTurn } from "./harness/web-turn.ts";
import { startTmux } from "./harness/tmux.ts";

const TERM_ENV = { TERM: "xterm-256color", LANG: "C.UTF-8" };

describe("homed chat re-attaches to a web turn", () => {
  test("shows the reply so far, answers the open approval, and the web is told", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    const url = await webUrlOf(rig.daemon);

    // The web UI's turn streams a first sentence, then waits for approval of a tool call.
    rig.llm.script([
      { text: "Let me look.", toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/web" } }] },
      { text: "Removed it, as the terminal allowed." },
    ]);
    const web = await webTurn(url, "shared", "remove /tmp/web");
    await poll(
      async () => web.events.some((e) => e.type === "approval"),
      (x) => x,
      { timeoutMs: 15_000, intervalMs: 50, what: "the web turn's approval question" },
    );

    await using t = await startTmux(dir.path, [HOMED, "chat", "-data", rig.data, "-conv", "shared"], TERM_ENV);
    await t.waitFor("[a reply is running in this conversation (started elsewhere)", "the re-attach notice");
    await t.waitFor("Let me look.", "what the reply said before the terminal came");
    await t.waitFor('? allow danger_rm {"path":"/tmp/web"} [y/N]', "the open question, asked in the terminal");
    await t.type("y");
    await t.press("Enter");
    await t.waitFor("← danger_rm [ok] removed /tmp/web", "the tool's result");
    await t.waitFor(/Removed it, as the terminal allowed\.\n\[done;.*conversation: 1 turn\]\n>$/, "the turn's end");
    await web.done;
    expect(web.events).toContainEqual(expect.objectContaining({ type: "approval-answered", approved: true }));
    expect(web.events.at(-1)).toMatchObject({ type: "done" });
    expect(rig.seen().filter((s) => s.tool === "danger_rm").length).toBe(1);
    await t.press("C-d");
    expect(await t.waitExit("the session to exit")).toBe(0);

    // Answered in the web first: the terminal's question is withdrawn, and nothing runs twice.
    rig.llm.script([
      { toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/again" } }] },
      { text: "Done from the web." },
    ]);
    const second = await webTurn(url, "shared", "and /tmp/again");
    using tmuxDir = tempDir();
    await using t2 = await startTmux(tmuxDir.path, [HOMED, "chat", "-data", rig.data, "-conv", "shared"], TERM_ENV);
    await t2.waitFor('? allow danger_rm {"path":"/tmp/again"} [y/N]', "the question in the terminal");
    const callId = (second.events.find((e) => e.type === "approval") as { callId: string }).callId;
    const ok = await fetch(`${url}api/approve`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-homed": "1" },
      body: JSON.stringify({ stream: second.stream, callId, approved: true }),
    });
    expect(ok.status).toBe(200);
    await t2.waitFor("[answered elsewhere: approved]", "the withdrawn question");
    await t2.waitFor(/Done from the web\.\n\[done;.*conversation: 2 turns\]\n>$/, "the turn's end in the terminal");
    await second.done;
    expect(rig.seen().filter((s) => s.tool === "danger_rm").length).toBe(2);

    // With nothing running, the session starts at its prompt as before.
    await t2.press("C-d");
    expect(await t2.waitExit("the second session to exit")).toBe(0);
  }, 90_000);
});
