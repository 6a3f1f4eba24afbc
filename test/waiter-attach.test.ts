/**
 * waiter opens a conversation whose reply is running elsewhere (the web UI): it shows what the
 * reply said so far, puts the open approval on the tool's card, and follows the turn to its end.
 * Sitting idle, it notices a reply the web starts later; a question the web answers first is
 * marked so on the card.
 */
import { describe, expect, test } from "bun:test";
import { WAITER, tempDir } from "./harness/binary.ts";
import { startAgentRig } from "./harness/agent-daemon.ts";
import { webUrlOf } from "./harness/daemon.ts";
import { poll } from "./harness/poll.ts";
import { webTurn } from "./harness/web-turn.ts";
import { startTmux } from "./harness/tmux.ts";

const TERM_ENV = { TERM: "xterm-256color", LANG: "C.UTF-8" };
const asked = (events: Record<string, unknown>[]) =>
  poll(
    async () => events.some((e) => e.type === "approval"),
    (x) => x,
    { timeoutMs: 15_000, intervalMs: 50, what: "the web turn's approval question" },
  );

describe("waiter follows a reply started in the web UI", () => {
  test("answers its open approval on the card; an answer from the web withdraws the question", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    const url = await webUrlOf(rig.daemon);
    rig.llm.script([
      { text: "Let me look.", toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/web" } }] },
      { text: "Removed it, as the terminal allowed." },
    ]);
    const web = await webTurn(url, "shared", "remove /tmp/web");
    await asked(web.events);

    await using t = await startTmux(dir.path, [WAITER, "-data", rig.data, "-conv", "shared"], TERM_ENV);
    let s = await t.waitFor("? allow this call — y yes · n no · a always", "the open question on the card");
    expect(s).toContain("Let me look.");
    expect(s).toContain('{"path":"/tmp/web"}');
    await t.type("y");
    await t.waitFor("← ok: removed /tmp/web", "the tool's result");
    await t.waitFor(/Removed it, as the terminal allowed\.[\s\S]*conversation: 1 turn\]/, "the turn's end");
    await web.done;
    expect(web.events).toContainEqual(expect.objectContaining({ type: "approval-answered", approved: true }));
    expect(rig.seen().filter((x) => x.tool === "danger_rm")).toHaveLength(1);

    // The next reply is started in the web while waiter sits idle in the same conversation:
    // waiter notices it (it asks every 2 s) and follows it.
    rig.llm.script([
      { toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/again" } }] },
      { text: "Done from the web." },
    ]);
    const second = await webTurn(url, "shared", "and /tmp/again");
    await asked(second.events);
    s = await t.waitFor(/\/tmp\/again[\s\S]*\? allow this call/, "the second question on its card");
    const callId = (second.events.find((e) => e.type === "approval") as { callId: string }).callId;
    const ok = await fetch(`${url}api/approve`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-homed": "1" },
      body: JSON.stringify({ stream: second.stream, callId, approved: true }),
    });
    expect(ok.status).toBe(200);
    s = await t.waitFor("answered elsewhere: approved", "the withdrawn question");
    await t.waitFor(/Done from the web\.[\s\S]*conversation: 2 turns\]/, "the turn's end in waiter");
    await second.done;
    expect(await t.screen()).toMatch(/\n> *$/);
    expect(rig.seen().filter((x) => x.tool === "danger_rm")).toHaveLength(2);
    await t.press("C-d");
    expect(await t.waitExit()).toBe(0);
  }, 60_000);
});
