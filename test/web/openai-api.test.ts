/**
 * The OpenAI-compatible API (/v1) through the official `openai` client, against the built daemon
 * and a scripted fake model: the request's messages are the conversation (stateless), homed adds
 * the person's memory as one marked system message, only the last user message and the reply are
 * logged; errors are HTTP errors in OpenAI's shape (and a stream's error event); client tools
 * round-trip as OpenAI's do; turns of one conversation queue. The request shapes are those Open
 * WebUI and LibreChat send (`stream_options.include_usage`, `user`, tools, /v1/models fields).
 */
import { CROSS_RECALL_HEADER } from "../../src/memory/cross-recall.ts";
import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { join } from "node:path";
import { type AgentRig, startAgentRig } from "../harness/agent-daemon.ts";
import { tempDir } from "../harness/binary.ts";
import { startDaemon, webUrlOf } from "../harness/daemon.ts";
import { transcriptAt } from "../harness/transcript.ts";

type Sent = { role: string; content: string | null; tool_call_id?: string; tool_calls?: { id: string }[] }[];
const sentOf = (rig: AgentRig, i = -1) => (rig.llm.requests.at(i)!.body as { messages: Sent }).messages;
const toolsOf = (rig: AgentRig, i = -1) =>
  ((rig.llm.requests.at(i)!.body as { tools?: { function: { name: string } }[] }).tools ?? []).map(
    (t) => t.function.name,
  );

async function clientOf(rig: AgentRig, headers: Record<string, string> = {}) {
  const url = await webUrlOf(rig.daemon);
  // Retries off: an error must show on the first answer, as a client without retries sees it.
  return {
    url,
    client: new OpenAI({ baseURL: `${url}v1`, apiKey: "unused-on-loopback", maxRetries: 0, defaultHeaders: headers }),
  };
}

async function transcriptOf(url: string, conv: string) {
  return await transcriptAt(url, conv);
}

async function listed(url: string) {
  return ((await (await fetch(`${url}api/conversations`)).json()) as { id: string }[]).map((c) => c.id);
}

