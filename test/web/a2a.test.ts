/**
 * The A2A channel driven by the A2A project's own client (@a2a-js/sdk), in its 1.0 mode and its
 * legacy 0.3 transport, against the built daemon and a scripted fake model: the agent card, a
 * blocking send (a task in a final state), a streamed send (task, artifact chunks, final
 * status), get/list/cancel, and the conversation and scene each context becomes.
 */
import { describe, expect, test } from "bun:test";
import {
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  SubscribeToTaskRequest,
  type StreamResponse,
  type Task,
  TaskState,
} from "@a2a-js/sdk";
import { Client, ClientFactory, DefaultAgentCardResolver } from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { type AgentRig, startAgentRig } from "../harness/agent-daemon.ts";
import { tempDir } from "../harness/binary.ts";
import { textOf, userMessage } from "../harness/a2a.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { transcriptAt } from "../harness/transcript.ts";

function asTask(r: unknown): Task {
  expect(r).toHaveProperty("status");
  return r as Task;
}

async function v1Client(rig: AgentRig) {
  const url = await webUrlOf(rig.daemon);
  return { url, client: await new ClientFactory().createFromUrl(url) };
}

async function conversation(url: string, conv: string) {
  return await transcriptAt(url, conv);
}

describe("A2A 1.0 with @a2a-js/sdk", () => {
  test("the agent card names the endpoint by the request's Host and offers 1.0 and 0.3 JSON-RPC", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const url = await webUrlOf(rig.daemon);
    const port = new URL(url).port;
    // Asked for as localhost, the card names localhost (the Host header, not the bind address).
    const card = await new DefaultAgentCardResolver().resolve(`http://localhost:${port}`);
    expect(card.name).toBe("homed");
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.skills.map((s) => s.id)).toEqual(["chat"]);
    expect(card.supportedInterfaces).toEqual([
      expect.objectContaining({
        url: `http://localhost:${port}/a2a`,
        protocolBinding: "JSONRPC",
        protocolVersion: "1.0",
      }),
      expect.objectContaining({
        url: `http://localhost:${port}/a2a`,
        protocolBinding: "JSONRPC",
        protocolVersion: "0.3",
      }),
    ]);
    // Loopback: open like the web UI, so no security scheme is declared.
    expect(Object.keys(card.securitySchemes ?? {})).toEqual([]);
    // A name a loopback listener does not answer gets no card naming it (DNS rebinding).
    const evil = await fetch(`${url}.well-known/agent-card.json`, { headers: { Host: "evil.example" } });
    expect(evil.status).toBe(403);
  }, 30_000);

  test("a blocking send returns the completed task; its context is one conversation, untrusted, with its scene", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const { url, client } = await v1Client(rig);
    rig.llm.script([{ text: "Hello from homed." }]);
    const first = asTask(await client.sendMessage(userMessage("hi, who are you?")));
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(first.artifacts[0]?.parts)).toBe("Hello from homed.");
    expect(textOf(first.status?.message?.parts)).toBe("Hello from homed.");
    expect(first.history.map((m) => textOf(m.parts))).toEqual(["hi, who are you?", "Hello from homed."]);

    // The same contextId continues the conversation: the model sees the earlier exchange.
    rig.llm.script([{ text: "You asked who I am." }]);
    const second = asTask(await client.sendMessage(userMessage("what did I ask?", { contextId: first.contextId })));
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    const sent = JSON.stringify(rig.llm.requests.at(-1)!.body);
    expect(sent).toContain("hi, who are you?");
    expect(sent).toContain("Hello from homed.");

    const conv = `a2a:${first.contextId}`;
    const lines = await conversation(url, conv);
    expect(lines.filter((l) => l.type === "turn-start").map((l) => [l.text, l.untrusted])).toEqual([
      ["hi, who are you?", true],
      ["what did I ask?", true],
    ]);
    const listed = (await (await fetch(`${url}api/conversations`)).json()) as {
      id: string;
      scene: string;
      channel: string;
    }[];
    expect(listed.find((c) => c.id === conv)).toMatchObject({ channel: "a2a", scene: "chan:a2a/peer:anon" });
  }, 30_000);

  test("a streamed send: the task, the reply as artifact chunks, then the final status", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const { client } = await v1Client(rig);
    rig.llm.script([{ text: "Streaming reply here." }]);
    const events: StreamResponse[] = [];
    for await (const e of client.sendMessageStream(userMessage("stream please"))) events.push(e);
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe("task");
    expect(kinds.at(-1)).toBe("statusUpdate");
    expect(kinds.filter((k) => k === "artifactUpdate").length).toBeGreaterThanOrEqual(2);
    let text = "";
    let closed = false;
    for (const e of events) {
      if (e.payload?.$case !== "artifactUpdate") continue;
      const a = e.payload.value;
      text = a.append ? text + textOf(a.artifact?.parts) : textOf(a.artifact?.parts);
      closed ||= a.lastChunk;
    }
    expect(text).toBe("Streaming reply here.");
    expect(closed).toBe(true);
    const last = events.at(-1)!.payload;
    expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  }, 30_000);

  test("a client whose stream broke resubscribes: the text so far, then the rest", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const { client } = await v1Client(rig);
    rig.llm.script([{ text: "First part, then the rest of the answer.", stall: true }]);
    let taskId = "";
    let before = "";
    for await (const e of client.sendMessageStream(userMessage("a long answer please"))) {
      if (e.payload?.$case === "task") taskId = e.payload.value.id;
      if (e.payload?.$case === "artifactUpdate") {
        before = textOf(e.payload.value.artifact?.parts);
        break; // the connection is gone; the task goes on
      }
    }
    expect(before.length).toBeGreaterThan(0);
    const kinds: string[] = [];
    let text = "";
    for await (const e of client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: taskId }))) {
      kinds.push(e.payload?.$case ?? "");
      if (e.payload?.$case === "artifactUpdate") {
        const a = e.payload.value;
        text = a.append ? text + textOf(a.artifact?.parts) : textOf(a.artifact?.parts);
        if (kinds.length === 2) {
          // What the broken stream had shown is where the new one starts.
          expect(text.startsWith(before)).toBe(true);
          rig.llm.resume();
        }
      }
    }
    expect(kinds[0]).toBe("task");
    expect(kinds.at(-1)).toBe("statusUpdate");
    expect(text).toBe("First part, then the rest of the answer.");
    // A finished task cannot be followed: UnsupportedOperation.
    const again = client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: taskId }));
    await expect(again.next()).rejects.toMatchObject({ envelopeCode: -32004 });
  }, 30_000);

  test("get, list and cancel tasks; unknown and finished tasks get A2A's error codes", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const { client } = await v1Client(rig);
    rig.llm.script([{ text: "One." }]);
    const done = asTask(await client.sendMessage(userMessage("first")));
    const got = await client.getTask(GetTaskRequest.fromJSON({ id: done.id, historyLength: 1 }));
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(got.history.map((m) => textOf(m.parts))).toEqual(["One."]);

    // A task still working: the model stalls until the task is cancelled.
    rig.llm.script([{ text: "never finished", stall: true }]);
    const working = asTask(await client.sendMessage(userMessage("second", { returnImmediately: true })));
    expect(working.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const listed = await client.listTasks(ListTasksRequest.fromJSON({}));
    expect(listed.tasks.map((t) => t.id)).toEqual([working.id, done.id]);
    expect(listed.totalSize).toBe(2);
    const onlyDone = await client.listTasks(
      ListTasksRequest.fromJSON({ status: "TASK_STATE_COMPLETED", includeArtifacts: true }),
    );
    expect(onlyDone.tasks.map((t) => [t.id, textOf(t.artifacts[0]?.parts)])).toEqual([[done.id, "One."]]);
    const paged = await client.listTasks(ListTasksRequest.fromJSON({ pageSize: 1 }));
    expect(paged.tasks.map((t) => t.id)).toEqual([working.id]);
    const rest = await client.listTasks(ListTasksRequest.fromJSON({ pageSize: 1, pageToken: paged.nextPageToken }));
    expect(rest.tasks.map((t) => t.id)).toEqual([done.id]);
    expect(rest.nextPageToken).toBe("");

    const cancelled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: working.id }));
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask(GetTaskRequest.fromJSON({ id: working.id }))).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
    await expect(client.cancelTask(CancelTaskRequest.fromJSON({ id: done.id }))).rejects.toMatchObject({
      name: "TaskNotCancelableError",
      envelopeCode: -32002,
    });
    await expect(client.getTask(GetTaskRequest.fromJSON({ id: "no-such-task" }))).rejects.toMatchObject({
      name: "TaskNotFoundError",
      envelopeCode: -32001,
    });
  }, 30_000);
});

