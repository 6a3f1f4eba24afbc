/**
 * agent_spawn through dist/homed with a scripted model: the child's turn is the next model
 * request after the parent's call, so what it was offered and sent is in the fake LLM's record
 * of requests; its events are in the log under `<parent conv>/agent:<id>`.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import type { RecordedRequest } from "../harness/fake-llm.ts";
import { poll } from "../harness/poll.ts";

const toolNames = (r: RecordedRequest) =>
  ((r.body.tools as { function: { name: string } }[] | undefined) ?? []).map((t) => t.function.name).sort();
const messages = (r: RecordedRequest) => r.body.messages as { role: string; content: string | null }[];

function config(dir: string, extra = "") {
  writeFileSync(join(dir, "config.toml"), `[approval]\nallow = ["agent_spawn"]\n\n${extra}`);
}

function query<T>(data: string, sql: string): T[] {
  const db = new Database(join(data, "homed.db"), { readonly: true });
  try {
    return db.query<T, []>(sql).all();
  } finally {
    db.close();
  }
}

describe("agent_spawn", () => {
  test("the child starts from the task alone, is offered only the tools it was given, and its answer is the result", async () => {
    using dir = tempDir();
    config(dir.path);
    await using rig = await startAgentRig(dir.path);
    rig.llm.script([{ text: "Noted." }]);
    await rig.chat("my secret word is pelican");

    rig.llm.script([
      { toolCalls: [{ name: "agent_spawn", arguments: { task: "Echo the word hello", tools: ["echo_*"] } }] },
      { toolCalls: [{ name: "echo_text", arguments: { text: "hello" } }] },
      { text: "The echo said: hello" },
      { text: "Done: hello" },
    ]);
    const before = rig.llm.requests.length;
    const r = await rig.chat("have a sub-agent echo hello");
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain("← agent_spawn [ok] The echo said: hello");
    expect(r.stdout).toContain("Done: hello");

    const [parent, child, childAgain, parentAgain] = rig.llm.requests.slice(before);
    // The parent's calls carry the standing offer (src/agent/tool-offer.ts); a call to a tool it
    // was not carried passes the same gate, and agent_spawn is allowed here.
    expect(toolNames(parent!)).not.toContain("echo_text");
    expect(toolNames(child!)).toEqual(["echo_text"]);
    expect(toolNames(childAgain!)).toEqual(["echo_text"]);
    // Fresh context: the task, no history and no quote of the parent conversation.
    const childUser = messages(child!).filter((m) => m.role === "user");
    expect(childUser.map((m) => m.content)).toEqual(["Echo the word hello"]);
    expect(JSON.stringify(messages(child!))).not.toContain("pelican");
    expect(JSON.stringify(messages(parent!))).toContain("pelican");
    expect(messages(parentAgain!).find((m) => m.role === "tool")?.content).toBe("The echo said: hello");
    expect(rig.seen().filter((s) => s.tool === "echo_text")).toEqual([{ tool: "echo_text", args: { text: "hello" } }]);

    // The child's turn is logged in its own conversation, derived from the parent's.
    const convs = query<{ conv: string; kind: string }>(
      dir.path,
      "SELECT conv, kind FROM events WHERE conv LIKE 'cli/agent:%' ORDER BY id",
    );
    expect(new Set(convs.map((c) => c.conv)).size).toBe(1);
    expect(convs.map((c) => c.kind)).toContain("tool-call");
  }, 60_000);

  test("depth: a child below max_depth may spawn, the grandchild at the limit is not offered agent_spawn and its call is refused", async () => {
    using dir = tempDir();
    config(dir.path, "[tools.agent]\nmax_depth = 2\nmax_iterations = 3\n");
    await using rig = await startAgentRig(dir.path);
    rig.llm.script([
      { toolCalls: [{ name: "agent_spawn", arguments: { task: "level one", tools: ["echo_*", "agent_spawn"] } }] },
      { toolCalls: [{ name: "agent_spawn", arguments: { task: "level two", tools: ["*"] } }] },
      { toolCalls: [{ name: "agent_spawn", arguments: { task: "level three", tools: ["*"] } }] },
      { text: "deep" },
      { text: "mid" },
      { text: "top" },
    ]);
    const before = rig.llm.requests.length;
    const r = await rig.chat("nest: hand the task to a sub-agent");
    expect(r.stdout).toContain("top");
    const [top, one, two, twoAgain, oneAgain] = rig.llm.requests.slice(before);
    // The person's turn names agent_spawn among the tools it can call by name (the system prompt).
    expect(JSON.stringify(top?.body.messages)).toContain("\\nagent_spawn: ");
    expect(toolNames(one!)).toContain("agent_spawn");
    expect(toolNames(one!)).toContain("echo_text");
    expect(toolNames(two!)).not.toContain("agent_spawn");
    expect(toolNames(two!)).toContain("echo_text");
    expect(messages(twoAgain!).find((m) => m.role === "tool")?.content).toStartWith(
      "error: agent_spawn is not one of the tools this turn may use",
    );
    expect(messages(oneAgain!).find((m) => m.role === "tool")?.content).toBe("deep");
    // Three turns below the person's: one child, one grandchild, each in its own conversation.
    const convs = query<{ conv: string }>(dir.path, "SELECT DISTINCT conv FROM turns WHERE conv LIKE 'cli/agent:%'");
    expect(convs.map((c) => c.conv.split("/agent:").length - 1).sort()).toEqual([1, 2]);
  }, 60_000);

  test("a child may be given only the parent's tools, and its own budget of model calls holds", async () => {
    using dir = tempDir();
    config(dir.path, "[tools.agent]\nmax_iterations = 2\n");
    await using rig = await startAgentRig(dir.path);
    rig.llm.script([
      { toolCalls: [{ name: "agent_spawn", arguments: { task: "x", tools: ["sudo_*"] } }] },
      { toolCalls: [{ name: "agent_spawn", arguments: { task: "loop", tools: ["echo_text", "agent_spawn"] } }] },
      { toolCalls: [{ name: "agent_spawn", arguments: { task: "deeper", tools: ["shell_exec"] } }] },
      { toolCalls: [{ name: "echo_text", arguments: { text: "2" } }] },
      { text: "gave up" },
    ]);
    const before = rig.llm.requests.length;
    const r = await rig.chat("try");
    expect(r.stdout).toContain("gave up");
    const reqs = rig.llm.requests.slice(before);
    expect(reqs.length).toBe(5);
    const lastTool = (i: number) =>
      messages(reqs[i]!)
        .filter((m) => m.role === "tool")
        .at(-1)?.content;
    expect(lastTool(1)).toStartWith("error: sudo_* matches none of the tools you may give (");
    // The child has echo_text and agent_spawn: shell_exec, which the person's turn has, is not its to give.
    expect(toolNames(reqs[2]!)).toEqual(["agent_spawn", "echo_text"]);
    expect(lastTool(3)).toBe("error: shell_exec matches none of the tools you may give (agent_spawn, echo_text)");
    // Two model calls for the child, then its limit; the parent reads why it stopped.
    expect(lastTool(4)).toContain("stopped: iteration_limit");
    expect(rig.seen().some((x) => x.tool === "echo_text")).toBe(false);
  }, 60_000);

  test("the child's approvals go to the parent's person, who may allow them", async () => {
    using dir = tempDir();
    config(dir.path);
    await using rig = await startAgentRig(dir.path);
    rig.llm.script([
      { toolCalls: [{ name: "agent_spawn", arguments: { task: "list files", tools: ["shell_exec"] } }] },
      { toolCalls: [{ name: "shell_exec", arguments: { cmd: "ls" } }] },
      { text: "listed" },
      { text: "the child listed" },
    ]);
    const r = await rig.chat("delegate", { stdin: "y\n" });
    expect(r.stderr).toContain("? allow shell_exec");
    expect(r.stderr).toContain("← agent_spawn [ok] listed");
    expect(rig.seen().filter((s) => s.tool === "shell_exec").length).toBe(1);
  }, 60_000);

  test("stopping the parent's turn stops the child's", async () => {
    using dir = tempDir();
    config(dir.path);
    await using rig = await startAgentRig(dir.path);
    rig.llm.script([
      { toolCalls: [{ name: "agent_spawn", arguments: { task: "think for a long time" } }] },
      { hang: true },
    ]);
    const before = rig.llm.requests.length;
    const chat = Bun.spawn([HOMED, "chat", "-data", dir.path, "think"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root" },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "ignore",
    });
    await rig.llm.received(before + 2);
    // The person goes away mid-turn: their connection closes, which cancels the turn.
    chat.kill("SIGKILL");
    await chat.exited;
    const turns = await poll(
      () =>
        query<{ conv: string; stop_reason: string | null }>(
          dir.path,
          "SELECT conv, stop_reason FROM turns WHERE finished_at IS NOT NULL ORDER BY started_at",
        ),
      (t) => t.length === 2,
      { what: "the parent's and the child's turns to end" },
    );
    expect(turns.map((t) => [t.conv.includes("/agent:") ? "child" : "parent", t.stop_reason]).sort()).toEqual([
      ["child", "cancelled"],
      ["parent", "cancelled"],
    ]);
  }, 60_000);
});
