/**
 * One person, one memory, through the real daemon and a fake model: a fact told in one trusted
 * conversation (web) is quoted into another (CLI); an untrusted conversation (a group chat
 * relayed by a bridge) recalls only itself; `[memory] recall_untrusted` admits untrusted events
 * into trusted recall, marked with their source; the memory_search tool peeks and brings back
 * within the same scope; the web API's search sees what the person may see. What the model
 * received is read from the fake model's recorded requests. One look is white-box: access
 * counts are read from `event_state` (read-only) because no public surface shows them yet.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { type AgentRig, startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { connectUnixRpc } from "../../src/ipc/unix-rpc.ts";

const quiet = { warn: () => {}, debug: () => {} };
type Sent = { role: string; content: string | null; tool_call_id?: string }[];

const sentOf = (rig: AgentRig, i = -1) => (rig.llm.requests.at(i)!.body as { messages: Sent }).messages;
const noteOf = (msgs: Sent) =>
  msgs.find((m) => m.role === "system" && (m.content ?? "").startsWith("From your other conversations"))?.content ??
  null;

/** A turn over the control socket, as a channel would send it (channel and trust chosen). */
async function send(rig: AgentRig, text: string, conv: string, channel: string, untrusted = false) {
  const c = await connectUnixRpc(rig.daemon.socket, quiet, { onRequest: () => ({ approved: false }) });
  try {
    return (await c.peer.request("chat.send", { text, conv, channel, untrusted })) as { text: string };
  } finally {
    c.close();
  }
}

/** Two conversations told something: a trusted web chat and an untrusted group chat. */
async function tell(rig: AgentRig) {
  rig.llm.script([{ text: "Noted." }, { text: "ok" }]);
  await send(rig, "Remember this: my climbing gym locker code is 4471.", "web-1", "web");
  await send(rig, "The climbing gym wifi password is swordfish, write it down.", "group-1", "qq", true);
}

async function search(rig: AgentRig, q: string) {
  const url = await webUrlOf(rig.daemon);
  const res = await fetch(`${url}/api/memory/search?q=${encodeURIComponent(q)}`, { headers: { "x-homed": "1" } });
  return { status: res.status, body: (await res.json()) as { conv: string; text: string; untrusted: boolean }[] };
}

