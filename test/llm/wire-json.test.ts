/**
 * Request bodies written from each message's JSON, made once per message object
 * (src/llm/wire-json.ts): the same history sent twice reads the same on both wires, a message
 * that is not frozen is written as it is now, and the history the turn log hands out is frozen,
 * so a kept JSON can never go stale.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createAnthropic } from "../../src/llm/anthropic.ts";
import { createOpenAI } from "../../src/llm/openai.ts";
import type { ChatMessage, LanguageModel } from "../../src/llm/types.ts";
import { withJsonArray } from "../../src/llm/wire-json.ts";
import { Store } from "../../src/store/store.ts";
import { TurnLog } from "../../src/memory/turn-log.ts";
import { collect, startFakeLlm, type FakeLlm } from "../harness/fake-llm.ts";
import { tempDir } from "../harness/binary.ts";
import { join } from "node:path";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.stop();
});

const SHA = "c".repeat(64);
const history: ChatMessage[] = (<ChatMessage[]>[
  { role: "system", content: "be brief" },
  { role: "user", content: "my bike is a red Brompton — 折叠车" },
  { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "note", arguments: '{"text":"bike"}' }] },
  { role: "tool", toolCallId: "call_1", name: "note", content: "saved" },
  { role: "assistant", content: "Noted." },
]).map((m) => Object.freeze(m));
const withImage = (data: string): Extract<ChatMessage, { role: "user" }> => ({
  role: "user",
  content: "and this one?",
  images: [{ sha256: SHA, mime: "image/png", data }],
});

const providers: [string, () => LanguageModel][] = [
  ["openai", () => createOpenAI({ kind: "openai", baseURL: llm.url, model: "m", apiKey: "k" })],
  ["anthropic", () => createAnthropic({ kind: "anthropic", baseURL: llm.url, model: "m", apiKey: "k" })],
];

describe("request bodies from kept message JSON", () => {
  for (const [name, make] of providers) {
    test(`${name}: frozen history twice reads the same; a message not frozen is sent as it is now`, async () => {
      llm.script([{ text: "a" }, { text: "b" }]);
      const model = make();
      const image = withImage("AAAA");
      const input: Extract<ChatMessage, { role: "user" }> = { role: "user", content: "first words" };
      await collect(model.stream({ messages: [...history, image, input] }));
      image.images = [{ sha256: SHA, mime: "image/png", data: "BBBB" }];
      input.content = "second words";
      await collect(model.stream({ messages: [...history, image, input] }));
      const [first, second] = llm.requests.map((r) => JSON.stringify(r.body.messages));
      expect(first).toContain("AAAA");
      expect(first).toContain("first words");
      expect(second).toContain("BBBB");
      expect(second).toContain("second words");
      expect(second).not.toContain("AAAA");
      expect(second?.replace("BBBB", "AAAA").replace("second", "first")).toBe(first);
      expect(first).toContain("折叠车");
    });
  }

  test("withJsonArray puts the array last, after any other property, and parses back", () => {
    const json = withJsonArray({ model: "m", stream: true }, "messages", ['{"role":"user","content":"é…"}']);
    expect(json).toBe('{"model":"m","stream":true,"messages":[{"role":"user","content":"é…"}]}');
    expect(JSON.parse(withJsonArray({}, "messages", []))).toEqual({ messages: [] });
  });

  test("the turn log's history messages are frozen, tool calls included", () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    const conv = "c";
    store.beginTurn("t1", conv, "test");
    store.append({ conv, actor: "user", kind: "user-message", body: { turn: "t1", text: "hi" } });
    const call = { id: "call_1", name: "note", arguments: "{}" };
    store.append({ conv, actor: "agent", kind: "model-output", body: { turn: "t1", text: "", toolCalls: [call] } });
    store.append({
      conv,
      actor: "tool",
      kind: "tool-result",
      body: { turn: "t1", callId: "call_1", name: "note", status: "ok", content: "done" },
    });
    store.append({ conv, actor: "agent", kind: "model-output", body: { turn: "t1", text: "ok" } });
    const log = new TurnLog(store, null);
    const [turn] = log.turns(conv);
    const msgs = log.messages(turn as NonNullable<typeof turn>).msgs;
    expect(msgs.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    for (const m of msgs) expect(Object.isFrozen(m)).toBe(true);
    const calling = msgs[1] as Extract<ChatMessage, { role: "assistant" }>;
    expect(Object.isFrozen(calling.toolCalls)).toBe(true);
    expect(Object.isFrozen(calling.toolCalls?.[0])).toBe(true);
    expect(() => {
      (msgs[0] as { content: string }).content = "changed";
    }).toThrow(TypeError);
    store.close();
  });
});
