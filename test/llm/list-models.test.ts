/**
 * Listing a provider's models against the fake LLM over real HTTP: the path and headers each
 * provider wants, and every failure an LlmError (the caller shrugs it off), never a crash.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { listModels } from "../../src/llm/list-models.ts";
import { LlmError } from "../../src/llm/types.ts";
import { type FakeLlm, startFakeLlm } from "../harness/fake-llm.ts";

const KEY = "sk-test-SECRET-0123456789abcdef";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.stop();
});

describe("listModels", () => {
  test("OpenAI: GET {base}/models with a bearer key; Anthropic: GET {origin}/v1/models with x-api-key", async () => {
    llm.models(["a", "b"]);
    expect(await listModels({ kind: "openai", baseURL: llm.url, apiKey: KEY })).toEqual(["a", "b"]);
    expect(llm.listings[0]).toMatchObject({ path: "/v1/models", headers: { authorization: `Bearer ${KEY}` } });
    expect(await listModels({ kind: "anthropic", baseURL: llm.origin, apiKey: KEY })).toEqual(["a", "b"]);
    expect(llm.listings[1]!.path).toBe("/v1/models");
    expect(llm.listings[1]!.headers).toMatchObject({ "x-api-key": KEY, "anthropic-version": "2023-06-01" });
    expect(llm.listings[1]!.headers.authorization).toBeUndefined();
  });

  test("an HTTP error, a refused connection and a body that is not a list are LlmErrors without the key", async () => {
    llm.models(null);
    const e500 = await listModels({ kind: "openai", baseURL: llm.url, apiKey: KEY }).catch((e: unknown) => e);
    expect(e500).toBeInstanceOf(LlmError);
    expect((e500 as LlmError).status).toBe(500);
    const refused = await listModels({ kind: "openai", baseURL: "http://127.0.0.1:1/v1", apiKey: KEY }).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(LlmError);
    expect((refused as LlmError).kind).toBe("network");
    const odd = await listModels({
      kind: "openai",
      baseURL: llm.url,
      apiKey: KEY,
      fetch: (async () => Response.json({ models: "none" })) as unknown as typeof fetch,
    }).catch((e: unknown) => e);
    expect((odd as LlmError).kind).toBe("bad_response");
    for (const e of [e500, refused, odd]) expect(String((e as Error).message)).not.toContain(KEY);
  });
});
