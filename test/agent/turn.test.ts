/**
 * The turn, end to end: `homed chat` → daemon → fake LLM over real HTTP → tools and stage
 * handlers in a real plugin process. Assertions are on what a person sees (stdout, stderr, exit
 * status) and on what the model was sent at each step.
 */
import { BUILTIN_PLUGINS } from "../../src/generated/builtin-plugins.ts";
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { HOMED, tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { installBunPlugin } from "../harness/plugins.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { poll } from "../harness/poll.ts";
import { connectUnixRpc } from "../../src/ipc/unix-rpc.ts";

type Msg = {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
};
const messagesOf = (req: { body: unknown }) => (req.body as { messages: Msg[] }).messages;
const lastMsg = (req: { body: unknown }) => messagesOf(req).at(-1) as Msg;
const toolMsgs = (req: { body: unknown }) => messagesOf(req).filter((m) => m.role === "tool");

describe("the turn", () => {
  test("a plain reply is the whole of stdout; the log and the token counts record the turn", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    rig.llm.script([{ text: "Hello there, human.", usage: { input: 12, output: 5 } }]);
    const r = await rig.chat("hi");
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("Hello there, human.\n");
    expect(r.stderr).toContain("[done; 12 in / 5 out tokens; conversation: 1 turn, 12 in / 5 out]");
    const req = rig.llm.requests[0]!;
    expect(req.headers.authorization).toBe("Bearer sk-test-secret-key-1234");
    expect(messagesOf(req)[0]!.role).toBe("system");
    expect(lastMsg(req)).toEqual({ role: "user", content: "hi" });
    const builtin = new Set(BUILTIN_PLUGINS.flatMap((m) => m.tools.map((t) => t.name)));
    const tools = (req.body as { tools: { function: { name: string } }[] }).tools
      .map((t) => t.function.name)
      .filter((n) => !builtin.has(n))
      .sort();
    // "hi" calls for no tool: only the core is offered (src/agent/tool-offer.ts) — the kernel's
    // memory_search and tools_find, and the built-in files_read (built-in tools are left out here).
    // The fixture plugin's tools are registered, not offered.
    expect(tools).toEqual(["memory_search", "tools_find"]);

    rig.llm.script([{ text: "Second answer.", usage: { input: 30, output: 3 } }]);
    const again = await rig.chat("and again");
    expect(again.stderr).toContain("conversation: 2 turns, 42 in / 8 out");
    // The second call carries the first turn as history.
    expect(messagesOf(rig.llm.requests[1]!).map((m) => [m.role, m.content])).toContainEqual([
      "assistant",
      "Hello there, human.",
    ]);
    await rig.daemon.stop();
    const db = new Database(join(rig.data, "homed.db"), { readonly: true });
    const kinds = db
      .query<{ kind: string }, []>("SELECT kind FROM events WHERE conv = 'cli' ORDER BY id")
      .all()
      .map((r) => r.kind);
    expect(kinds).toEqual([
      "user-message",
      "context",
      "model-output",
      "agent-reply",
      "user-message",
      "context",
      "model-output",
      "agent-reply",
    ]);
    db.close();
  });

  test("tool calls (parallel ones too) run in the plugin and their results go back to the model", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    rig.llm.script([
      {
        text: "Let me compute.",
        toolCalls: [
          { name: "add", arguments: '{"a": 2, "b": 40}' },
          { name: "echo_text", arguments: '{"text":"ping"}' },
        ],
      },
      { text: "2 + 40 is 42, and the echo said ping." },
    ]);
    const r = await rig.chat("what is 2+40?");
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim().endsWith("2 + 40 is 42, and the echo said ping.")).toBe(true);
    expect(r.stderr).toContain("→ add");
    expect(r.stderr).toContain("← add [ok] 42");
    expect(r.stderr).toContain("← echo_text [ok] echo: ping");
    const second = rig.llm.requests[1]!;
    const assistant = messagesOf(second).find((m) => m.tool_calls)!;
    expect(assistant.tool_calls!.map((c) => c.function.name)).toEqual(["add", "echo_text"]);
    expect(toolMsgs(second).map((m) => m.content)).toEqual(["42", "echo: ping"]);
    expect(toolMsgs(second).map((m) => m.tool_call_id)).toEqual(assistant.tool_calls!.map((c) => c.id));
    expect(
      rig
        .seen()
        .filter((s) => s.tool)
        .map((s) => s.tool),
    ).toEqual(["add", "echo_text"]);
  });

  test("bad arguments, unknown tools and invalid JSON go back to the model as errors it can correct; nothing runs", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    rig.llm.script([
      {
        toolCalls: [
          { name: "add", arguments: '{"a": "two", "b": 1}' },
          { name: "nope", arguments: "{}" },
          { name: "echo_text", arguments: '{"text": ' },
        ],
      },
      { toolCalls: [{ name: "add", arguments: '{"a": 2, "b": 1}' }] },
      { text: "3" },
    ]);
    const r = await rig.chat("add");
    expect(r.exitCode).toBe(0);
    const errors = toolMsgs(rig.llm.requests[1]!).map((m) => String(m.content));
    expect(errors[0]).toContain("invalid arguments for add");
    expect(errors[0]).toContain("/a must be number");
    expect(errors[1]).toContain("there is no tool named nope");
    expect(errors[2]).toContain("not valid JSON");
    expect(
      rig
        .seen()
        .filter((s) => s.tool)
        .map((s) => s.args),
    ).toEqual([{ a: 2, b: 1 }]);
  });

  test("the loop stops at the iteration limit and the reply says so", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { env: { HOMED_AGENT_MAX_ITERATIONS: "3" } });
    const call = { toolCalls: [{ name: "echo_text", arguments: '{"text":"again"}' }] };
    rig.llm.script([call, call, call, call, call]);
    const r = await rig.chat("loop forever");
    expect(rig.llm.requests.length).toBe(3);
    expect(r.stdout).toContain("iteration limit of 3 model calls");
    expect(r.stderr).toContain("[iteration_limit;");
    expect(rig.seen().filter((s) => s.tool).length).toBe(2);
  });

  test("when every call of a round is denied the loop ends and says why", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, {
      behavior: { before_toolcall: { action: "deny", reason: "not today" } },
    });
    rig.llm.script([
      { text: "Trying.", toolCalls: [{ name: "echo_text", arguments: '{"text":"x"}' }] },
      { text: "never sent" },
    ]);
    const r = await rig.chat("do it");
    expect(rig.llm.requests.length).toBe(1);
    expect(r.stdout).toContain("Every tool call was denied: denied: denied by agent: not today");
    expect(r.stderr).toContain("[denied;");
    expect(rig.seen().some((s) => s.tool)).toBe(false);
  });
});

