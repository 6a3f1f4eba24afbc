/**
 * A person's images on the wire of both providers, against the fake LLM over real HTTP: sent
 * ones as image parts (OpenAI: after the words; Anthropic: image blocks before them), ones
 * without bytes as "[image: … omitted]" lines — and then OpenAI's content stays a plain string,
 * which a server without vision accepts where it may refuse an array.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createAnthropic } from "../../src/llm/anthropic.ts";
import { createOpenAI } from "../../src/llm/openai.ts";
import type { ChatRequest } from "../../src/llm/types.ts";
import { collect, startFakeLlm, type FakeLlm } from "../harness/fake-llm.ts";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await llm.stop();
});

const A = "a".repeat(64);
const B = "b".repeat(64);
const request: ChatRequest = {
  messages: [
    {
      role: "user",
      content: "what is in these?",
      images: [
        { sha256: A, mime: "image/png", data: "iVBORw0KGgo=" },
        { sha256: B, mime: "image/jpeg" },
      ],
    },
  ],
};
const omittedOnly: ChatRequest = {
  messages: [{ role: "user", content: "and now?", images: [{ sha256: B, mime: "image/jpeg" }] }],
};

describe("a person's images", () => {
  test("OpenAI: words with omitted lines, then image_url parts; a string when none is sent", async () => {
    llm.script([{ text: "ok" }, { text: "ok" }]);
    const openai = createOpenAI({ kind: "openai", baseURL: llm.url, model: "m", apiKey: "k" });
    await collect(openai.stream(request));
    await collect(openai.stream(omittedOnly));
    const first = (llm.requests[0]?.body.messages as { content: unknown }[] | undefined)?.[0]?.content;
    expect(first).toEqual([
      { type: "text", text: `what is in these?\n[image: ${B.slice(0, 12)}… omitted]` },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
    ]);
    const second = (llm.requests[1]?.body.messages as { content: unknown }[] | undefined)?.[0]?.content;
    expect(second).toBe(`and now?\n[image: ${B.slice(0, 12)}… omitted]`);
  });

  test("Anthropic: image blocks first, then the words", async () => {
    llm.script([{ text: "ok" }]);
    const anthropic = createAnthropic({ kind: "anthropic", baseURL: llm.origin, model: "m", apiKey: "k" });
    await collect(anthropic.stream(request));
    const content = (llm.requests[0]?.body.messages as { content: unknown }[] | undefined)?.[0]?.content;
    expect(content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      { type: "text", text: `what is in these?\n[image: ${B.slice(0, 12)}… omitted]` },
    ]);
  });
});
