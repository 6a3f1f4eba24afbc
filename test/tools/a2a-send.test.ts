/**
 * homed talking to a second homed: the a2a plugin's a2a_send tool (risk network) sends the
 * message over A2A to an agent [channels.a2a] agents lists, with that agent's token, and the
 * reply comes back as the tool's result; the other homed sees a peer-named, untrusted A2A
 * conversation. With no agents listed the plugin and its tool are not there at all.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { tempDir } from "../harness/binary.ts";
import { webUrlOf } from "../harness/daemon.ts";

const DESK_TOKEN = "desk-calls-laptop-0123456789";
type Sent = { messages: { role: string; content: string }[] };

describe("a2a_send", () => {
  test("asks another homed over A2A and returns its reply; the context continues", async () => {
    // The agent being called: beyond loopback, so it needs the token its config gives "desk".
    using calleeDir = tempDir();
    writeFileSync(
      join(calleeDir.path, "config.toml"),
      `[channels.a2a]\npeers = [{ name = "desk", token = "${DESK_TOKEN}" }]\n`,
    );
    await using callee = await startAgentRig(calleeDir.path, { plugin: false, env: { HOMED_LISTEN: "0.0.0.0:0" } });
    const calleeUrl = await webUrlOf(callee.daemon);

    using callerDir = tempDir();
    writeFileSync(
      join(callerDir.path, "config.toml"),
      `[approval]\nallow = ["a2a_send"]\n\n[channels.a2a]\nagents = [{ name = "laptop", url = "${calleeUrl}", token = "${DESK_TOKEN}" }]\n`,
    );
    await using caller = await startAgentRig(callerDir.path, { plugin: false });
    const tools = (await caller.status()).tools.filter((t) => t.plugin === "a2a");
    expect(tools).toEqual([expect.objectContaining({ name: "a2a_send", risk: "network" })]);
    expect((await callee.status()).tools.some((t) => t.name === "a2a_send")).toBe(false);

    callee.llm.script([{ text: "The capital of France is Paris." }]);
    caller.llm.script([
      { toolCalls: [{ name: "a2a_send", arguments: { agent: "laptop", text: "What is the capital of France?" } }] },
      { text: "The laptop says Paris." },
    ]);
    const r = await caller.chat("ask the laptop about France");
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("The laptop says Paris.");
    const result = (caller.llm.requests[1]!.body as Sent).messages.at(-1)!;
    expect(result.role).toBe("tool");
    expect(result.content).toContain("The capital of France is Paris.");
    const contextId = /context_id ([\w.:-]+)/.exec(result.content)?.[1];
    expect(contextId).toBeTruthy();
    // The callee got the question as an untrusted message from "desk".
    expect(JSON.stringify(callee.llm.requests[0]!.body)).toContain("What is the capital of France?");
    const auth = { Authorization: `Bearer ${(await Bun.file(join(calleeDir.path, "web-token")).text()).trim()}` };
    const convs = (await (await fetch(`${calleeUrl}api/conversations`, { headers: auth })).json()) as {
      id: string;
      scene: string;
    }[];
    expect(convs.find((c) => c.id === `a2a:${contextId}`)?.scene).toBe("chan:a2a/peer:desk");

    // The context id from the reply continues that conversation on the callee.
    callee.llm.script([{ text: "Its population is about two million." }]);
    caller.llm.script([
      {
        toolCalls: [
          { name: "a2a_send", arguments: { agent: "laptop", text: "And its population?", context_id: contextId } },
        ],
      },
      { text: "About two million." },
    ]);
    // The other agent's reply is in view: sending it more is asked about, naming that reply.
    const more = await caller.chat("and the population?", { stdin: "y\n" });
    expect(more.exitCode).toBe(0);
    expect(more.stderr).toContain("asked although allowed: untrusted text is in view (from a2a_send laptop)");
    expect(JSON.stringify(callee.llm.requests[1]!.body)).toContain("What is the capital of France?");

    // A name the owner did not list is refused, and says which names exist.
    caller.llm.script([
      { toolCalls: [{ name: "a2a_send", arguments: { agent: "somewhere-else", text: "hi" } }] },
      { text: "could not" },
    ]);
    await caller.chat("ask somewhere else", { stdin: "y\n" });
    const refused = (caller.llm.requests.at(-1)!.body as Sent).messages.at(-1)!;
    expect(refused.content).toContain("no agent named somewhere-else is configured (known: laptop)");
    expect(callee.llm.requests).toHaveLength(2);
  }, 60_000);

  test("speaks 0.3 to an agent whose card offers only 0.3", async () => {
    using calleeDir = tempDir();
    await using callee = await startAgentRig(calleeDir.path, { plugin: false });
    const calleeUrl = await webUrlOf(callee.daemon);
    // A 0.3-only card (no supportedInterfaces) in front of homed's endpoint (which speaks 0.3
    // too), passing requests on and noting which methods came.
    const methods: string[] = [];
    using front: ReturnType<typeof Bun.serve> = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: async (req): Promise<Response> => {
        if (req.method === "POST") {
          const body = await req.text();
          methods.push((JSON.parse(body) as { method: string }).method);
          return fetch(`${calleeUrl}a2a`, { method: "POST", headers: { "content-type": "application/json" }, body });
        }
        return Response.json({
          protocolVersion: "0.3.0",
          name: "old-agent",
          description: "an agent from before A2A 1.0",
          url: new URL("/a2a", req.url).href,
          preferredTransport: "JSONRPC",
          version: "1",
          capabilities: {},
          defaultInputModes: ["text/plain"],
          defaultOutputModes: ["text/plain"],
          skills: [],
        });
      },
    });
    using callerDir = tempDir();
    writeFileSync(
      join(callerDir.path, "config.toml"),
      `[approval]\nallow = ["a2a_send"]\n\n[channels.a2a]\nagents = [{ name = "old", url = "http://127.0.0.1:${front.port}/card.json" }]\n`,
    );
    await using caller = await startAgentRig(callerDir.path, { plugin: false });
    callee.llm.script([{ text: "Answered in 0.3." }]);
    caller.llm.script([
      { toolCalls: [{ name: "a2a_send", arguments: { agent: "old", text: "hello, old agent" } }] },
      { text: "done" },
    ]);
    expect((await caller.chat("ask the old agent")).exitCode).toBe(0);
    const result = (caller.llm.requests[1]!.body as Sent).messages.at(-1)!;
    expect(result.content).toContain("Answered in 0.3.");
    expect(result.content).toContain("task completed");
    expect(methods).toEqual(["message/send"]);
  }, 60_000);
});
