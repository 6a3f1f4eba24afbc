/**
 * The Anthropic Messages provider against the fake LLM over real HTTP: the event sequence it
 * decodes, the request it builds (system, tool_use, grouped tool_result), and its failures.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createAnthropic } from "../../src/llm/anthropic.ts";
import type { ChatMessage, ChatRequest, ProviderSettings, StreamEvent } from "../../src/llm/types.ts";
import { collect, errorOf, finishOf, startFakeLlm, textOf, type FakeLlm } from "../harness/fake-llm.ts";

const KEY = "sk-ant-test-SECRET-9876543210";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.stop();
});

function model(extra: Partial<ProviderSettings> = {}) {
  return createAnthropic({ kind: "anthropic", baseURL: llm.origin, model: "claude-test", apiKey: KEY, ...extra });
}

const hello: ChatRequest = { messages: [{ role: "user", content: "hello" }] };

function sse(...events: Record<string, unknown>[]): string {
  return events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

describe("anthropic streaming", () => {
  test("text arrives as deltas in order, then usage, then finish stop", async () => {
    llm.script([{ text: "Bonjour tout le monde", usage: { input: 40, output: 5 } }]);
    const events = await collect(model().stream(hello));
    expect(events).toEqual([
      { type: "text-delta", text: "Bonjour" },
      { type: "text-delta", text: " tout l" },
      { type: "text-delta", text: "e monde" },
      { type: "usage", usage: { inputTokens: 40, outputTokens: 5 } },
      { type: "finish", stopReason: "stop" },
    ]);
  });

  test("max_tokens maps to length", async () => {
    llm.script([{ text: "cut", finish: "length" }]);
    expect(finishOf(await collect(model().stream(hello))).stopReason).toBe("length");
  });

  test("a single tool_use block becomes one whole tool-call", async () => {
    llm.script([{ toolCalls: [{ id: "toolu_1", name: "read_file", arguments: { path: "/etc/hosts" } }] }]);
    const events = await collect(model().stream(hello));
    expect(events.filter((e) => e.type === "tool-call")).toEqual([
      { type: "tool-call", call: { id: "toolu_1", name: "read_file", arguments: '{"path":"/etc/hosts"}' } },
    ]);
    expect(finishOf(events).stopReason).toBe("tool_calls");
  });

  test("parallel tool_use blocks after text, partial_json accumulated per block", async () => {
    llm.script([
      {
        text: "Checking both.",
        toolCalls: [
          { name: "weather", arguments: { city: "Paris", unit: "celsius" } },
          { name: "weather", arguments: { city: "Tokyo", unit: "kelvin" } },
        ],
        usage: { input: 100, output: 30 },
      },
    ]);
    const events = await collect(model().stream(hello));
    expect(textOf(events)).toBe("Checking both.");
    expect(events.flatMap((e) => (e.type === "tool-call" ? [e.call] : []))).toEqual([
      { id: "toolu_fake_0", name: "weather", arguments: '{"city":"Paris","unit":"celsius"}' },
      { id: "toolu_fake_1", name: "weather", arguments: '{"city":"Tokyo","unit":"kelvin"}' },
    ]);
    expect(events.filter((e) => e.type === "usage")).toEqual([
      { type: "usage", usage: { inputTokens: 100, outputTokens: 30 } },
    ]);
    expect(events.map((e) => e.type).slice(-4)).toEqual(["tool-call", "tool-call", "usage", "finish"]);
  });

  test("a tool call with no input deltas has arguments {}", async () => {
    llm.script([{ toolCalls: [{ name: "clock", arguments: "" }] }]);
    const events = await collect(model().stream(hello));
    expect(events.find((e) => e.type === "tool-call")).toMatchObject({ call: { name: "clock", arguments: "{}" } });
  });

  test("input usage includes cached prompt tokens, and says how many were read from the cache", async () => {
    const body = sse(
      {
        type: "message_start",
        message: {
          usage: { input_tokens: 5, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000, output_tokens: 1 },
        },
      },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 9 } },
      { type: "message_stop" },
    );
    llm.script([{ status: 200, body }]);
    const events = await collect(model().stream(hello));
    expect(events).toEqual([
      { type: "usage", usage: { inputTokens: 1105, outputTokens: 9, cachedInputTokens: 1000 } },
      { type: "finish", stopReason: "stop" },
    ]);
  });

  test("unknown event types and thinking blocks are skipped", async () => {
    const body = sse(
      { type: "message_start", message: { usage: { input_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "hmm" } },
      { type: "content_block_stop", index: 0 },
      { type: "some_future_event", x: 1 },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "answer" } },
      { type: "content_block_stop", index: 1 },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } },
      { type: "message_stop" },
    );
    llm.script([{ status: 200, body }]);
    const events = await collect(model().stream(hello));
    expect(events.map((e) => e.type)).toEqual(["text-delta", "usage", "finish"]);
    expect(textOf(events)).toBe("answer");
  });
});

describe("anthropic request", () => {
  test("system lifted out, tool calls as tool_use, consecutive results as one user turn", async () => {
    llm.script([{ text: "ok" }]);
    await collect(
      model().stream({
        messages: [
          { role: "system", content: "You are terse." },
          { role: "system", content: "Answer in French." },
          { role: "user", content: "Weather in Paris and Tokyo?" },
          {
            role: "assistant",
            content: "Looking.",
            toolCalls: [
              { id: "toolu_a", name: "weather", arguments: '{"city":"Paris"}' },
              { id: "toolu_b", name: "weather", arguments: '{"city": Tok' },
            ],
          },
          { role: "tool", toolCallId: "toolu_a", name: "weather", content: "18C" },
          { role: "tool", toolCallId: "toolu_b", name: "weather", content: "invalid arguments", isError: true },
          { role: "assistant", content: "Paris: 18C." },
          { role: "user", content: "Merci" },
        ],
        tools: [
          {
            name: "weather",
            description: "Current weather",
            parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          },
        ],
      }),
    );
    const req = llm.requests[0]!;
    expect(req.path).toBe("/v1/messages");
    expect(req.body).toEqual({
      model: "claude-test",
      max_tokens: 4096,
      stream: true,
      // The first system message (homed's own prompt) ends the prefix the provider may cache.
      system: [
        { type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } },
        { type: "text", text: "Answer in French." },
      ],
      messages: [
        { role: "user", content: "Weather in Paris and Tokyo?" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Looking." },
            { type: "tool_use", id: "toolu_a", name: "weather", input: { city: "Paris" } },
            { type: "tool_use", id: "toolu_b", name: "weather", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_a", content: "18C", is_error: false },
            { type: "tool_result", tool_use_id: "toolu_b", content: "invalid arguments", is_error: true },
          ],
        },
        { role: "assistant", content: "Paris: 18C." },
        { role: "user", content: "Merci" },
      ],
      tools: [
        {
          name: "weather",
          description: "Current weather",
          input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      ],
    });
  });

  test("a conversation's requests one after another: turns reused, changed ones and merged neighbours written anew", async () => {
    llm.script([{ text: "ok" }, { text: "ok" }, { text: "ok" }]);
    const call: ChatMessage = {
      role: "assistant",
      content: "",
      toolCalls: [{ id: "toolu_1", name: "clock", arguments: "{}" }],
    };
    const result: ChatMessage = { role: "tool", toolCallId: "toolu_1", name: "clock", content: "12:00" };
    const past: ChatMessage[] = [
      { role: "user", content: "Time?" },
      call,
      result,
      { role: "assistant", content: "Noon." },
    ];
    const send = async (system: string, messages: ChatMessage[]) => {
      await collect(model().stream({ messages: [{ role: "system", content: system }, ...messages] }));
      return llm.requests.at(-1)?.body as { system: unknown; messages: unknown[] };
    };
    const first = [
      { role: "user", content: "Time?" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "clock", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "12:00", is_error: false }] },
      { role: "assistant", content: "Noon." },
    ];
    expect((await send("Be brief.", past)).messages).toEqual(first);
    // The same turns again, one more said: the old ones as before.
    const two = await send("Be brief.", [...past, { role: "user", content: "Thanks — 谢谢" }]);
    expect(two).toMatchObject({
      system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
      messages: [...first, { role: "user", content: "Thanks — 谢谢" }],
    });
    // The result replaced by a failed one, and a user message right after it: one user turn.
    const failed: ChatMessage = { ...result, content: "clock broke", isError: true } as ChatMessage;
    const three = await send("Be briefer.", [
      past[0] as ChatMessage,
      call,
      failed,
      { role: "user", content: "Retry?" },
    ]);
    expect(three).toMatchObject({
      system: [{ type: "text", text: "Be briefer.", cache_control: { type: "ephemeral" } }],
      messages: [
        first[0],
        first[1],
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: "clock broke", is_error: true },
            { type: "text", text: "Retry?" },
          ],
        },
      ],
    });
  });

  test("an assistant turn of only tool calls has no empty text block; maxOutputTokens is max_tokens", async () => {
    llm.script([{ text: "ok" }]);
    await collect(
      model().stream({
        messages: [
          { role: "user", content: "time?" },
          { role: "assistant", content: "", toolCalls: [{ id: "t1", name: "clock", arguments: "" }] },
          { role: "tool", toolCallId: "t1", name: "clock", content: "12:00" },
        ],
        maxOutputTokens: 77,
      }),
    );
    const body = llm.requests[0]!.body;
    expect(body.max_tokens).toBe(77);
    expect(body.messages).toEqual([
      { role: "user", content: "time?" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "clock", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "12:00", is_error: false }] },
    ]);
    expect(body).not.toHaveProperty("system");
    expect(body).not.toHaveProperty("tools");
  });

  test("headers: x-api-key, anthropic-version, content-type; no Authorization", async () => {
    llm.script([{ text: "ok" }]);
    await collect(model().stream(hello));
    const h = llm.requests[0]!.headers;
    expect(h["x-api-key"]).toBe(KEY);
    expect(h["anthropic-version"]).toBe("2023-06-01");
    expect(h["content-type"]).toBe("application/json");
    expect(h).not.toHaveProperty("authorization");
  });

  test("a base URL ending in /v1 (or /v1/) is not doubled", async () => {
    llm.script([{ text: "a" }, { text: "b" }]);
    await collect(model({ baseURL: `${llm.origin}/v1` }).stream(hello));
    await collect(model({ baseURL: `${llm.origin}/v1/` }).stream(hello));
    expect(llm.requests.map((r) => r.path)).toEqual(["/v1/messages", "/v1/messages"]);
  });
});

describe("anthropic failures end the stream, never throw", () => {
  test("401: auth error that says the key was rejected, quotes the provider, hides the key", async () => {
    llm.script([
      {
        status: 401,
        body: { type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${KEY}` } },
      },
    ]);
    const err = errorOf(await collect(model().stream(hello)));
    expect(err.kind).toBe("auth");
    expect(err.message).toContain("rejected the API key");
    expect(err.message).toContain("invalid x-api-key");
    expect(err.message).not.toContain(KEY);
  });

  test("404: model_not_found naming the model", async () => {
    llm.script([{ status: 404 }]);
    const err = errorOf(await collect(model({ model: "claude-nope" }).stream(hello)));
    expect(err.kind).toBe("model_not_found");
    expect(err.message).toContain('"claude-nope"');
  });

  test("429 and 529 are retryable, 400 is not", async () => {
    llm.script([{ status: 429 }, { status: 529 }, { status: 400 }]);
    const kinds: [string, boolean][] = [];
    for (let i = 0; i < 3; i++) {
      const err = errorOf(await collect(model().stream(hello)));
      kinds.push([err.kind, err.retryable]);
    }
    expect(kinds).toEqual([
      ["rate_limit", true],
      ["server", true],
      ["bad_request", false],
    ]);
  });

  test("an overloaded_error event mid-stream: retryable server error", async () => {
    const body = sse(
      { type: "message_start", message: { usage: { input_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } },
      { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    );
    llm.script([{ status: 200, body }]);
    const events = await collect(model().stream(hello));
    expect(textOf(events)).toBe("Hel");
    const err = errorOf(events);
    expect(err.kind).toBe("server");
    expect(err.retryable).toBe(true);
    expect(err.message).toContain("Overloaded");
  });

  test("malformed JSON mid-stream: the text so far, then bad_response", async () => {
    llm.script([{ malformed: true, text: "partial answer" }]);
    const events = await collect(model().stream(hello));
    expect(events[0]).toEqual({ type: "text-delta", text: "parti" });
    expect(errorOf(events).kind).toBe("bad_response");
  });

  test("a stream that ends before stop_reason and message_stop is a bad_response", async () => {
    const body = sse(
      { type: "message_start", message: { usage: { input_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t", name: "f", input: {} } },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"a":' } },
    );
    llm.script([{ status: 200, body }]);
    const events = await collect(model().stream(hello));
    expect(events.filter((e) => e.type === "tool-call")).toEqual([]);
    const err = errorOf(events);
    expect(err.kind).toBe("bad_response");
    expect(err.message).toContain("ended early");
  });

  test("hang: timeout after idleTimeoutMs", async () => {
    llm.script([{ hang: true }]);
    const err = errorOf(await collect(model({ idleTimeoutMs: 150 }).stream(hello)));
    expect(err.kind).toBe("timeout");
    expect(err.retryable).toBe(true);
  });

  test("a dropped connection mid-stream: the text so far, then a retryable network error", async () => {
    llm.script([{ drop: true, text: "dropped soon" }]);
    const events = await collect(model().stream(hello));
    expect(events[0]).toEqual({ type: "text-delta", text: "drop" });
    const err = errorOf(events);
    expect(err.kind).toBe("network");
    expect(err.retryable).toBe(true);
  });

  test("abort mid-stream ends with aborted", async () => {
    llm.script([{ text: "never finishes", stall: true }]);
    const ac = new AbortController();
    const events: StreamEvent[] = [];
    for await (const ev of model().stream(hello, ac.signal)) {
      events.push(ev);
      if (ev.type === "text-delta") ac.abort();
    }
    expect(events.map((e) => e.type)).toEqual(["text-delta", "finish"]);
    expect(finishOf(events)).toMatchObject({ stopReason: "aborted", error: { kind: "aborted" } });
  });
});