describe("A2A 0.3 with @a2a-js/sdk's legacy transport", () => {
  test("message/send, message/stream, tasks/get and tasks/cancel", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const url = await webUrlOf(rig.daemon);
    const card = await new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }).resolve(url);
    const client = new Client(new LegacyJsonRpcTransport({ endpoint: `${url}a2a` }), card);
    expect(client.protocolVersion).toBe("0.3");

    // A raw 0.3 request first: the wire shape, kind-tagged, lower-case states.
    rig.llm.script([{ text: "Raw hello." }]);
    const raw = await fetch(`${url}a2a`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "message/send",
        params: { message: { kind: "message", messageId: "m-1", role: "user", parts: [{ kind: "text", text: "hi" }] } },
      }),
    });
    const body = (await raw.json()) as { id: number; result: Record<string, unknown> };
    expect(body.id).toBe(7);
    expect(body.result).toMatchObject({
      kind: "task",
      status: {
        state: "completed",
        message: { kind: "message", role: "agent", parts: [{ kind: "text", text: "Raw hello." }] },
      },
      artifacts: [{ parts: [{ kind: "text", text: "Raw hello." }] }],
    });

    rig.llm.script([{ text: "Legacy hello." }]);
    const sent = asTask(await client.sendMessage(userMessage("hello over 0.3")));
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(sent.artifacts[0]?.parts)).toBe("Legacy hello.");

    rig.llm.script([{ text: "Legacy stream." }]);
    const kinds: string[] = [];
    let text = "";
    for await (const e of client.sendMessageStream(userMessage("stream over 0.3", { contextId: sent.contextId }))) {
      kinds.push(e.payload?.$case ?? "");
      if (e.payload?.$case === "artifactUpdate")
        text = e.payload.value.append
          ? text + textOf(e.payload.value.artifact?.parts)
          : textOf(e.payload.value.artifact?.parts);
    }
    expect(kinds[0]).toBe("task");
    expect(kinds.at(-1)).toBe("statusUpdate");
    expect(text).toBe("Legacy stream.");

    const got = await client.getTask(GetTaskRequest.fromJSON({ id: sent.id }));
    expect(textOf(got.status?.message?.parts)).toBe("Legacy hello.");
    rig.llm.script([{ text: "stalled", stall: true }]);
    const working = asTask(await client.sendMessage(userMessage("wait", { returnImmediately: true })));
    expect(working.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect((await client.cancelTask(CancelTaskRequest.fromJSON({ id: working.id }))).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
    await expect(client.getTask(GetTaskRequest.fromJSON({ id: "missing" }))).rejects.toMatchObject({
      envelopeCode: -32001,
    });
  }, 30_000);
});
