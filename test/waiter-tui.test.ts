/**
 * waiter's full-screen chat at a real terminal (tmux): dist/waiter against dist/homed with the
 * scripted fake model — the conversation list, a streamed reply, a tool card with its approval
 * answered y / n / a (always), Stop with Esc and Ctrl-C, the plugin table, and the daemon
 * restarting under it (the TUI says so, reconnects and goes on).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import * as v from "valibot";
import { callDaemon } from "../src/client/control-client.ts";
import { ConversationSummary } from "../src/protocol/channel.ts";
import { WAITER, tempDir } from "./harness/binary.ts";
import { startAgentRig } from "./harness/agent-daemon.ts";
import { poll } from "./harness/poll.ts";
import { startTmux } from "./harness/tmux.ts";

const TERM_ENV = { TERM: "xterm-256color", LANG: "C.UTF-8" };
const SHOW = process.env.WAITER_SHOW_SCREENS === "1";
const show = (what: string, screen: string) => void (SHOW && console.log(`--- ${what}\n${screen}\n---`));

describe("waiter, the full-screen chat", () => {
  test("streams a reply, cards a tool call, asks y/n/always, stops with Esc and Ctrl-C, lists conversations and plugins", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    // A conversation from another channel is in the list before waiter starts.
    rig.llm.script([{ text: "earlier answer" }]);
    expect((await rig.chat("an earlier question", { conv: "older" })).exitCode).toBe(0);

    await using t = await startTmux(dir.path, [WAITER, "-data", rig.data, "-conv", "tty"], TERM_ENV);
    let s = await t.waitFor("● connected", "the title bar once connected");
    expect(s).toContain("Conversations");
    expect(s).toContain("an earlier question");
    expect(s).toMatch(/plugins \d+\/\d+ up/);

    // Streaming: the first chunk is on screen while the model stalls.
    rig.llm.script([{ text: "first half, then the rest of it", stall: true }]);
    await t.type("hello there");
    await t.press("Enter");
    s = await t.waitFor("replying… Esc or Ctrl-C stops it", "the running hint");
    await t.waitFor(/│first/, "the reply's first chunk while the model stalls");
    expect(await t.screen()).not.toContain("[done;");
    rig.llm.resume();
    s = await t.waitFor(
      /first half, then the rest of it[\s\S]*\[done; \d+ in \/ \d+ out tokens; conversation: 1 turn\]/,
    );
    show("a streamed reply", s);

    // A tool call asks: the card shows the question, y approves, the result lands on the card.
    rig.llm.script([{ toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/x" } }] }, { text: "removed it" }]);
    await t.type("remove /tmp/x");
    await t.press("Enter");
    // The card's question comes with the stream's approval event and the hint line's with the
    // approval question, two draws apart (a screen caught between them still says "replying…"):
    // wait for both.
    s = await t.waitFor(
      /\? allow this call — y yes · n no · a always[\s\S]*allow danger_rm\? y yes · n no · a always/,
      "the approval on the card and in the hint line",
    );
    expect(s).toContain("┌─ danger_rm");
    expect(s).toContain('{"path":"/tmp/x"}');
    expect(s).toContain("allow danger_rm? y yes · n no · a always");
    show("an approval asked", s);
    await t.type("y");
    s = await t.waitFor("← ok: removed /tmp/x", "the tool's result on its card");
    await t.waitFor(/removed it[\s\S]*conversation: 2 turns/);
    expect(rig.seen().filter((x) => x.tool === "danger_rm").length).toBe(1);

    // n denies: the tool does not run.
    // A round whose every call is denied ends the turn.
    rig.llm.script([{ toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/y" } }] }]);
    await t.type("remove /tmp/y");
    await t.press("Enter");
    await t.waitFor("? allow this call", "the second approval");
    await t.type("n");
    await t.waitFor("✗ denied", "the denial on the card");
    s = await t.waitFor(/denied: the user declined danger_rm[\s\S]*conversation: 3 turns/);
    expect(rig.seen().filter((x) => x.tool === "danger_rm").length).toBe(1);

    // a = always: approved now, and the tool is in approval_allow, so the next call does not ask.
    rig.llm.script([{ toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/z" } }] }, { text: "gone" }]);
    await t.type("remove /tmp/z");
    await t.press("Enter");
    await t.waitFor("? allow this call", "the third approval");
    await t.type("a");
    s = await t.waitFor("✓ approved, always from now on", "always on the card");
    await t.waitFor(/gone[\s\S]*conversation: 4 turns/);
    rig.llm.script([{ toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/w" } }] }, { text: "gone too" }]);
    await t.type("and /tmp/w");
    await t.press("Enter");
    s = await t.waitFor(/gone too[\s\S]*conversation: 5 turns/);
    expect(s).toContain("← ok: removed /tmp/w");
    expect(s.match(/\? allow this call/g) ?? []).toHaveLength(0);
    expect(rig.seen().filter((x) => x.tool === "danger_rm").length).toBe(3);
    show("after always", s);

    // Esc stops a running reply on the daemon ("cancelled" is the daemon's own stop reason).
    rig.llm.script([{ text: "a long answer that never ends", stall: true }]);
    await t.type("talk for a while");
    await t.press("Enter");
    await t.waitFor(/│a long/, "the stalled reply's first chunk");
    await t.press("Escape");
    await t.waitFor(/\[cancelled; .*conversation: 6 turns\]/, "the turn to end as cancelled");
    // And Ctrl-C does the same.
    rig.llm.script([{ text: "another endless one", stall: true }]);
    await t.type("again");
    await t.press("Enter");
    await t.waitFor(/│another/, "the second stalled reply");
    await t.press("C-c");
    s = await t.waitFor(/\[cancelled; .*conversation: 7 turns\]/, "Ctrl-C to stop it too");
    expect(await t.exited()).toEqual({ dead: false, status: null });

    // PgUp scrolls back to the start (and stops there), PgDn returns to the newest lines.
    expect(await t.screen()).not.toContain("› hello there");
    await t.press("PPage", "PPage", "PPage", "PPage");
    // Waited for as a whole screen: a capture taken while the terminal is still being redrawn
    // can hold the new top lines and the old bottom ones (seen once under load).
    s = await t.waitFor(
      /^(?![\s\S]*conversation: 7 turns)[\s\S]*› hello there/,
      "the conversation's start after PgUp, without the newest lines",
    );
    expect(s).not.toContain("conversation: 7 turns");
    await t.press("NPage");
    await t.press("NPage");
    await t.press("NPage");
    await t.waitFor("conversation: 7 turns", "the newest lines after PgDn");

    // A pasted paragraph is one message (bracketed paste), not one per line.
    rig.llm.script([{ text: "got both lines" }]);
    await t.paste("first pasted line\nsecond pasted line");
    await t.waitFor(/^> first pasted line↵second pasted line$/m, "the paste in the input line, newline and all");
    await t.press("Enter");
    s = await t.waitFor(
      /› first pasted line\n[ │]* {2}second pasted line[\s\S]*got both lines[\s\S]*conversation: 8 turns/,
    );
    const sent = JSON.stringify(rig.llm.requests.at(-1)?.body);
    expect(sent).toContain("first pasted line\\nsecond pasted line");

    // The plugin table, and back.
    await t.press("C-p");
    // The whole table: a capture taken while it is being drawn has only its first rows.
    s = await t.waitFor(
      /Plugins \(Ctrl-P back to the conversation\)[\s\S]*│agent\s+ready[\s\S]*│cli +listening/,
      "the whole plugin table",
    );
    expect(s).toMatch(/│agent\s+ready\s+\d+/);
    // The channels under it: this waiter is the one client on the cli channel.
    expect(s).toMatch(/│cli +listening +via control socket: 1 connected \(waiter 1\) · \d+ conversations?, la/);
    show("the plugin table", s);
    await t.press("C-p");

    // The list: Tab, Up/Down, Enter opens the other conversation with its transcript.
    await t.press("Tab");
    await t.waitFor("↑/↓ choose · Enter opens", "the list's hint");
    await t.press("Down");
    await t.press("Enter");
    s = await t.waitFor("earlier answer", "the older conversation's transcript");
    expect(s).toContain("› an earlier question");
    expect(s).toContain("· older");
    show("the other conversation", s);

    // Ctrl-D at an empty input quits, status 0, and the terminal is back to the shell.
    await t.press("C-d");
    expect(await t.waitExit("waiter to exit")).toBe(0);

    // The conversation waiter started declared its scene and the cli channel.
    const list = await callDaemon(rig.daemon.socket, "conversations.list", {}, v.array(ConversationSummary));
    expect(list.find((c) => c.id === "tty")).toMatchObject({ channel: "cli", scene: "chan:cli/peer:waiter", turns: 8 });
    expect(list.find((c) => c.id === "older")?.scene).toBe("chan:cli/peer:terminal"); // homed chat started it
  }, 90_000);

  test("a terminal closed under it (hung up, its pty gone) ends the waiter instead of leaving it spinning", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    await using t = await startTmux(dir.path, [WAITER, "-data", rig.data, "-conv", "hangup"], TERM_ENV);
    await t.waitFor("● connected", "the title bar once connected");
    const pgrep = Bun.spawnSync(["pgrep", "-f", "--", `-data ${rig.data} -conv hangup`], { stdout: "pipe" });
    const pids = new TextDecoder().decode(pgrep.stdout).trim().split("\n").filter(Boolean).map(Number);
    expect(pids.length).toBeGreaterThan(0);
    const alive = () => pids.filter((pid) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readStatus(pid)));
    // The whole terminal goes away, as when its window is closed.
    await t[Symbol.asyncDispose]();
    try {
      await poll(alive, (left) => left.length === 0, {
        what: "the waiter to exit once its terminal is gone",
        timeoutMs: 5000,
      });
    } finally {
      for (const pid of alive()) process.kill(pid, "SIGKILL");
    }
  }, 30_000);
});

function readStatus(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return "State: Z (gone)";
  }
}