describe("the seven stages", () => {
  test("on_input can block, short-circuit or rewrite; blocked and short-circuited turns never reach the model", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, {
      behavior: { on_input: { action: "block", reason: "rate limited" } },
    });
    let r = await rig.chat("hello");
    expect(r.stdout).toBe("Not processed: rate limited\n");
    rig.behave({ on_input: { action: "reply", text: "canned answer" } });
    r = await rig.chat("hello");
    expect(r.stdout).toBe("canned answer\n");
    expect(rig.llm.requests.length).toBe(0);
    rig.behave({ on_input: { text: "rewritten input" } });
    rig.llm.script([{ text: "ok" }]);
    await rig.chat("original input");
    expect(lastMsg(rig.llm.requests[0]!)).toEqual({ role: "user", content: "rewritten input" });
  });

  test("pre_action injects data into what the model is sent", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, {
      behavior: { pre_action: { inject: ["The weather is sunny."] } },
    });
    rig.llm.script([{ text: "ok" }]);
    await rig.chat("weather?");
    // Said after the history, just before the input: what changes per turn stays out of the
    // system prompt the provider caches.
    const sent = messagesOf(rig.llm.requests[0]!);
    expect(String(sent[0]!.content)).not.toContain("The weather is sunny.");
    expect(sent.at(-2)).toMatchObject({ role: "system", content: "[from plugin agent]\nThe weather is sunny." });
    expect(sent.at(-1)).toMatchObject({ role: "user", content: "weather?" });
  });

  test("post_action can filter the text and force a redirect", async () => {
    using dir = tempDir();
    // The first answer is redirected; the second is filtered.
    await using rig = await startAgentRig(dir.path, {
      behavior: { post_action: [{ action: "redirect", redirect: "Answer in French." }, { text: "[filtered]" }] },
    });
    rig.llm.script([{ text: "Hello" }, { text: "Bonjour" }]);
    const r = await rig.chat("greet me");
    expect(rig.llm.requests.length).toBe(2);
    expect(messagesOf(rig.llm.requests[1]!).slice(-2)).toEqual([
      { role: "assistant", content: "Hello" },
      { role: "user", content: "Answer in French." },
    ]);
    expect(r.stdout.trim().endsWith("[filtered]")).toBe(true);
    expect(r.stdout).toBe("[filtered]\n");
  });

  test("before_toolcall rewrites arguments; after_toolcall redacts what the model sees", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, {
      behavior: { before_toolcall: { arguments: { text: "rewritten" } }, after_toolcall: { content: "[redacted]" } },
    });
    rig.llm.script([{ toolCalls: [{ name: "echo_text", arguments: '{"text":"secret"}' }] }, { text: "done" }]);
    await rig.chat("echo");
    expect(rig.seen().find((s) => s.tool)?.args).toEqual({ text: "rewritten" });
    expect(toolMsgs(rig.llm.requests[1]!)[0]!.content).toBe("[redacted]");
  });

  test("before_output reformats the reply per channel; after_output sees it and the usage", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { behavior: { before_output: { text: "**formatted**" } } });
    rig.llm.script([{ text: "plain", usage: { input: 7, output: 2 } }]);
    const r = await rig.chat("x");
    expect(r.stdout.trim().endsWith("**formatted**")).toBe(true);
    // after_output runs after the reply is sent: the reply does not wait for it.
    const seen = await poll(rig.seen, (all) => all.some((s) => s.stage === "after_output"), { what: "after_output" });
    const after = seen.find((s) => s.stage === "after_output")!.payload!;
    expect(after).toEqual({
      conv: "cli",
      channel: "cli",
      text: "**formatted**",
      usage: { inputTokens: 7, outputTokens: 2 },
    });
    const stages = rig
      .seen()
      .filter((s) => s.stage)
      .map((s) => s.stage);
    expect(stages).toEqual(["on_input", "pre_action", "post_action", "before_output", "after_output"]);
  });

  test("a handler past its deadline or answering garbage is skipped; the turn goes on", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, {
      behavior: { deadlineMs: 200, on_input: { hang: true }, pre_action: { garbage: true } },
    });
    rig.llm.script([{ text: "still here" }]);
    const t0 = Date.now();
    const r = await rig.chat("x");
    expect(r.stdout).toBe("still here\n");
    expect(Date.now() - t0).toBeLessThan(5000);
    await rig.daemon.waitFor(/stage handler skipped.*stage=on_input/);
    await rig.daemon.waitFor(/stage handler skipped.*stage=pre_action.*bad answer/);
  });

  test("a dead plugin's handlers and tools vanish and come back when it restarts", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    const st = await rig.status();
    expect(st.stages.filter((h) => h.plugin === "agent").length).toBe(7);
    const pid = (st.plugins as { name: string; pid: number }[]).find((p) => p.name === "agent")!.pid;
    process.kill(pid, "SIGKILL");
    await rig.daemon.waitFor(/plugin registrations removed.*plugin=agent stages=7 tools=5/);
    const own = (s: Awaited<ReturnType<typeof rig.status>>) => s.tools.filter((t) => t.plugin === "agent").length;
    await poll(rig.status, (again) => again.stages.length === 7 && own(again) === 5, {
      what: "the plugin's handlers and tools to come back after its restart",
    });
  });
});