describe("one person, one memory", () => {
  test("default: trusted conversations recall trusted ones; untrusted ones recall only themselves", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    await tell(rig);

    // A CLI chat, another day: the web chat's fact is quoted with its time and source.
    rig.llm.script([{ text: "It is 4471." }]);
    expect((await rig.chat("what is my climbing gym locker code?", { conv: "cli-2" })).exitCode).toBe(0);
    const note = noteOf(sentOf(rig));
    expect(note).toContain("my climbing gym locker code is 4471");
    expect(note).toMatch(/\[\d{4}-\d\d-\d\d \d\d:\d\d UTC · web conversation web-1\] user:/);
    // The untrusted group chat is not recalled by default.
    expect(note).not.toContain("swordfish");

    // An untrusted conversation recalls nothing from the others.
    rig.llm.script([{ text: "I don't know." }]);
    await send(rig, "what is the climbing gym locker code?", "group-2", "qq", true);
    const group = sentOf(rig);
    expect(noteOf(group)).toBeNull();
    expect(JSON.stringify(group)).not.toContain("4471");

    // The /v1 API on loopback is a trusted surface too.
    const url = await webUrlOf(rig.daemon);
    rig.llm.script([{ text: "Noted." }, { text: "It ends in 8812." }]);
    const v1 = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        user: "alice",
        messages: [{ role: "user", content: "My passport number ends in 8812." }],
      }),
    });
    expect(v1.status).toBe(200);
    await rig.chat("what does my passport number end in?", { conv: "cli-6" });
    expect(noteOf(sentOf(rig))).toContain("api conversation api:alice] user: My passport number ends in 8812.");

    // The search box sees the trusted conversations only.
    const found = await search(rig, "climbing gym");
    expect(found.status).toBe(200);
    expect(found.body.map((h) => h.conv)).toContain("web-1");
    expect(found.body.some((h) => h.text.includes("swordfish"))).toBe(false);
    expect((await search(rig, "xylophone")).body).toEqual([]);
  }, 60_000);

  test("recall_untrusted = true: untrusted events are recalled too, with their source, marked untrusted", async () => {
    using dir = tempDir();
    await Bun.write(join(dir.path, "config.toml"), "[memory]\nrecall_untrusted = true\n");
    await using rig = await startAgentRig(dir.path, { plugin: false });
    await tell(rig);

    rig.llm.script([{ text: "swordfish" }]);
    expect((await rig.chat("what is the climbing gym wifi password?", { conv: "cli-3" })).exitCode).toBe(0);
    const note = noteOf(sentOf(rig));
    expect(note).toContain("qq conversation group-1 · untrusted] user: The climbing gym wifi password is swordfish");

    // Still, an untrusted conversation sees only itself.
    rig.llm.script([{ text: "?" }]);
    await send(rig, "what is my climbing gym locker code?", "group-3", "qq", true);
    expect(JSON.stringify(sentOf(rig))).not.toContain("4471");

    const found = await search(rig, "climbing gym wifi password");
    expect(found.body.find((h) => h.text.includes("swordfish"))?.untrusted).toBe(true);
  }, 60_000);

  test("memory_search: peek, then bring back by id; the scope holds; bad arguments get a clear error", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    await tell(rig);
    expect((await rig.status()).tools.map((t) => t.name)).toContain("memory_search");

    // Peek: candidates with id, time, conversation, score and snippet.
    rig.llm.script([
      { toolCalls: [{ name: "memory_search", arguments: { query: "climbing gym locker code" } }] },
      { text: "Found it." },
    ]);
    await rig.chat("look it up", { conv: "cli-4" });
    const peek = sentOf(rig).find((m) => m.role === "tool")?.content ?? "";
    expect(peek).toMatch(
      /^- id (\d+) · \d{4}-\d\d-\d\d \d\d:\d\d UTC · web conversation web-1 · score 1\.00 · user: Remember this: my climbing gym locker code is 4471\./m,
    );
    expect(peek).not.toContain("swordfish");
    const id = Number(/- id (\d+) · [^\n]*locker code is 4471/.exec(peek)![1]);
    // The peek counted an access (for cooling) and moved nothing.
    const db = new Database(join(rig.data, "homed.db"), { readonly: true });
    const state = db.query<{ layer: number; accesses: number }, [number]>(
      "SELECT layer, accesses FROM event_state WHERE event_id = ?",
    );
    expect(state.get(id)).toEqual({ layer: 1, accesses: 1 });

    // Bring back: the event is in the next model call of the same turn, and the memory page says so.
    rig.llm.script([
      { toolCalls: [{ name: "memory_search", arguments: { ids: [id] } }] },
      { text: "Your code is 4471." },
    ]);
    await rig.chat("bring it back", { conv: "cli-4" });
    const next = sentOf(rig);
    expect(next.at(-1)?.role).toBe("tool");
    expect(next.at(-1)?.content).toContain("Brought back 1 event from memory");
    expect(next.at(-1)?.content).toContain(`[id ${id} · `);
    expect(next.at(-1)?.content).toContain("my climbing gym locker code is 4471");
    const url = await webUrlOf(rig.daemon);
    const ctx = (await (await fetch(`${url}/api/context/cli-4`, { headers: { "x-homed": "1" } })).json()) as {
      brought: { id: number; conv: string }[];
    };
    expect(ctx.brought.map((e) => [e.id, e.conv])).toEqual([[id, "web-1"]]);
    // Brought into another conversation: quoted, an access counted, its own layer kept.
    expect(state.get(id)).toEqual({ layer: 1, accesses: 2 });
    db.close();

    // An untrusted conversation may not bring back another conversation's event.
    rig.llm.script([{ toolCalls: [{ name: "memory_search", arguments: { ids: [id] } }] }, { text: "no" }]);
    await send(rig, "show me", "group-4", "qq", true);
    const refused = sentOf(rig).at(-1)?.content ?? "";
    expect(refused).toContain(`error: no event this conversation may see has id ${id}`);
    expect(refused).not.toContain("4471");

    // Both, neither, or nonsense: an error the model can act on.
    rig.llm.script([
      {
        toolCalls: [
          { name: "memory_search", arguments: { query: "x", ids: [id] } },
          { name: "memory_search", arguments: {} },
          { name: "memory_search", arguments: { ids: ["seven"] } },
        ],
      },
      { text: "done" },
    ]);
    await rig.chat("bad calls", { conv: "cli-5" });
    const tools = sentOf(rig)
      .filter((m) => m.role === "tool")
      .map((m) => m.content ?? "");
    expect(tools[0]).toContain('error: give memory_search either "query" (to search) or "ids"');
    expect(tools[0]).toContain("not both");
    expect(tools[1]).toContain("not neither");
    expect(tools[2]).toContain("error: invalid arguments for memory_search");
  }, 60_000);

  test("memory_search brings this conversation's cold turns back to L1, and never moves another's", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const c = await connectUnixRpc(rig.daemon.socket, quiet);
    await c.peer.request("llm.set", {
      provider: "openai",
      baseURL: rig.llm.url,
      model: "test-model",
      contextWindow: 1024,
      maxOutputTokens: 64,
    });
    const filler = (i: number) => `${"sailing harbour mast wind knots ".repeat(12)} turn ${i}`;
    rig.llm.script([{ text: "ok" }]);
    // Large enough that pruning cannot keep it beside the newer, more relevant turns.
    await rig.chat(
      `My bike is a red Brompton folding bicycle. ${"gardening compost tomato seedling mulch ".repeat(40)}`,
      {
        conv: "tight",
      },
    );
    for (let i = 0; i < 8; i++) {
      rig.llm.script([{ text: `ok ${i}` }]);
      await rig.chat(filler(i), { conv: "tight" });
    }
    const peek = async () =>
      (await c.peer.request("memory.peek", { conv: "tight", text: "Brompton bicycle", k: 3 })) as {
        l2: number;
        candidates: { id: number; preview: string }[];
      };
    const before = await peek();
    const cold = before.candidates.find((x) => x.preview.includes("red Brompton"));
    expect(cold).toBeDefined();

    // Brought into another conversation, it is quoted there and stays cold in its own.
    rig.llm.script([{ toolCalls: [{ name: "memory_search", arguments: { ids: [cold!.id] } }] }, { text: "Red." }]);
    await rig.chat("what bike do I have?", { conv: "elsewhere" });
    expect(sentOf(rig).at(-1)?.content).toContain("My bike is a red Brompton folding bicycle.");
    const still = await peek();
    expect(still.l2).toBe(before.l2);
    expect(still.candidates.some((x) => x.id === cold!.id)).toBe(true);

    // Brought back in its own conversation, its turn leaves L2.
    rig.llm.script([{ toolCalls: [{ name: "memory_search", arguments: { ids: [cold!.id] } }] }, { text: "Red." }]);
    await rig.chat("sailing again", { conv: "tight" });
    const after = await peek();
    expect(after.candidates.some((x) => x.id === cold!.id)).toBe(false);
    expect(after.l2).toBeLessThan(before.l2);
    c.close();
  }, 60_000);
});
