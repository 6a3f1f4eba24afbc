/**
 * Scenes through the real daemon (dist/homed), the control socket and the web API: a declared
 * scene appears on its second turn with its strength and members; the owner's settings apply
 * to the next turn (persona in the system prompt, only its tools offered, a call outside them
 * refused) and never widen the approval policy; memories of the active scene rank first in
 * recall from other conversations and in memory_search, while an untrusted turn of the same
 * scene recalls nothing from elsewhere. What the model received is read from the fake model's recorded requests.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { type AgentRig, startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { connectUnixRpc } from "../../src/ipc/unix-rpc.ts";

const quiet = { warn: () => {}, debug: () => {} };
type Sent = { role: string; content: string | null; tool_call_id?: string }[];
type Req = { messages: Sent; tools?: { function: { name: string } }[] };
const lastReq = (rig: AgentRig, i = -1) => rig.llm.requests.at(i)!.body as Req;
const noteOf = (msgs: Sent) =>
  msgs.find((m) => m.role === "system" && (m.content ?? "").startsWith("From your other conversations"))?.content ??
  null;

async function send(
  rig: AgentRig,
  text: string,
  conv: string,
  o: { scene?: string; channel?: string; untrusted?: boolean } = {},
) {
  const c = await connectUnixRpc(rig.daemon.socket, quiet, { onRequest: () => ({ approved: false }) });
  try {
    const params = {
      text,
      conv,
      channel: o.channel ?? "a2a",
      untrusted: o.untrusted ?? false,
      ...(o.scene ? { scene: o.scene } : {}),
    };
    return (await c.peer.request("chat.send", params)) as { text: string };
  } finally {
    c.close();
  }
}

interface Scene {
  id: number;
  key: string;
  parentKey: string;
  strength: number;
  members: number;
  settings: { persona: string; tools: string[] | null };
}

async function web<T>(rig: AgentRig, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const url = await webUrlOf(rig.daemon);
  const res = await fetch(`${url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "x-homed": "1", ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

const BOB = "chan:a2a/peer:bob";

describe("scenes in turns", () => {
  test("a declared scene appears on its second turn; its settings narrow the next turn and never widen the policy", async () => {
    using dir = tempDir();
    await Bun.write(join(dir.path, "config.toml"), '[approval]\ndeny = ["memory_search"]\n');
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([{ text: "Hello Bob." }, { text: "Hi again." }]);
    await send(rig, "Weekly sync with Bob: status of the garden project", "call-1", { scene: BOB });
    expect((await web<Scene[]>(rig, "/api/scenes")).body.filter((s) => s.key === BOB)).toEqual([]);
    await send(rig, "Weekly sync with Bob: the garden project again", "call-2", { scene: BOB });
    const list = await web<Scene[]>(rig, "/api/scenes");
    expect(list.status).toBe(200);
    const bob = list.body.find((s) => s.key === BOB);
    expect(bob?.members).toBe(2);
    expect(bob?.strength).toBeGreaterThan(1.99);
    const detail = await web<Scene & { recent: { conv: string }[] }>(rig, `/api/scenes/${bob?.id}`);
    expect(detail.body.recent.map((m) => m.conv).sort()).toEqual(["call-1", "call-2"]);

    const saved = await web<Scene>(rig, `/api/scenes/${bob?.id}`, {
      persona: "Speak like a ship's captain.",
      tools: ["memory_search"],
    });
    expect(saved.status).toBe(200);
    expect(saved.body.settings).toEqual({ persona: "Speak like a ship's captain.", tools: ["memory_search"] });
    expect((await web<{ error: string }>(rig, "/api/scenes/999999")).status).toBe(404);
    expect((await web<{ error: string }>(rig, `/api/scenes/${bob?.id}`, { persona: 5 })).status).toBe(422);

    rig.llm.script([
      {
        toolCalls: [
          { name: "memory_search", arguments: { query: "garden" } },
          { name: "agent_spawn", arguments: { task: "look around" } },
        ],
      },
      { text: "Aye." },
    ]);
    await send(rig, "Weekly sync with Bob: what is left on the garden project?", "call-3", { scene: BOB });
    const first = lastReq(rig, -2);
    // The persona is said just before the input, with what changes per turn; the system prompt
    // the provider caches stays as it was.
    const persona = first.messages.findIndex((m) => m.content === "Speak like a ship's captain.");
    expect(first.messages[persona]?.role).toBe("system");
    expect(first.messages.slice(persona + 1).every((m) => m.role === "system" || m === first.messages.at(-1))).toBe(
      true,
    );
    expect(first.messages[0]?.content).not.toContain("captain");
    expect((first.tools ?? []).map((t) => t.function.name)).toEqual(["memory_search"]);
    const results = lastReq(rig)
      .messages.filter((m) => m.role === "tool")
      .map((m) => m.content ?? "");
    // The scene allows memory_search, the policy denies it: denied. agent_spawn is outside the scene.
    expect(results[0]).toMatch(/^denied/);
    expect(results[1]).toContain("agent_spawn is not one of the tools this turn may use: memory_search");

    // Another scene's turn is not narrowed: a tool outside Bob's list is offered.
    rig.llm.script([{ text: "ok" }]);
    await send(rig, "hello", "cli-1", { channel: "cli", scene: "chan:cli/peer:owner" });
    expect((lastReq(rig).tools ?? []).map((t) => t.function.name)).toContain("tools_find");
    expect(JSON.stringify(lastReq(rig).messages)).not.toContain("captain");
  }, 60_000);

  test("memories of the active scene rank first in recall; an untrusted turn of the scene recalls nothing from elsewhere", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const rooms = ["Alpha", "Beta", "Gamma", "Delta"];
    rig.llm.script([...rooms, "x", "y"].map(() => ({ text: "Noted." })));
    for (const r of rooms)
      await send(rig, `The meeting room for the call is ${r}, the meeting room booked.`, `web-${r}`, {
        channel: "web",
      });
    await send(rig, "Bob's call this week: the meeting room is Zeta.", "call-1", { scene: BOB });
    await send(rig, "Bob's call: agenda is the garden budget.", "call-2", { scene: BOB });

    // Outside the scene, the better lexical matches fill the three quotes.
    rig.llm.script([{ text: "?" }, { text: "Zeta." }, { text: "?" }]);
    await send(rig, "which meeting room for the call?", "cli-9", { channel: "cli" });
    const outside = noteOf(lastReq(rig).messages) ?? "";
    expect(outside).not.toContain("Zeta");
    expect(outside.split("\n").length).toBe(4);
    // In Bob's scene, its memory comes first.
    await send(rig, "which meeting room for the call?", "call-3", { scene: BOB });
    expect(noteOf(lastReq(rig).messages)).toContain("the meeting room is Zeta");
    // The same scene from an untrusted turn: its own conversation only, no note at all.
    await send(rig, "which meeting room for the call?", "call-4", { scene: BOB, untrusted: true });
    const untrusted = lastReq(rig).messages;
    expect(noteOf(untrusted)).toBeNull();
    expect(JSON.stringify(untrusted)).not.toContain("Zeta");

    // memory_search ranks the same way: the scene's memory among the best three in the scene only.
    const search = { name: "memory_search", arguments: { query: "the meeting room for the call", k: 3 } };
    const searched = async (conv: string, scene?: string) => {
      rig.llm.script([{ toolCalls: [search] }, { text: "ok" }]);
      await send(rig, "which meeting room?", conv, scene ? { scene } : { channel: "cli" });
      const result = lastReq(rig).messages.find((m) => m.role === "tool")?.content ?? "";
      return result.split("\n").slice(1);
    };
    // (The questions asked before match best in both: the boost orders what matches alike.)
    const inScene = await searched("call-5", BOB);
    expect(inScene).toHaveLength(3);
    expect(inScene.join("\n")).toContain("the meeting room is Zeta");
    const elsewhere = await searched("cli-10");
    expect(elsewhere).toHaveLength(3);
    expect(elsewhere.join("\n")).not.toContain("Zeta");
  }, 60_000);
});
