/**
 * A prefix the provider can cache: each request of a conversation begins as the previous one did
 * (system prompt, tool definitions, the history), and what changes per turn — the note from other
 * conversations, a scene's persona, what plugins inject — comes after the history, just before
 * the input. Through dist/homed with the scripted model for both wire formats; the wire details
 * (Anthropic's breakpoints, OpenAI's prompt_cache_key) against the provider code directly.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { createAnthropic } from "../../src/llm/anthropic.ts";
import { createOpenAI } from "../../src/llm/openai.ts";
import type { ChatRequest } from "../../src/llm/types.ts";
import { collect } from "../harness/fake-llm.ts";

interface Body {
  tools?: unknown[];
  max_tokens?: number;
  system?: { text: string; cache_control?: unknown }[];
  messages: { role: string; content: unknown }[];
}

const NOTE = "From your other conversations";

describe("a conversation's requests", () => {
  test("openai: each begins with the one before, less what changed per turn; the note comes just before the input", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([{ text: "Nice bike!" }]);
    await rig.chat("My bike is a red Gazelle I bought in Utrecht.", { conv: "other" });
    // Long enough from the first turn for a provider to cache (src/agent/tool-offer.ts MIN_CACHED_TOKENS).
    const diary = `Hello there. My diary, for the record: ${"a quiet day at home, some reading. ".repeat(150)}`;
    const turns = [diary, "Where did I buy my bike?", "Thanks, and the colour?"];
    const bodies: Body[] = [];
    for (const t of turns) {
      rig.llm.script([{ text: `Reply to: ${t}` }]);
      expect((await rig.chat(t, { conv: "c" })).exitCode).toBe(0);
      bodies.push(rig.llm.requests.at(-1)?.body as unknown as Body);
    }
    const [, second, third] = bodies as [Body, Body, Body];
    // The note from the other conversation is the message before the input, not after the system prompt.
    expect(second.messages.at(-1)).toEqual({ role: "user", content: "Where did I buy my bike?" });
    expect(String(second.messages.at(-2)?.content)).toStartWith(NOTE);
    expect(String(second.messages.at(-2)?.content)).toContain("Gazelle");
    expect(second.messages.filter((m) => String(m.content).startsWith(NOTE)).length).toBe(1);
    // Every request extends the previous one: the same tools, then the same messages up to where
    // the previous turn's own note and input were.
    for (let i = 1; i < bodies.length; i++) {
      const before = bodies[i - 1] as Body;
      const after = bodies[i] as Body;
      expect(after.tools).toEqual(before.tools);
      const kept = before.messages.filter((m) => !String(m.content).startsWith(NOTE));
      expect(after.messages.slice(0, kept.length)).toEqual(kept);
    }
    // The reply may take what the window leaves, up to the configured maximum (4096 by default).
    expect(third.max_tokens).toBe(4096);
  }, 60_000);

  test("anthropic: one system block with a breakpoint, another after the history, the note in the user's turn", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false, kind: "anthropic" });
    rig.llm.script([{ text: "Nice bike!" }]);
    await rig.chat("My bike is a red Gazelle I bought in Utrecht.", { conv: "other" });
    rig.llm.script([{ text: "Hello!" }]);
    await rig.chat("Hello there.", { conv: "c" });
    rig.llm.script([{ text: "In Utrecht." }]);
    await rig.chat("Where did I buy my bike?", { conv: "c" });
    const body = rig.llm.requests.at(-1)?.body as unknown as Body;
    // The note is not lifted into `system`: that would change what precedes the history.
    expect(body.system?.length).toBe(1);
    expect(body.system?.[0]?.cache_control).toEqual({ type: "ephemeral" });
    const [user1, assistant1, user2] = body.messages as { role: string; content: unknown }[];
    expect(user1).toEqual({ role: "user", content: "Hello there." });
    // The history's end is the second breakpoint: the next request extends it.
    expect(assistant1).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "Hello!", cache_control: { type: "ephemeral" } }],
    });
    const blocks = user2?.content as { type: string; text: string }[];
    expect(blocks.map((b) => b.type)).toEqual(["text", "text"]);
    expect(blocks[0]?.text).toStartWith(NOTE);
    expect(blocks[1]?.text).toBe("Where did I buy my bike?");
  }, 60_000);
});

describe("the wire", () => {
  /** What a provider was sent, with a stand-in for the network. */
  async function sent(kind: "openai" | "anthropic", baseURL: string, request: ChatRequest): Promise<Body> {
    let body = "";
    const fetch = (async (_url: string, init: { body: string | Uint8Array }) => {
      body = typeof init.body === "string" ? init.body : new TextDecoder().decode(init.body);
      return new Response("data: [DONE]\n\n", { headers: { "content-type": "text/event-stream" } });
    }) as unknown as typeof globalThis.fetch;
    const settings = { kind, baseURL, model: "m", apiKey: "k", fetch };
    await collect((kind === "openai" ? createOpenAI(settings) : createAnthropic(settings)).stream(request));
    return JSON.parse(body) as Body;
  }
  const request: ChatRequest = {
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello." },
      { role: "system", content: "Recalled: a note." },
      { role: "user", content: "And now?" },
    ],
    prefix: 3,
    cacheKey: "homed-abc",
  };

  test("openai: prompt_cache_key goes to OpenAI's own API only; the mid-conversation note stays a system message", async () => {
    const openai = (await sent("openai", "https://api.openai.com/v1", request)) as Body & { prompt_cache_key?: string };
    expect(openai.prompt_cache_key).toBe("homed-abc");
    expect(openai.messages[3]).toEqual({ role: "system", content: "Recalled: a note." });
    const local = (await sent("openai", "http://127.0.0.1:11434/v1", request)) as Body & { prompt_cache_key?: string };
    expect(local).not.toHaveProperty("prompt_cache_key");
  });

  test("anthropic: the breakpoint closes the prefix even inside a turn of one role", async () => {
    const body = await sent("anthropic", "https://api.anthropic.com", {
      ...request,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi" },
        { role: "user", content: "Are you there?" },
        { role: "system", content: "Recalled: a note." },
        { role: "user", content: "And now?" },
      ],
    });
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Hi" },
          { type: "text", text: "Are you there?", cache_control: { type: "ephemeral" } },
          { type: "text", text: "Recalled: a note." },
          { type: "text", text: "And now?" },
        ],
      },
    ]);
  });
});