describe("/v1/chat/completions follows the API's semantics", () => {
  test("the request's messages are the conversation; the log gets only the last user message and the reply", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const { url, client } = await clientOf(rig);

    // Told in a web conversation: homed's own memory, quoted into the API turn as a marked note.
    rig.llm.script([{ text: "Noted." }]);
    expect((await rig.chat("My sailing boat is named Albatross.", { conv: "web-1" })).exitCode).toBe(0);

    rig.llm.script([{ text: "Arr, Albatross it be." }]);
    const first = await client.chat.completions.create(
      {
        model: "homed",
        messages: [
          { role: "system", content: "You are a pirate." },
          { role: "user", content: "earlier question about tides" },
          { role: "assistant", content: "earlier answer about tides" },
          { role: "user", content: "what is my sailing boat named?" },
        ],
      },
      { headers: { "X-Homed-Conversation": "boats" } },
    );
    expect(first.choices[0]!.message.content).toBe("Arr, Albatross it be.");
    expect(first.choices[0]!.finish_reason).toBe("stop");
    const sent = sentOf(rig);
    const roles = sent.map((m) => m.role);
    // The request's system prompt and history, in order, then the new message last.
    expect(sent.map((m) => m.content)).toContain("You are a pirate.");
    const tides = sent.findIndex((m) => m.content === "earlier question about tides");
    expect(tides).toBeGreaterThan(0);
    expect(sent[tides + 1]).toMatchObject({ role: "assistant", content: "earlier answer about tides" });
    expect(sent.at(-1)).toMatchObject({ role: "user", content: "what is my sailing boat named?" });
    expect(roles.filter((r) => r === "user")).toHaveLength(2);
    // homed's memory: one marked system message quoting the web conversation, headed as quoting
    // other conversations only (nothing of this one was left unsent).
    const note = sent.find((m) => m.role === "system" && m.content?.startsWith(CROSS_RECALL_HEADER));
    expect(note?.content).toContain("My sailing boat is named Albatross.");

    // The next request on the same conversation carries its own history; the log's is not replayed.
    rig.llm.script([{ text: "Second reply." }]);
    await client.chat.completions.create(
      { model: "homed", messages: [{ role: "user", content: "a fresh start" }] },
      { headers: { "X-Homed-Conversation": "boats" } },
    );
    const second = sentOf(rig);
    expect(JSON.stringify(second)).not.toContain("earlier answer about tides");
    expect(JSON.stringify(second)).not.toContain("Arr, Albatross it be.");
    expect(second.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["a fresh start"]);

    // The log of api:boats: each request's last user message and reply, never its history
    // (and what memory put before the model for each, which has no text).
    const log = await transcriptOf(url, "api:boats");
    expect(log.filter((i) => i.type !== "context").map((i) => [i.type, i.text])).toEqual([
      ["turn-start", "what is my sailing boat named?"],
      ["done", "Arr, Albatross it be."],
      ["turn-start", "a fresh start"],
      ["done", "Second reply."],
    ]);

    // `user` names the conversation when there is no header; neither: an unlisted one-off.
    rig.llm.script([{ text: "for alice" }, { text: "for bob" }, { text: "one-off" }]);
    await client.chat.completions.create({
      model: "homed",
      messages: [{ role: "user", content: "hi" }],
      user: "alice",
    });
    // A `user` that is no plain name (LibreChat and others send what they like) is made one.
    await client.chat.completions.create({
      model: "homed",
      messages: [{ role: "user", content: "hi" }],
      user: "Bob Smith+x@example.com",
    });
    expect((await listed(url)).filter((c) => /^api:user-[0-9a-f]{16}$/.test(c))).toHaveLength(1);
    const before = await listed(url);
    const oneOff = await client.chat.completions
      .create({ model: "homed", messages: [{ role: "user", content: "nobody" }] })
      .withResponse();
    // The response says where the turn went; a one-off's transcript is there, unlisted.
    const where = oneOff.response.headers.get("x-homed-conversation") ?? "";
    expect(where).toMatch(/^unlisted:api:[0-9a-f-]{36}$/);
    expect((await transcriptOf(url, where)).filter((i) => i.type !== "context").map((i) => i.text)).toEqual([
      "nobody",
      "one-off",
    ]);
    expect(before).toContain("api:alice");
    expect((await listed(url)).sort()).toEqual(before.sort());
  }, 60_000);

  test('/v1/models lists "homed" and the provider\'s models; an unknown model is 404 model_not_found', async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const { client } = await clientOf(rig);

    // The provider's /models fails: "homed" and the configured model are still listed.
    rig.llm.models(null);
    let ids = (await client.models.list()).data.map((m) => m.id);
    expect(ids).toEqual(["homed", "test-model"]);

    rig.llm.models(["test-model", "other-model"]);
    const models = (await client.models.list()).data;
    // The fields Open WebUI and LibreChat read.
    for (const m of models) expect(Object.keys(m).sort()).toEqual(["created", "id", "object", "owned_by"]);
    ids = models.map((m) => m.id);
    expect(ids).toEqual(["homed", "test-model", "other-model"]);
    expect(models[0]).toMatchObject({ object: "model", owned_by: "homed" });

    // A listed model is used; "homed" means the configured one.
    rig.llm.script([{ text: "from other" }, { text: "from homed" }]);
    await client.chat.completions.create({ model: "other-model", messages: [{ role: "user", content: "x" }] });
    expect((rig.llm.requests.at(-1)!.body as { model: string }).model).toBe("other-model");
    await client.chat.completions.create({ model: "homed", messages: [{ role: "user", content: "y" }] });
    expect((rig.llm.requests.at(-1)!.body as { model: string }).model).toBe("test-model");

    const calls = rig.llm.requests.length;
    const err = await client.chat.completions
      .create({ model: "gpt-nonexistent", messages: [{ role: "user", content: "z" }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe("model_not_found");
    expect(rig.llm.requests.length).toBe(calls);
  }, 60_000);
});

describe("/v1 errors are HTTP errors in OpenAI's shape", () => {
  test("a failed model call is 502 (429 when rate limited), a stream's error event, and never history", async () => {
    using dir = tempDir();
    // Retries off, so one scripted failure is the turn's failure.
    await Bun.write(join(dir.path, "config.toml"), "[llm]\nmax_retries = 0\n");
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const { url, client } = await clientOf(rig, { "X-Homed-Conversation": "errs" });
    const ask = (content: string) =>
      client.chat.completions.create({ model: "homed", messages: [{ role: "user", content }] });

    rig.llm.script([{ status: 500 }]);
    const e500 = (await ask("first").catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(e500).toBeInstanceOf(OpenAI.APIError);
    expect(e500.status).toBe(502);
    expect(e500.error).toMatchObject({ type: "server_error", code: "upstream_error" });
    expect(e500.message).not.toContain("The model call failed");

    rig.llm.script([{ status: 429 }]);
    const e429 = (await ask("second").catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(e429).toBeInstanceOf(OpenAI.RateLimitError);
    expect(e429.error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });

    // The provider refusing the request itself (too long, say) is the client's 400, not retried.
    rig.llm.script([{ status: 400 }]);
    const e400 = (await ask("too long").catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(e400).toBeInstanceOf(OpenAI.BadRequestError);
    expect(e400.error).toMatchObject({ code: "provider_rejected_request" });

    // A stream that fails before any text is an HTTP error too, as a non-streamed request's.
    rig.llm.script([{ status: 503 }]);
    const early = await client.chat.completions
      .create({ model: "homed", messages: [{ role: "user", content: "early" }], stream: true })
      .catch((e: unknown) => e);
    expect(early).toBeInstanceOf(OpenAI.APIError);
    expect((early as InstanceType<typeof OpenAI.APIError>).status).toBe(502);

    // Once text has gone out, the failure is the stream's last event.
    rig.llm.script([{ drop: true, text: "half an ans" }]);
    const chunks: string[] = [];
    const streamed = await (async () => {
      const s = await client.chat.completions.create({
        model: "homed",
        messages: [{ role: "user", content: "third" }],
        stream: true,
      });
      for await (const c of s) chunks.push(c.choices[0]?.delta?.content ?? "");
    })().catch((e: unknown) => e);
    expect(streamed).toBeInstanceOf(OpenAI.APIError);
    expect(String((streamed as Error).message)).toContain("model");

    // Bad input: a clear 400, the daemon unharmed.
    for (const messages of [[{ role: "assistant", content: "no user here" }], [{ role: "wizard", content: "x" }]]) {
      const bad = (await client.chat.completions
        .create({ model: "homed", messages: messages as never })
        .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
      expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
      expect(bad.error).toMatchObject({ type: "invalid_request_error" });
    }
    const notFound = await fetch(`${url}v1/nowhere`);
    expect(notFound.status).toBe(404);
    expect(((await notFound.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");

    // The failed turns are in the log for the person, never sent back to the model as content.
    rig.llm.script([{ text: "fine now" }]);
    expect((await rig.chat("and now?", { conv: "api:errs" })).exitCode).toBe(0);
    // The system prompt names the tools (one says "newest first"): what was said is the rest.
    const sent = JSON.stringify(sentOf(rig).filter((m) => m.role !== "system"));
    expect(sent).not.toContain("The model call failed");
    expect(sent).not.toContain("first");
    expect(sent).toContain("and now?");
  }, 60_000);
});

describe("plugins' stages on a stateless turn", () => {
  test("pre_action's injection is said just before the input; on_input blocking is finish_reason content_filter", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { behavior: { pre_action: { inject: ["house rules apply"] } } });
    const { client } = await clientOf(rig);
    rig.llm.script([{ text: "ok" }]);
    await client.chat.completions.create({
      model: "homed",
      messages: [
        { role: "system", content: "client system" },
        { role: "user", content: "hello" },
      ],
    });
    const sent = sentOf(rig);
    expect(sent[0]!.content).not.toContain("house rules apply");
    expect(sent[1]).toMatchObject({ role: "system", content: "client system" });
    expect(sent.at(-2)).toMatchObject({ role: "system", content: "[from plugin agent]\nhouse rules apply" });
    expect(sent.at(-1)).toMatchObject({ role: "user", content: "hello" });

    rig.behave({ on_input: { action: "block", reason: "not today" } });
    const calls = rig.llm.requests.length;
    const r = await client.chat.completions.create({
      model: "homed",
      messages: [{ role: "user", content: "blocked?" }],
    });
    expect(r.choices[0]!.finish_reason).toBe("content_filter");
    expect(r.choices[0]!.message.content).toBe("Not processed: not today");
    expect(rig.llm.requests.length).toBe(calls);
  }, 60_000);
});

describe("/v1 behind a token", () => {
  test("a configured token is enforced, with OpenAI's error shape; no provider configured is 503", async () => {
    using dir = tempDir();
    const token = "correct-horse-battery-staple-42";
    await Bun.write(join(dir.path, "config.toml"), `[web]\ntoken = "${token}"\n`);
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    const ask = (apiKey: string) =>
      new OpenAI({ baseURL: `${url}v1`, apiKey, maxRetries: 0 }).chat.completions.create({
        model: "homed",
        messages: [{ role: "user", content: "hi" }],
      });
    const denied = await ask("sk-wrong-token-wrong-token").catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((denied as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: "authentication_error" });
    const none = (await ask(token).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(none).toBeInstanceOf(OpenAI.InternalServerError);
    expect(none.status).toBe(503);
    expect(none.error).toMatchObject({ code: "model_not_configured" });
    expect(none.message).toContain("No model provider is configured");
  }, 60_000);
});

describe("client tools", () => {
  test("offered beside homed's own; a response calling one returns tool_calls and runs none of homed's", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const { client } = await clientOf(rig);
    const tools: OpenAI.Chat.ChatCompletionTool[] = [
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "The weather in a city.",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      },
    ];
    const user = { role: "user" as const, content: "weather in Oslo?" };

    for (const stream of [false, true]) {
      rig.llm.script([
        {
          toolCalls: [
            { id: "call_mem", name: "memory_search", arguments: { query: "oslo" } },
            { id: "call_w", name: "get_weather", arguments: { city: "Oslo" } },
          ],
        },
        { text: "It is 3°C in Oslo." },
      ]);
      const before = rig.llm.requests.length;
      let calls: { id: string; name: string; arguments: string }[];
      let finish: string | null;
      if (!stream) {
        const r = await client.chat.completions.create({ model: "homed", messages: [user], tools });
        finish = r.choices[0]!.finish_reason;
        calls = (r.choices[0]!.message.tool_calls ?? []).map((c) => ({
          id: c.id,
          name: (c as { function: { name: string } }).function.name,
          arguments: (c as { function: { arguments: string } }).function.arguments,
        }));
      } else {
        const s = await client.chat.completions.create({ model: "homed", messages: [user], tools, stream: true });
        const acc = new Map<number, { id: string; name: string; arguments: string }>();
        finish = null;
        for await (const c of s) {
          for (const t of c.choices[0]?.delta?.tool_calls ?? []) {
            const cur = acc.get(t.index) ?? { id: "", name: "", arguments: "" };
            cur.id ||= t.id ?? "";
            cur.name += t.function?.name ?? "";
            cur.arguments += t.function?.arguments ?? "";
            acc.set(t.index, cur);
          }
          finish = c.choices[0]?.finish_reason ?? finish;
        }
        calls = [...acc.values()];
      }
      expect(finish).toBe("tool_calls");
      expect(calls).toEqual([{ id: "call_w", name: "get_weather", arguments: '{"city":"Oslo"}' }]);
      // One model call: homed ran none of its own calls from that response.
      expect(rig.llm.requests.length).toBe(before + 1);
      expect(toolsOf(rig)).toEqual(expect.arrayContaining(["get_weather", "memory_search"]));

      // The client's next request carries the result.
      const r2 = await client.chat.completions.create({
        model: "homed",
        tools,
        messages: [
          user,
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "call_w", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
            ],
          },
          { role: "tool", tool_call_id: "call_w", content: "3°C, light snow" },
        ],
      });
      expect(r2.choices[0]!.message.content).toBe("It is 3°C in Oslo.");
      expect(r2.choices[0]!.finish_reason).toBe("stop");
      // The results follow the call they answer; what changes per turn (a note from memory), if
      // anything, comes after them.
      const sent = sentOf(rig).filter((m) => m.role !== "system");
      expect(sent.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_w", content: "3°C, light snow" });
      expect(sent.at(-2)?.tool_calls?.map((c) => c.id)).toEqual(["call_w"]);
      // The earlier request (another one-off) is in memory, but memory does not quote back what
      // the request itself carries.
      expect(sentOf(rig).filter((m) => m.role === "system" && m.content?.includes("weather in Oslo?"))).toEqual([]);
    }
  }, 60_000);
});

describe("turns of one conversation queue", () => {
  test("five parallel turns in one conversation run one after another; another conversation is not held up", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script(Array.from({ length: 5 }, (_, i) => ({ text: `reply ${i + 1}` })));
    const runs = await Promise.all(
      Array.from({ length: 5 }, (_, i) => rig.chat(`concurrent ${i + 1}`, { conv: "queued" })),
    );
    expect(runs.map((r) => r.exitCode)).toEqual([0, 0, 0, 0, 0]);
    // Each model call saw every earlier turn with its reply: the k-th call, k-1 replies.
    for (let k = 0; k < 5; k++) {
      const msgs = sentOf(rig, k);
      expect(msgs.filter((m) => m.role === "assistant").length).toBe(k);
      expect(msgs.filter((m) => m.role === "user").length).toBe(k + 1);
    }

    // A turn that hangs in one conversation does not hold up another.
    const { client } = await clientOf(rig);
    rig.llm.script([{ text: "slow one", stall: true }, { text: "quick one" }]);
    const slow = client.chat.completions.create(
      { model: "homed", messages: [{ role: "user", content: "slow" }] },
      { headers: { "X-Homed-Conversation": "a" } },
    );
    await rig.llm.received(6);
    const quick = await client.chat.completions.create(
      { model: "homed", messages: [{ role: "user", content: "quick" }] },
      { headers: { "X-Homed-Conversation": "b" } },
    );
    expect(quick.choices[0]!.message.content).toBe("quick one");
    rig.llm.resume();
    expect((await slow).choices[0]!.message.content).toBe("slow one");
  }, 60_000);
});

describe("a client that hangs up", () => {
  test("cancels its turn, streaming or not, so the conversation's next turn is not held up behind it", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const { client } = await clientOf(rig, { "X-Homed-Conversation": "hangup" });
    for (const stream of [false, true]) {
      rig.llm.script([{ hang: true }, { text: "next one" }]);
      const n = rig.llm.requests.length;
      const ac = new AbortController();
      const gone = client.chat.completions
        .create({ model: "homed", messages: [{ role: "user", content: "hang" }], stream }, { signal: ac.signal })
        .catch((e: unknown) => e);
      await rig.llm.received(n + 1);
      ac.abort();
      expect(await gone).toBeInstanceOf(OpenAI.APIUserAbortError);
      // Queued behind the hung turn, this one runs only if hanging up cancelled it.
      const next = await client.chat.completions.create({
        model: "homed",
        messages: [{ role: "user", content: "after" }],
      });
      expect(next.choices[0]!.message.content).toBe("next one");
    }
  }, 60_000);
});

describe("Open WebUI's and LibreChat's request shapes", () => {
  test("streaming with stream_options.include_usage ends with a usage chunk; user and extra fields are accepted", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const { client } = await clientOf(rig);
    rig.llm.script([{ text: "Streamed answer, in pieces.", usage: { input: 5, output: 2 } }]);
    // What Open WebUI sends: stream, include_usage, user, and sampling parameters.
    const stream = await client.chat.completions.create({
      model: "homed",
      stream: true,
      stream_options: { include_usage: true },
      user: "openwebui-user-1",
      temperature: 0.7,
      top_p: 1,
      max_tokens: 512,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: [{ type: "text", text: "hello there" }] },
      ],
    });
    let text = "";
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const c of stream) {
      chunks.push(c);
      text += c.choices[0]?.delta?.content ?? "";
    }
    expect(text).toBe("Streamed answer, in pieces.");
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
    expect(chunks.filter((c) => c.usage).length).toBe(1);
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe("stop");

    // Without include_usage no usage chunk.
    rig.llm.script([{ text: "again" }]);
    const plain = await client.chat.completions.create({
      model: "homed",
      stream: true,
      messages: [{ role: "user", content: "again" }],
    });
    const plainChunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const c of plain) plainChunks.push(c);
    expect(plainChunks.some((c) => c.usage)).toBe(false);
  }, 60_000);
});
