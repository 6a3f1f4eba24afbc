/**
 * Retries through `createLanguageModel` (the entry point the kernel uses) against the fake LLM:
 * a retryable failure before any output is retried with backoff; once output reached the caller,
 * or when the error is not retryable, the error is the final event at once. Sleeps are injected
 * and recorded, so no test waits for a real backoff.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createLanguageModel, maskKey } from "../../src/llm/provider.ts";
import { backoffDelay, withRetry, type RetryOptions } from "../../src/llm/retry.ts";
import { createOpenAI } from "../../src/llm/openai.ts";
import type { ChatRequest, LanguageModel, ProviderKind, StreamEvent } from "../../src/llm/types.ts";
import { collect, startFakeLlm, textOf, type FakeLlm } from "../harness/fake-llm.ts";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.stop();
});

const hello: ChatRequest = { messages: [{ role: "user", content: "hello" }] };

/** A model with recorded, instant sleeps. */
function retrying(kind: ProviderKind = "openai", options: RetryOptions = {}, idleTimeoutMs?: number) {
  const delays: number[] = [];
  const model = createLanguageModel(
    { kind, baseURL: kind === "openai" ? llm.url : llm.origin, model: "m", apiKey: "sk-retry-test-key", idleTimeoutMs },
    { baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.5, sleep: async (ms) => void delays.push(ms), ...options },
  );
  return { model, delays };
}

function last(events: StreamEvent[]) {
  const f = events.at(-1);
  if (f?.type !== "finish") throw new Error("no finish");
  return f;
}

