/**
 * `homed acp -data DIR` as an editor meets it: the `@agentclientprotocol/sdk` client app drives
 * the compiled binary over stdio against a daemon with the scripted fake model, and every line
 * homed writes to stdout is checked against the ACP JSON schema the SDK ships (harness/acp-client.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { HOMED, tempDir } from "./harness/binary.ts";
import { startAgentRig, type AgentRig } from "./harness/agent-daemon.ts";
import { frameProblems, startAcp, type AcpRig } from "./harness/acp-client.ts";
import { startDaemon, webUrlOf } from "./harness/daemon.ts";
import { poll } from "./harness/poll.ts";

const INIT: acp.InitializeRequest = {
  protocolVersion: acp.PROTOCOL_VERSION,
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } },
  clientInfo: { name: "Zed Test", version: "1.0.0" },
};

const chunks = (r: AcpRig, sessionId: string, kind = "agent_message_chunk") =>
  r.updates
    .filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === kind)
    .map((u) => (u.update as { content: { text: string } }).content.text);

const ofKind = (r: AcpRig, kind: string) =>
  r.updates.map((u) => u.update as Record<string, unknown>).filter((u) => u.sessionUpdate === kind);

async function started(data: string): Promise<{ r: AcpRig; sessionId: string }> {
  const r = startAcp(data);
  await r.agent.request(acp.methods.agent.initialize, INIT);
  const s = await r.agent.request(acp.methods.agent.session.new, { cwd: "/tmp", mcpServers: [] });
  return { r, sessionId: s.sessionId };
}

describe("homed acp bridges an editor to the daemon", () => {
  const dir = tempDir();
  let rig: AgentRig;
  beforeAll(async () => {
    rig = await startAgentRig(dir.path);
  }, 60_000);
  afterAll(async () => {
    await rig?.[Symbol.asyncDispose]();
    dir[Symbol.dispose]();
  });

  test("initialize, session/new and a prompt whose reply streams as chunks; the conversation has the ACP scene", async () => {
    await using r = startAcp(rig.data);
    const init = await r.agent.request(acp.methods.agent.initialize, INIT);
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
    });
    expect(init.agentInfo?.name).toBe("homed");
    const { sessionId } = await r.agent.request(acp.methods.agent.session.new, { cwd: "/tmp", mcpServers: [] });
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);

    const reply = "Hello from homed, streamed to the editor in several chunks.";
    rig.llm.script([{ text: reply }]);
    const res = await r.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: "text", text: "say hello" },
        { type: "resource", resource: { uri: "file:///tmp/notes.md", text: "remember the milk" } },
      ],
    });
    expect(res.stopReason).toBe("end_turn");
    const got = chunks(r, sessionId);
    expect(got.length).toBeGreaterThan(1);
    expect(got.join("")).toBe(reply);
    // The embedded resource reached the model with the text.
    const sent = JSON.stringify(rig.llm.requests.at(-1)?.body);
    expect(sent).toContain("say hello");
    expect(sent).toContain("remember the milk");

    const url = await webUrlOf(rig.daemon);
    const convs = (await (await fetch(`${url}api/conversations`, { headers: { "x-homed": "1" } })).json()) as {
      id: string;
      channel: string;
      scene: string;
    }[];
    expect(convs.find((c) => c.id === `acp:${sessionId}`)).toMatchObject({
      channel: "acp",
      scene: "chan:acp/peer:zed-test",
    });
    expect(r.problems()).toEqual([]);
    expect(await r.close()).toBe(0);
  }, 60_000);

  test("a tool call that needs approval asks session/request_permission: allow once runs it, reject does not", async () => {
    const { r, sessionId } = await started(rig.data);
    await using _ = r;
    const ran = () => rig.seen().filter((s) => s.tool === "danger_rm").length;
    const before = ran();

    rig.llm.script([
      { text: "Let me remove it.", toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/acp-a" } }] },
      { text: "Removed /tmp/acp-a." },
    ]);
    r.answer = () => ({ outcome: { outcome: "selected", optionId: "allow_once" } });
    const allowed = await r.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "remove /tmp/acp-a" }],
    });
    expect(allowed.stopReason).toBe("end_turn");
    expect(r.asked).toHaveLength(1);
    const q = r.asked[0]!;
    expect(q.sessionId).toBe(sessionId);
    expect(q.toolCall.title).toContain("danger_rm");
    expect(q.options.map((o) => o.optionId)).toEqual(["allow_once", "allow_session", "allow_always", "reject_once"]);
    expect(q.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "allow_always", "reject_once"]);
    const calls = ofKind(r, "tool_call");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ toolCallId: q.toolCall.toolCallId, status: "pending", kind: "delete" });
    expect(calls[0]!.rawInput).toEqual({ path: "/tmp/acp-a" });
    const done = ofKind(r, "tool_call_update").filter((u) => u.toolCallId === q.toolCall.toolCallId);
    expect(done.map((u) => u.status)).toEqual(["in_progress", "completed"]);
    expect(JSON.stringify(done.at(-1)!.content)).toContain("removed /tmp/acp-a");
    expect(chunks(r, sessionId).join("")).toContain("Removed /tmp/acp-a.");
    expect(ran()).toBe(before + 1);

    rig.llm.script([{ toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/acp-b" } }] }]);
    r.answer = () => ({ outcome: { outcome: "selected", optionId: "reject_once" } });
    const rejected = await r.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "remove /tmp/acp-b" }],
    });
    expect(rejected.stopReason).toBe("end_turn");
    expect(r.asked).toHaveLength(2);
    const b = r.asked[1]!.toolCall.toolCallId;
    expect(
      ofKind(r, "tool_call_update")
        .filter((u) => u.toolCallId === b)
        .map((u) => u.status),
    ).toEqual(["failed"]);
    expect(ran()).toBe(before + 1);
    expect(rig.llm.remaining()).toBe(0);
    expect(r.problems()).toEqual([]);
  }, 60_000);

  test("session/cancel stops the running turn: the prompt answers cancelled; a prompt sent right after runs next", async () => {
    const { r, sessionId } = await started(rig.data);
    await using _ = r;
    rig.llm.script([{ text: "This answer will never finish because", stall: true }]);
    const ask = (text: string) =>
      r.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
    const first = ask("tell me a long story");
    await poll(
      () => chunks(r, sessionId).length,
      (n) => n > 0,
      { what: "the first chunk of the reply" },
    );
    // As Zed does when you send while a reply runs: cancel, then the new prompt at once.
    rig.llm.script([{ text: "A short one." }]);
    await r.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    const second = ask("a short one then");
    expect((await first).stopReason).toBe("cancelled");
    expect((await second).stopReason).toBe("end_turn");
    rig.llm.resume();
    expect(chunks(r, sessionId).join("")).toEndWith("A short one.");
    expect(r.problems()).toEqual([]);
  }, 60_000);

  test("session/load in a new bridge replays the conversation, then it continues with its history", async () => {
    const first = await started(rig.data);
    rig.llm.script([
      { toolCalls: [{ name: "echo_text", arguments: { text: "echoed once" } }] },
      { text: "The echo said: echoed once." },
    ]);
    await first.r.agent.request(acp.methods.agent.session.prompt, {
      sessionId: first.sessionId,
      prompt: [{ type: "text", text: "echo something" }],
    });
    expect(first.r.problems()).toEqual([]);
    expect(await first.r.close()).toBe(0);

    await using r = startAcp(rig.data);
    await r.agent.request(acp.methods.agent.initialize, INIT);
    await r.agent.request(acp.methods.agent.session.load, { sessionId: first.sessionId, cwd: "/tmp", mcpServers: [] });
    const replay = r.updates.map((u) => u.update as Record<string, unknown>);
    expect(replay.map((u) => u.sessionUpdate)).toEqual([
      "user_message_chunk",
      "tool_call",
      "tool_call_update",
      "agent_message_chunk",
    ]);
    expect(chunks(r, first.sessionId, "user_message_chunk")).toEqual(["echo something"]);
    expect(replay[1]).toMatchObject({ title: expect.stringContaining("echo_text"), rawInput: { text: "echoed once" } });
    expect(replay[2]).toMatchObject({ toolCallId: replay[1]!.toolCallId, status: "completed" });
    expect(chunks(r, first.sessionId)).toEqual(["The echo said: echoed once."]);

    rig.llm.script([{ text: "Yes, I remember." }]);
    const res = await r.agent.request(acp.methods.agent.session.prompt, {
      sessionId: first.sessionId,
      prompt: [{ type: "text", text: "do you remember?" }],
    });
    expect(res.stopReason).toBe("end_turn");
    expect(JSON.stringify(rig.llm.requests.at(-1)?.body)).toContain("The echo said: echoed once.");

    const unknown = r.agent.request(acp.methods.agent.session.load, {
      sessionId: "no-such-session",
      cwd: "/tmp",
      mcpServers: [],
    });
    expect(unknown).rejects.toMatchObject({ code: -32002 });
    await unknown.catch(() => {});
    expect(r.problems()).toEqual([]);
  }, 60_000);

  test("session/cancel while the editor is asking: it answers cancelled, the tool does not run, the prompt is cancelled", async () => {
    const { r, sessionId } = await started(rig.data);
    await using _ = r;
    const ran = () => rig.seen().filter((s) => s.tool === "shell_exec").length;
    const before = ran();
    rig.llm.script([{ toolCalls: [{ name: "shell_exec", arguments: { cmd: "make deploy" } }] }]);
    let release = () => {};
    r.answer = () =>
      new Promise((resolve) => {
        release = () => resolve({ outcome: { outcome: "cancelled" } });
      });
    const prompt = r.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "deploy it" }],
    });
    await poll(
      () => r.asked.length,
      (n) => n === 1,
      { what: "the permission question" },
    );
    await r.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    release();
    expect((await prompt).stopReason).toBe("cancelled");
    expect(ran()).toBe(before);
    expect(r.problems()).toEqual([]);
  }, 60_000);

  test('"allow in this session" covers the tool for that session\'s conversation only', async () => {
    const ran = () => rig.seen().filter((s) => s.tool === "danger_rm").length;
    const before = ran();
    {
      const { r, sessionId } = await started(rig.data);
      await using _ = r;
      rig.llm.script([{ toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/acp-s1" } }] }, { text: "Gone." }]);
      r.answer = () => ({ outcome: { outcome: "selected", optionId: "allow_session" } });
      await r.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "rm s1" }] });
      rig.llm.script([
        { toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/acp-s2" } }] },
        { text: "Gone too." },
      ]);
      await r.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "rm s2" }] });
      expect(r.asked).toHaveLength(1);
      expect(ran()).toBe(before + 2);
    }
    // Nothing was saved: a new session is asked again.
    const saved = join(rig.data, "settings.json");
    expect(existsSync(saved) ? readFileSync(saved, "utf8") : "").not.toContain("danger_rm");
    const { r, sessionId } = await started(rig.data);
    await using _ = r;
    rig.llm.script([{ toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/acp-s3" } }] }]);
    r.answer = () => ({ outcome: { outcome: "selected", optionId: "reject_once" } });
    await r.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "rm s3" }] });
    expect(r.asked).toHaveLength(1);
    expect(ran()).toBe(before + 2);
  }, 60_000);

  test('"allow always" is kept like the web UI\'s: the tool joins approval.allow and is not asked again', async () => {
    const { r, sessionId } = await started(rig.data);
    await using _ = r;
    const ran = () => rig.seen().filter((s) => s.tool === "danger_rm").length;
    const before = ran();
    rig.llm.script([{ toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/acp-c" } }] }, { text: "Gone." }]);
    r.answer = () => ({ outcome: { outcome: "selected", optionId: "allow_always" } });
    await r.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "rm c" }] });
    expect(r.asked).toHaveLength(1);
    expect(ran()).toBe(before + 1);
    const settings = JSON.parse(readFileSync(join(rig.data, "settings.json"), "utf8"));
    expect(JSON.stringify(settings)).toContain("danger_rm");

    rig.llm.script([{ toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/acp-d" } }] }, { text: "Gone too." }]);
    await r.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "rm d" }] });
    expect(r.asked).toHaveLength(1);
    expect(ran()).toBe(before + 2);
    expect(r.problems()).toEqual([]);
  }, 60_000);

  test("garbage on stdin gets JSON-RPC errors and the bridge keeps answering", async () => {
    const proc = Bun.spawn([HOMED, "acp", "-data", rig.data], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const sent = new Map<string, string>();
    const frames = [
      "this is not json",
      '{"foo":1}',
      "[]",
      '{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"x"}}',
      '{"jsonrpc":"2.0","id":8,"method":"bogus/method"}',
      // A newer editor asks for a version homed does not speak: it is told the one homed does.
      JSON.stringify({ jsonrpc: "2.0", id: 9, method: "initialize", params: { ...INIT, protocolVersion: 7 } }),
    ];
    sent.set("9", "initialize");
    for (const f of frames) proc.stdin.write(`${f}\n`);
    proc.stdin.flush();
    const lines: string[] = [];
    const dec = new TextDecoder();
    let buf = "";
    for await (const chunk of proc.stdout) {
      buf += dec.decode(chunk, { stream: true });
      const parts = buf.split("\n");
      buf = parts.pop() ?? "";
      lines.push(...parts);
      if (lines.length >= frames.length) break;
    }
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
    const parsed = lines.map((l) => JSON.parse(l) as { id: unknown; error?: { code: number }; result?: unknown });
    // Answers to requests may come in any order (JSON-RPC); those to unreadable lines come at once, in order.
    const key = (f: unknown[]) => (f[0] === null ? -1 : Number(f[0]));
    const byId = (a: unknown[], b: unknown[]) => key(a) - key(b);
    expect(parsed.map((f) => [f.id, f.error?.code ?? "ok"]).sort(byId)).toEqual([
      [null, -32700],
      [null, -32600],
      [null, -32600],
      [7, -32602],
      [8, -32601],
      [9, "ok"],
    ]);
    expect(lines.flatMap((l) => frameProblems(l, (id) => sent.get(String(id))))).toEqual([]);
    expect(parsed.find((f) => f.id === 9)?.result).toMatchObject({ protocolVersion: 1 });
  }, 30_000);
});

test('with no daemon, initialize answers and session/new fails with "homed is not running on DIR"', async () => {
  using dir = tempDir();
  await using r = startAcp(dir.path);
  const init = await r.agent.request(acp.methods.agent.initialize, INIT);
  expect(init.protocolVersion).toBe(1);
  const s = r.agent.request(acp.methods.agent.session.new, { cwd: "/tmp", mcpServers: [] });
  expect(s).rejects.toMatchObject({ message: `homed is not running on ${dir.path}` });
  await s.catch(() => {});
  expect(r.problems()).toEqual([]);
  expect(await r.close()).toBe(0);
  expect(r.lines.length).toBe(2);
}, 30_000);

test("-data ~/DIR is the home directory's DIR: editors start agents without a shell", async () => {
  using home = tempDir();
  await using r = startAcp("~/ha", { home: home.path });
  await r.agent.request(acp.methods.agent.initialize, INIT);
  const s = r.agent.request(acp.methods.agent.session.new, { cwd: "/tmp", mcpServers: [] });
  expect(s).rejects.toMatchObject({ message: `homed is not running on ${join(home.path, "ha")}` });
  await s.catch(() => {});
}, 30_000);

test("a daemon restart between prompts: the prompt while it is down fails with the message, the next one reconnects", async () => {
  using dir = tempDir();
  await using rig = await startAgentRig(dir.path, { plugin: false });
  const { r, sessionId } = await started(rig.data);
  await using _ = r;
  rig.llm.script([{ text: "First." }]);
  const ask = (text: string) =>
    r.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
  expect((await ask("one")).stopReason).toBe("end_turn");

  await rig.daemon.stop();
  const down = ask("two");
  expect(down).rejects.toMatchObject({ message: `homed is not running on ${rig.data}` });
  await down.catch(() => {});

  await using again = await startDaemon(rig.data);
  rig.llm.script([{ text: "Back again." }]);
  expect((await ask("three")).stopReason).toBe("end_turn");
  expect(chunks(r, sessionId).join("")).toContain("Back again.");
  expect(again.stderr()).not.toContain("level=error");
  expect(r.problems()).toEqual([]);
}, 60_000);

test("a daemon with no model provider: the prompt fails with the daemon's reason, as an ACP internal error", async () => {
  using dir = tempDir();
  await using daemon = await startDaemon(dir.path);
  const { r, sessionId } = await started(daemon.dataDir);
  await using _ = r;
  const p = r.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
  expect(p).rejects.toMatchObject({ code: -32603, message: expect.stringContaining("provider") });
  await p.catch(() => {});
  const empty = r.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [] });
  expect(empty).rejects.toMatchObject({ code: -32602, message: "the prompt is empty" });
  await empty.catch(() => {});
  expect(r.problems()).toEqual([]);
}, 60_000);
