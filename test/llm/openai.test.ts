/**
 * The OpenAI-compatible provider against the fake LLM over real HTTP: what it streams back, what
 * it sends, and how every failure becomes the stream's final event.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createOpenAI } from "../../src/llm/openai.ts";
import type { ChatRequest, LlmErrorKind, ProviderSettings, StreamEvent } from "../../src/llm/types.ts";
import { collect, errorOf, finishOf, startFakeLlm, textOf, type FakeLlm } from "../harness/fake-llm.ts";

const KEY = "sk-test-SECRET-0123456789abcdef";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.stop();
});

function model(extra: Partial<ProviderSettings> = {}) {
  return createOpenAI({ kind: "openai", baseURL: llm.url, model: "gpt-test", apiKey: KEY, ...extra });
}

const hello: ChatRequest = { messages: [{ role: "user", content: "hello" }] };

describe("openai streaming", () => {
  test("text arrives as deltas in order, then usage, then finish stop", async () => {
    llm.script([{ text: "The quick brown fox jumps.", usage: { input: 21, output: 6 } }]);
    const events = await collect(model().stream(hello));
    expect(events).toEqual([
      { type: "text-delta", text: "The quick" },
      { type: "text-delta", text: " brown fo" },
      { type: "text-delta", text: "x jumps." },
      { type: "usage", usage: { inputTokens: 21, outputTokens: 6 } },
      { type: "finish", stopReason: "stop" },
    ]);
  });

  test("finish_reason length maps to length", async () => {
    llm.script([{ text: "cut", finish: "length" }]);
    expect(finishOf(await collect(model().stream(hello))).stopReason).toBe("length");
  });

  test("a single tool call arrives whole, once, with its raw arguments", async () => {
    llm.script([{ toolCalls: [{ id: "call_1", name: "read_file", arguments: { path: "/etc/hosts", lines: 10 } }] }]);
    const events = await collect(model().stream(hello));
    expect(events.filter((e) => e.type === "tool-call")).toEqual([
      { type: "tool-call", call: { id: "call_1", name: "read_file", arguments: '{"path":"/etc/hosts","lines":10}' } },
    ]);
    expect(finishOf(events).stopReason).toBe("tool_calls");
  });

  test("parallel tool calls with arguments split across chunks, after the text", async () => {
    llm.script([
      {
        text: "Let me look.",
        toolCalls: [
          { name: "weather", arguments: { city: "Paris", unit: "celsius" } },
          { name: "weather", arguments: { city: "Tokyo", unit: "kelvin" } },
          { name: "clock", arguments: "{}" },
        ],
      },
    ]);
    const events = await collect(model().stream(hello));
    expect(textOf(events)).toBe("Let me look.");
    const calls = events.flatMap((e) => (e.type === "tool-call" ? [e.call] : []));
    expect(calls).toEqual([
      { id: "call_fake_0", name: "weather", arguments: '{"city":"Paris","unit":"celsius"}' },
      { id: "call_fake_1", name: "weather", arguments: '{"city":"Tokyo","unit":"kelvin"}' },
      { id: "call_fake_2", name: "clock", arguments: "{}" },
    ]);
    // Text first, then the calls, then usage, then finish.
    expect(events.map((e) => e.type)).toEqual([
      "text-delta",
      "text-delta",
      "text-delta",
      "tool-call",
      "tool-call",
      "tool-call",
      "usage",
      "finish",
    ]);
    expect(finishOf(events).stopReason).toBe("tool_calls");
  });

  test("calls without index (or one index reused) are told apart by id", async () => {
    const chunk = (part: Record<string, unknown>) =>
      `data: ${JSON.stringify({ choices: [{ delta: { tool_calls: [part] } }] })}\n\n`;
    const body =
      chunk({ id: "a", function: { name: "f", arguments: '{"x"' } }) +
      chunk({ function: { arguments: ":1}" } }) +
      chunk({ index: 0, id: "b", function: { name: "g", arguments: "{" } }) +
      chunk({ index: 0, id: "c", function: { name: "h", arguments: '{"y"' } }) +
      chunk({ index: 0, function: { arguments: ":2}" } }) +
      `data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: "tool_calls" }] })}\n\ndata: [DONE]\n\n`;
    llm.script([{ status: 200, body }]);
    const events = await collect(model().stream(hello));
    expect(events.flatMap((e) => (e.type === "tool-call" ? [e.call] : []))).toEqual([
      { id: "a", name: "f", arguments: '{"x":1}' },
      { id: "b", name: "g", arguments: "{" },
      { id: "c", name: "h", arguments: '{"y":2}' },
    ]);
  });

  test("invalid JSON arguments are passed through unparsed", async () => {
    llm.script([{ toolCalls: [{ name: "f", arguments: '{"a": tru' }] }]);
    const events = await collect(model().stream(hello));
    expect(events.find((e) => e.type === "tool-call")).toMatchObject({ call: { arguments: '{"a": tru' } });
  });

  test("usage is reported exactly once", async () => {
    llm.script([{ text: "x", usage: { input: 1234, output: 56 } }]);
    const usage = (await collect(model().stream(hello))).filter((e) => e.type === "usage");
    expect(usage).toEqual([{ type: "usage", usage: { inputTokens: 1234, outputTokens: 56 } }]);
  });
});

describe("openai request", () => {
  test("messages, tools and options are mapped to the chat completions body", async () => {
    llm.script([{ text: "ok" }]);
    await collect(
      model().stream({
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Weather in Paris and Tokyo?" },
          {
            role: "assistant",
            content: "",
            toolCalls: [
              { id: "call_a", name: "weather", arguments: '{"city":"Paris"}' },
              { id: "call_b", name: "weather", arguments: '{"city":"Tokyo"}' },
            ],
          },
          { role: "tool", toolCallId: "call_a", name: "weather", content: "18C" },
          { role: "tool", toolCallId: "call_b", name: "weather", content: "no such city", isError: true },
          { role: "assistant", content: "Paris is 18C." },
        ],
        tools: [
          {
            name: "weather",
            description: "Current weather",
            parameters: { type: "object", properties: { city: { type: "string" } } },
          },
        ],
        maxOutputTokens: 300,
        temperature: 0.2,
      }),
    );
    expect(llm.requests).toHaveLength(1);
    const req = llm.requests[0]!;
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.body).toEqual({
      model: "gpt-test",
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 300,
      temperature: 0.2,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in Paris and Tokyo?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
            { id: "call_b", type: "function", function: { name: "weather", arguments: '{"city":"Tokyo"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_a", content: "18C" },
        { role: "tool", tool_call_id: "call_b", content: "no such city" },
        { role: "assistant", content: "Paris is 18C." },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "weather",
            description: "Current weather",
            parameters: { type: "object", properties: { city: { type: "string" } } },
          },
        },
      ],
    });
  });

  test("no tools key when there are no tools", async () => {
    llm.script([{ text: "ok" }]);
    await collect(model().stream({ ...hello, tools: [] }));
    expect(Object.keys(llm.requests[0]!.body).sort()).toEqual(["messages", "model", "stream", "stream_options"]);
  });

  test("the key is sent as a Bearer token", async () => {
    llm.script([{ text: "ok" }]);
    await collect(model().stream(hello));
    expect(llm.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  test("an empty key sends no Authorization header (Ollama, llama.cpp)", async () => {
    llm.script([{ text: "ok" }]);
    const events = await collect(model({ apiKey: "" }).stream(hello));
    expect(finishOf(events).stopReason).toBe("stop");
    expect(llm.requests[0]!.headers).not.toHaveProperty("authorization");
  });

  test("a base URL without /v1 and with a trailing slash posts to {base}/chat/completions", async () => {
    llm.script([{ text: "ok" }]);
    await collect(model({ baseURL: `${llm.origin}/` }).stream(hello));
    expect(llm.requests[0]!.path).toBe("/chat/completions");
  });
});

describe("openai failures end the stream, never throw", () => {
  test("401: auth error that says the key was rejected, quotes the provider, hides the key", async () => {
    llm.script([
      {
        status: 401,
        body: {
          error: {
            message: `Incorrect API key provided: ${KEY}.`,
            type: "invalid_request_error",
            code: "invalid_api_key",
          },
        },
      },
    ]);
    const err = errorOf(await collect(model().stream(hello)));
    expect(err.kind).toBe("auth");
    expect(err.status).toBe(401);
    expect(err.retryable).toBe(false);
    expect(err.message).toContain("rejected the API key");
    expect(err.message).toContain("Incorrect API key provided");
    expect(err.message).not.toContain(KEY);
    expect(JSON.stringify(err.toJSON())).not.toContain(KEY);
  });

  test("403 is an auth error too", async () => {
    llm.script([{ status: 403 }]);
    expect(errorOf(await collect(model().stream(hello))).kind).toBe("auth");
  });

  test("404: model_not_found naming the model", async () => {
    llm.script([{ status: 404 }]);
    const err = errorOf(await collect(model({ model: "gpt-nonexistent" }).stream(hello)));
    expect(err.kind).toBe("model_not_found");
    expect(err.message).toContain('"gpt-nonexistent"');
    expect(err.message).toContain("The model does not exist");
  });

  test("HTTP statuses map to kinds with retryable as a property of the error", async () => {
    const cases: [number, LlmErrorKind, boolean][] = [
      [429, "rate_limit", true],
      [500, "server", true],
      [503, "server", true],
      [408, "server", true],
      [409, "server", true],
      [400, "bad_request", false],
      [422, "bad_request", false],
    ];
    llm.script(cases.map(([status]) => ({ status })));
    for (const [status, kind, retryable] of cases) {
      const err = errorOf(await collect(model().stream(hello)));
      expect({ status: err.status, kind: err.kind, retryable: err.retryable }).toEqual({ status, kind, retryable });
      expect(err.message).not.toContain(KEY);
    }
  });

  test("a non-JSON error body is quoted, clipped", async () => {
    llm.script([{ status: 502, body: `<html>Bad Gateway</html>${"x".repeat(100_000)}` }]);
    const err = errorOf(await collect(model().stream(hello)));
    expect(err.message).toContain("<html>Bad Gateway</html>");
    expect(err.message.length).toBeLessThan(1000);
  });

  test("malformed JSON mid-stream: the text so far, then a bad_response finish", async () => {
    llm.script([{ malformed: true, text: "partial answer" }]);
    const events = await collect(model().stream(hello));
    expect(events[0]).toEqual({ type: "text-delta", text: "parti" });
    const err = errorOf(events);
    expect(finishOf(events).stopReason).toBe("error");
    expect(err.kind).toBe("bad_response");
    expect(err.retryable).toBe(false);
    expect(events.filter((e) => e.type === "tool-call" || e.type === "usage")).toEqual([]);
  });

  test("an error chunk in a 200 stream becomes the provider's error", async () => {
    const body = `data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: {"error":{"message":"The server is overloaded","type":"server_error"}}\n\n`;
    llm.script([{ status: 200, body }]);
    const events = await collect(model().stream(hello));
    expect(textOf(events)).toBe("hi");
    const err = errorOf(events);
    expect(err.kind).toBe("server");
    expect(err.retryable).toBe(true);
    expect(err.message).toContain("The server is overloaded");
  });

  test("a stream that ends without finish_reason or [DONE] is a bad_response", async () => {
    llm.script([{ status: 200, body: `data: {"choices":[{"delta":{"content":"hi"},"finish_reason":null}]}\n\n` }]);
    const events = await collect(model().stream(hello));
    expect(textOf(events)).toBe("hi");
    const err = errorOf(events);
    expect(err.kind).toBe("bad_response");
    expect(err.message).toContain("ended early");
  });

  test("[DONE] without finish_reason is a normal end", async () => {
    llm.script([{ status: 200, body: `data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n` }]);
    expect(finishOf(await collect(model().stream(hello)))).toEqual({ type: "finish", stopReason: "stop" });
  });

  test("hang before headers: timeout after idleTimeoutMs", async () => {
    llm.script([{ hang: true }]);
    const started = performance.now();
    const events = await collect(model({ idleTimeoutMs: 150 }).stream(hello));
    const err = errorOf(events);
    expect(err.kind).toBe("timeout");
    expect(err.retryable).toBe(true);
    expect(err.message).toContain("150 ms");
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  test("stall mid-stream: the text so far, then a timeout", async () => {
    llm.script([{ text: "some words here", stall: true }]);
    const events = await collect(model({ idleTimeoutMs: 150 }).stream(hello));
    expect(events[0]).toEqual({ type: "text-delta", text: "some " });
    expect(errorOf(events).kind).toBe("timeout");
  });

  test("a caller slow to pull is not an idle server", async () => {
    llm.script([{ text: "slow reader here", stall: true }]);
    const events: StreamEvent[] = [];
    // The idle timeout leaves the first chunk room to arrive on a loaded machine (at 100 ms it came
    // late under a full parallel test run, and the stream ended as a timeout before any text).
    for await (const ev of model({ idleTimeoutMs: 500 }).stream(hello)) {
      events.push(ev);
      if (events.length === 1) {
        // Longer than the idle timeout, on the caller's side: the whole point of this test.
        await Bun.sleep(1000);
        llm.resume();
      }
    }
    expect(textOf(events)).toBe("slow reader here");
    expect(finishOf(events).stopReason).toBe("stop");
  });

  test("a dropped connection mid-stream: the text so far, then a retryable network error", async () => {
    llm.script([{ drop: true, text: "dropped soon" }]);
    const events = await collect(model().stream(hello));
    expect(events[0]).toEqual({ type: "text-delta", text: "drop" });
    const err = errorOf(events);
    expect(err.kind).toBe("network");
    expect(err.retryable).toBe(true);
  });

  test("connection refused: retryable network error", async () => {
    const url = llm.url;
    await llm.stop();
    const err = errorOf(await collect(model({ baseURL: url }).stream(hello)));
    expect(err.kind).toBe("network");
    expect(err.retryable).toBe(true);
    expect(err.message).toContain("ECONNREFUSED");
    // What to check, not the runtime's "Is the computer able to access the url?".
    expect(err.message).toContain("nothing answers at that address and port: check the base URL");
    expect(err.message).not.toContain("Is the computer able");
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
    expect(finishOf(events).stopReason).toBe("aborted");
    expect(errorOf(events).kind).toBe("aborted");
  });

  test("abort while waiting for headers ends with aborted", async () => {
    llm.script([{ hang: true }]);
    const ac = new AbortController();
    const pending = collect(model().stream(hello, ac.signal));
    await llm.received(1);
    ac.abort();
    const events = await pending;
    expect(finishOf(events).stopReason).toBe("aborted");
  });

  test("an already aborted signal sends nothing", async () => {
    const events = await collect(model().stream(hello, AbortSignal.abort()));
    expect(finishOf(events).stopReason).toBe("aborted");
    expect(llm.requests).toHaveLength(0);
  });
});