describe("approval and failing closed", () => {
  test("a tool that asks is approved with y, denied with n or no answer", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    const call = { toolCalls: [{ name: "danger_rm", arguments: '{"path":"/tmp/x"}' }] };
    rig.llm.script([call, { text: "finished" }]);
    let r = await rig.chat("remove it", { stdin: "y\n" });
    expect(r.stderr).toContain("? allow danger_rm");
    expect(r.stderr).toContain("← danger_rm [ok] removed /tmp/x");
    // Denied calls end the turn (every call of the round was denied): one model call each.
    rig.llm.script([call]);
    r = await rig.chat("remove it", { stdin: "n\n" });
    expect(r.stderr).toContain("← danger_rm [denied] denied: the user declined danger_rm");
    rig.llm.script([call]);
    r = await rig.chat("remove it");
    expect(r.stderr).toContain("no answer: denied");
    expect(rig.seen().filter((s) => s.tool === "danger_rm").length).toBe(1);
  });

  test("policy rules in config.toml deny; untrusted input may not trigger a listed tool and is never asked", async () => {
    using dir = tempDir();
    await Bun.write(join(dir.path, "config.toml"), '[approval]\ndeny = ["add"]\nuntrusted_deny = ["echo_*"]\n');
    await using rig = await startAgentRig(dir.path);
    rig.llm.script([{ toolCalls: [{ name: "add", arguments: '{"a":1,"b":1}' }] }]);
    const r = await rig.chat("add");
    expect(r.stderr).toContain("← add [denied] denied: policy denies add");

    // An untrusted message (as a group-chat bridge would send it) may not call echo_*, and a
    // tool that needs approval is denied without asking anyone.
    const client = await connectUnixRpc(
      rig.daemon.socket,
      { warn: () => {}, debug: () => {} },
      { onRequest: () => ({ approved: true }) },
    );
    rig.llm.script([
      {
        toolCalls: [
          { name: "echo_text", arguments: '{"text":"x"}' },
          { name: "danger_rm", arguments: '{"path":"/"}' },
        ],
      },
    ]);
    const res = (await client.peer.request("chat.send", {
      text: "from a stranger",
      conv: "group",
      untrusted: true,
    })) as { text: string };
    client.close();
    expect(res.text).toContain("untrusted input may not call echo_text");
    expect(res.text).toContain(
      "denied by policy (no one to ask): danger_rm (write) needs a person's approval, and the input is untrusted",
    );
    expect(rig.seen().some((s) => s.tool)).toBe(false);
    await rig.daemon.stop();
    const db = new Database(join(rig.data, "homed.db"), { readonly: true });
    const marks = db
      .query<{ kind: string; untrusted: number }, []>(
        "SELECT kind, untrusted FROM events WHERE conv = 'group' ORDER BY id",
      )
      .all();
    db.close();
    expect(marks.length).toBeGreaterThan(3);
    expect(marks.every((m) => m.untrusted === 1)).toBe(true);
  });

  test("while a critical plugin is down, tool calls are denied", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "policy", "agent.ts", { critical: true }, ["--no-tools"]);
    installBunPlugin(dir.path, "tools", "agent.ts", {}, ["--no-stages"]);
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const fromTools = (s: Awaited<ReturnType<typeof rig.status>>) => s.tools.filter((t) => t.plugin === "tools").length;
    const st = await poll(rig.status, (s) => fromTools(s) === 5 && s.stages.length === 7, {
      what: "the policy and tools plugins' registrations",
    });
    const call = { toolCalls: [{ name: "echo_text", arguments: '{"text":"x"}' }] };
    rig.llm.script([call, { text: "ran" }]);
    expect((await rig.chat("echo")).stderr).toContain("← echo_text [ok] echo: x");
    const pid = (st.plugins as { name: string; pid: number }[]).find((p) => p.name === "policy")!.pid;
    process.kill(pid, "SIGKILL");
    await rig.daemon.waitFor(/plugin exited.*plugin=policy/);
    expect((await rig.status()).failClosed).toEqual(["policy"]);
    rig.llm.script([call]);
    const r = await rig.chat("echo");
    expect(r.stderr).toContain("← echo_text [denied] denied: critical plugin policy is down");
  });
});