describe("withRetry", () => {
  test("429 then success: retried once, the caller sees only the good attempt", async () => {
    llm.script([{ status: 429 }, { text: "second time lucky", usage: { input: 3, output: 4 } }]);
    const { model, delays } = retrying();
    const events = await collect(model.stream(hello));
    expect(llm.requests).toHaveLength(2);
    expect(delays).toEqual([75]);
    expect(textOf(events)).toBe("second time lucky");
    expect(events.filter((e) => e.type === "usage")).toHaveLength(1);
    expect(last(events)).toEqual({ type: "finish", stopReason: "stop" });
  });

  test("both wire formats retry (anthropic 529 overloaded, then success)", async () => {
    llm.script([{ status: 529 }, { text: "ok" }]);
    const { model } = retrying("anthropic");
    const events = await collect(model.stream(hello));
    expect(llm.requests).toHaveLength(2);
    expect(last(events).stopReason).toBe("stop");
  });

  test("500 retried up to maxRetries with exponential, capped backoff, then the error", async () => {
    llm.script(Array.from({ length: 6 }, () => ({ status: 500 })));
    const { model, delays } = retrying("openai", { maxRetries: 4, maxDelayMs: 500 });
    const events = await collect(model.stream(hello));
    expect(llm.requests).toHaveLength(5);
    expect(llm.remaining()).toBe(1);
    // full = 100·2^n capped at 500, jittered to 75 % by random() = 0.5.
    expect(delays).toEqual([75, 150, 300, 375]);
    expect(events).toHaveLength(1);
    expect(last(events)).toMatchObject({
      stopReason: "error",
      error: { kind: "server", status: 500, retryable: true },
    });
  });

  test("default maxRetries is 3", async () => {
    llm.script(Array.from({ length: 5 }, () => ({ status: 503 })));
    const { model } = retrying();
    await collect(model.stream(hello));
    expect(llm.requests).toHaveLength(4);
  });

  test("a retryable error after text reached the caller is not retried", async () => {
    // A 200 stream that says some text, then reports a rate limit mid-stream.
    const body = `data: {"choices":[{"delta":{"content":"half an ans"}}]}\n\ndata: {"error":{"message":"Rate limit reached","type":"rate_limit_exceeded"}}\n\n`;
    llm.script([{ status: 200, body }, { text: "must not be used" }]);
    const { model, delays } = retrying();
    const events = await collect(model.stream(hello));
    expect(llm.requests).toHaveLength(1);
    expect(delays).toEqual([]);
    expect(textOf(events)).toBe("half an ans");
    expect(last(events)).toMatchObject({ stopReason: "error", error: { kind: "rate_limit", retryable: true } });
  });

  test("a dropped connection after text is not retried", async () => {
    llm.script([{ drop: true, text: "gone" }, { text: "unused" }]);
    const { model, delays } = retrying();
    const events = await collect(model.stream(hello));
    expect(llm.requests).toHaveLength(1);
    expect(delays).toEqual([]);
    expect(textOf(events)).toBe("go");
    expect(last(events).error?.kind).toBe("network");
  });

  test("a stall after tool-call fragments (not yet output) is retried", async () => {
    llm.script([{ stall: true, toolCalls: [{ name: "f", arguments: {} }] }, { text: "recovered" }]);
    const { model } = retrying("openai", {}, 150);
    const events = await collect(model.stream(hello));
    expect(llm.requests).toHaveLength(2);
    expect(events.filter((e) => e.type === "tool-call")).toEqual([]);
    expect(textOf(events)).toBe("recovered");
  });

  test("a hang is retried after the idle timeout", async () => {
    llm.script([{ hang: true }, { text: "awake" }]);
    const { model } = retrying("openai", {}, 150);
    const events = await collect(model.stream(hello));
    expect(llm.requests).toHaveLength(2);
    expect(textOf(events)).toBe("awake");
  });

  test("errors that are not retryable pass through at once", async () => {
    for (const status of [400, 401, 404]) {
      llm.script([{ status }]);
      const before = llm.requests.length;
      const { model, delays } = retrying();
      const events = await collect(model.stream(hello));
      expect(llm.requests.length - before).toBe(1);
      expect(delays).toEqual([]);
      expect(last(events).error).toMatchObject({ status, retryable: false });
    }
  });

  test("maxRetries 0 disables retrying", async () => {
    llm.script([{ status: 429 }, { text: "unused" }]);
    const { model } = retrying("openai", { maxRetries: 0 });
    expect(last(await collect(model.stream(hello))).error?.kind).toBe("rate_limit");
    expect(llm.requests).toHaveLength(1);
  });

  test("an abort during the backoff wait ends with aborted and sends nothing more", async () => {
    llm.script([{ status: 500 }, { text: "unused" }]);
    const ac = new AbortController();
    const model = withRetry(createOpenAI({ kind: "openai", baseURL: llm.url, model: "m", apiKey: "" }), {
      sleep: async () => ac.abort(),
    });
    const events = await collect(model.stream(hello, ac.signal));
    expect(llm.requests).toHaveLength(1);
    expect(events).toHaveLength(1);
    expect(last(events)).toMatchObject({ stopReason: "aborted", error: { kind: "aborted" } });
  });

  test("the default sleep honours abort", async () => {
    llm.script([{ status: 500 }, { text: "unused" }]);
    const inner = createOpenAI({ kind: "openai", baseURL: llm.url, model: "m", apiKey: "" });
    // Signals when the first attempt is over, so the abort lands in the backoff wait, not the fetch.
    const { promise: attemptOver, resolve } = Promise.withResolvers<void>();
    const observed: LanguageModel = {
      kind: inner.kind,
      model: inner.model,
      async *stream(request, signal) {
        try {
          yield* inner.stream(request, signal);
        } finally {
          resolve();
        }
      },
    };
    const ac = new AbortController();
    const model = withRetry(observed, { baseDelayMs: 60_000, maxDelayMs: 60_000 });
    const pending = collect(model.stream(hello, ac.signal));
    await attemptOver;
    ac.abort();
    const started = performance.now();
    const events = await pending;
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(last(events).stopReason).toBe("aborted");
    expect(llm.requests).toHaveLength(1);
  });
});

describe("backoffDelay", () => {
  test("doubles from baseDelayMs, caps at maxDelayMs, jitters within 50–100 %", () => {
    const at = (retry: number, random: number) =>
      backoffDelay(retry, { baseDelayMs: 500, maxDelayMs: 8000, random: () => random });
    expect([0, 1, 2, 3, 4, 5, 10].map((n) => at(n, 0.999999))).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
    expect([0, 1, 2, 3, 4, 5].map((n) => at(n, 0))).toEqual([250, 500, 1000, 2000, 4000, 4000]);
  });
});

describe("maskKey", () => {
  test("shows only the last 4 characters of a key of 8 or more", () => {
    expect(maskKey("sk-abcdefgh1234")).toBe("…1234");
    expect(maskKey("12345678")).toBe("…5678");
    expect(maskKey("1234567")).toBe("…");
    expect(maskKey("")).toBe("");
  });
});
