/**
 * An OpenAI-compatible surface, so existing clients can talk to homed: GET /v1/models and
 * POST /v1/chat/completions (streaming and not). homed keeps its own memory, so only the last
 * user message of the request is taken as the new input; earlier messages in the request are not
 * replayed. The conversation is `user` from the request (prefixed "api:"), or "api".
 * Tool calls that would need a person's approval are denied: nobody is there to ask.
 */
import * as v from "valibot";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { ChatHub } from "./chat-hub.ts";
import { readJson } from "./http-util.ts";

const MODEL_ID = "homed";

const Content = v.union([
  v.string(),
  v.array(v.looseObject({ type: v.string(), text: v.optional(v.string()) })),
  v.null(),
]);
const CompletionBody = v.looseObject({
  model: v.optional(v.string()),
  messages: v.pipe(
    v.array(v.looseObject({ role: v.string(), content: v.optional(Content) })),
    v.minLength(1, "messages is empty"),
  ),
  stream: v.optional(v.boolean(), false),
  user: v.optional(
    v.pipe(v.string(), v.regex(/^[A-Za-z0-9._:-]{1,100}$/, "user must be 1-100 letters, digits, . _ : -")),
  ),
});

function lastUserText(messages: v.InferOutput<typeof CompletionBody>["messages"]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    if (Array.isArray(m.content)) return m.content.map((p) => (p.type === "text" ? (p.text ?? "") : "")).join("");
  }
  return null;
}

export function openAiRoutes(hub: ChatHub): Hono {
  const v1 = new Hono();

  v1.get("/models", (c) =>
    c.json({ object: "list", data: [{ id: MODEL_ID, object: "model", created: 0, owned_by: "homed" }] }),
  );

  v1.post("/chat/completions", async (c) => {
    const body = await readJson(c, CompletionBody);
    const text = lastUserText(body.messages);
    if (!text)
      return c.json({ error: { message: "no user message with text content", type: "invalid_request_error" } }, 400);
    const conv = body.user ? `api:${body.user}` : "api";
    const id = `chatcmpl-${crypto.randomUUID().replaceAll("-", "")}`;
    const created = Math.floor(Date.now() / 1000);
    const stream = crypto.randomUUID();
    const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
      id,
      object: "chat.completion.chunk",
      created,
      model: MODEL_ID,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });

    if (!body.stream) {
      const r = await hub.run(stream, conv, text, { event: () => {} }, "api");
      return c.json({
        id,
        object: "chat.completion",
        created,
        model: MODEL_ID,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: r.text },
            finish_reason: r.stopReason === "iteration_limit" ? "length" : "stop",
          },
        ],
        usage: {
          prompt_tokens: r.usage.inputTokens,
          completion_tokens: r.usage.outputTokens,
          total_tokens: r.usage.inputTokens + r.usage.outputTokens,
        },
      });
    }
    return streamSSE(c, async (sse) => {
      let finished = false;
      sse.onAbort(() => {
        if (!finished) void hub.cancel(stream).catch(() => {});
      });
      // Chained so chunks keep their order and none is pending when the stream closes.
      let chain = Promise.resolve();
      const writeRaw = (data: string) => (chain = chain.then(() => sse.writeSSE({ data })).catch(() => {}));
      const write = (o: unknown) => writeRaw(JSON.stringify(o));
      await write(chunk({ role: "assistant", content: "" }, null));
      // Text is streamed as the model writes it. The final reply (which stages may reshape, or
      // which follows tool calls) is what counts: if it is not what the last segment streamed,
      // it is sent after a blank line, so the client's text always ends with the real answer.
      let segment = "";
      let any = false;
      const r = await hub
        .run(
          stream,
          conv,
          text,
          {
            event: (e) => {
              if (e.type === "text-delta" && typeof e.text === "string") {
                segment += e.text;
                any = true;
                void write(chunk({ content: e.text }, null));
              }
              if (e.type === "tool-call" || e.type === "text-replace") segment = "";
            },
          },
          "api",
        )
        .finally(() => (finished = true));
      if (r.text !== segment) await write(chunk({ content: any ? `\n\n${r.text}` : r.text }, null));
      await write({
        ...chunk({}, r.stopReason === "iteration_limit" ? "length" : "stop"),
        usage: {
          prompt_tokens: r.usage.inputTokens,
          completion_tokens: r.usage.outputTokens,
          total_tokens: r.usage.inputTokens + r.usage.outputTokens,
        },
      });
      await writeRaw("[DONE]");
    });
  });

  return v1;
}