describe("when the model fails", () => {
  test("a rejected key is a clear reply and exit status 1, never the key itself", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([{ status: 401 }]);
    const r = await rig.chat("hi");
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain("The model call failed:");
    expect(r.stdout.toLowerCase()).toContain("key");
    expect(r.stdout + r.stderr + rig.daemon.stderr()).not.toContain("sk-test-secret-key-1234");
  });

  test("429 then success is retried inside the turn; a hang ends in a timeout reply", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false, env: { HOMED_LLM_TIMEOUT_MS: "300" } });
    rig.llm.script([{ status: 429 }, { text: "after the retry" }]);
    const ok = await rig.chat("hi");
    expect(ok.stdout).toBe("after the retry\n");
    expect(rig.llm.requests.length).toBe(2);
    rig.llm.script([{ hang: true }, { hang: true }, { hang: true }, { hang: true }]);
    const t0 = Date.now();
    const hung = await rig.chat("hi");
    expect(hung.exitCode).toBe(1);
    expect(hung.stdout).toMatch(/The model call failed: no data from openai provider at .* for 300 ms/);
    expect(Date.now() - t0).toBeLessThan(30_000);
  }, 60_000);

  test("malformed output and a dropped connection end the turn with an error reply, and the daemon carries on", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false, env: { HOMED_LLM_MAX_RETRIES: "0" } });
    rig.llm.script([{ malformed: true, text: "partial" }]);
    let r = await rig.chat("hi");
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain("The model call failed:");
    rig.llm.script([{ drop: true, text: "cut off mid" }]);
    r = await rig.chat("hi");
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain("The model call failed:");
    rig.llm.script([{ text: "fine again" }]);
    expect((await rig.chat("hi")).stdout).toBe("fine again\n");
  });

  test("closing the chat client cancels the turn", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([{ text: "this will never finish", stall: true }]);
    const proc = Bun.spawn([HOMED, "chat", "-data", rig.data, "long story"], {
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
    });
    await rig.llm.received(1);
    proc.kill("SIGKILL");
    await proc.exited;
    await rig.daemon.waitFor(/msg="turn finished".*stop=cancelled/);
  });
});

describe("Anthropic Messages", () => {
  test("the same turn with tools works against the Anthropic wire format", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { kind: "anthropic" });
    rig.llm.script([
      { text: "Adding.", toolCalls: [{ name: "add", arguments: { a: 20, b: 22 } }] },
      { text: "It is 42.", usage: { input: 9, output: 4 } },
    ]);
    const r = await rig.chat("20+22?");
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim().endsWith("It is 42.")).toBe(true);
    const first = rig.llm.requests[0]!;
    expect(first.path).toBe("/v1/messages");
    expect(first.headers["x-api-key"]).toBe("sk-test-secret-key-1234");
    expect((first.body.system as { type: string }[])[0]).toMatchObject({
      type: "text",
      cache_control: { type: "ephemeral" },
    });
    const second = rig.llm.requests[1]!.body as {
      messages: { role: string; content: { type: string; content?: string; tool_use_id?: string }[] }[];
    };
    const result = second.messages.at(-1)!.content.find((b) => b.type === "tool_result")!;
    expect(result.content).toBe("42");
  });
});

describe("cancelling while a question is open", () => {
  test("a browser that goes away while an approval waits leaves the turn waiting; Stop ends it at once, not at the approval timeout", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    const url = await webUrlOf(rig.daemon);
    rig.llm.script([{ toolCalls: [{ name: "danger_rm", arguments: '{"path":"/x"}' }] }]);
    const readUntilApproval = async (res: Response) => {
      const reader = res.body!.getReader();
      let seen = "";
      while (!seen.includes('"type":"approval"')) seen += new TextDecoder().decode((await reader.read()).value);
      return { reader, seen };
    };
    const ac = new AbortController();
    const res = await fetch(`${url}api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-homed": "1" },
      body: JSON.stringify({ conv: "c1", text: "remove /x" }),
      signal: ac.signal,
    });
    await readUntilApproval(res);
    ac.abort();
    // A page that comes back finds the question still open.
    const again = await fetch(`${url}api/chat/live?conv=c1`, { headers: { "x-homed": "1" } });
    expect(again.status).toBe(200);
    const { reader, seen } = await readUntilApproval(again);
    expect(rig.daemon.stderr()).not.toMatch(/msg="turn finished".*conv=c1/);
    const stream = (JSON.parse(seen.split("\n")[0]!.slice(5)) as { stream: string }).stream;
    const t0 = Date.now();
    const cancel = await fetch(`${url}api/cancel`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-homed": "1" },
      body: JSON.stringify({ stream }),
    });
    expect(await cancel.json()).toEqual({ cancelled: true });
    await rig.daemon.waitFor(/msg="turn finished".*conv=c1.*stop=cancelled/);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(rig.seen().some((s) => s.tool)).toBe(false);
    await reader.cancel();
  });
});
