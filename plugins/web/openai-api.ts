/**
 * An OpenAI-compatible surface, so existing clients (Open WebUI, LibreChat, the official SDKs)
 * can talk to homed: GET /v1/models and POST /v1/chat/completions, streaming and not.
 *
 * Stateless, as the API is: the request's messages are the conversation. homed adds the
 * person's memory from other conversations as one marked system message, and appends to its log
 * only the new input (the last user message, or tool results) and the reply — to conversation
 * `api:<X-Homed-Conversation or user>`, or to an unlisted one-off when neither is given.
 * `model: "homed"` is the configured model; the provider's other models may be named too.
 * Client `tools` are offered beside homed's own; a model response calling one comes back as
 * `tool_calls`. Tool calls that would need a person's approval are denied: nobody is there to ask.
 * Every error is an HTTP error in OpenAI's shape (openai-error.ts); once a stream has begun, an
 * error is its last event.
 */
import * as v from "valibot";
import { Hono, type Context } from "hono";
import { streamSSE } from "hono/streaming";
import { UNLISTED_CONV_PREFIX } from "../../src/protocol/channel.ts";
import type { TurnResultView } from "../../src/protocol/control.ts";
import { describeIssues } from "../../src/protocol/jsonrpc.ts";
import type { ChatHub } from "./chat-hub.ts";
import type { Plugin } from "../sdk/index.ts";
import { storeRequestImages } from "./openai-images.ts";
import { BadBody, isJsonContentType, jsonBody } from "./http-util.ts";
import { openAiError, openAiErrorBody, turnFailure } from "./openai-error.ts";
import {
  BadCompletionRequest,
  CONVERSATION_NAME,
  clientToolsOf,
  conversationName,
  CompletionBody,
  type SplitRequest,
  splitMessages,
} from "./openai-wire.ts";

const MODEL_ID = "homed";

/**
 * How long a stream holds its headers waiting for the first text: long enough for a model's
 * first token (so an early failure is an HTTP error), short enough that a client watching for
 * headers does not give up while homed runs its own tools first.
 */
const HOLD_HEADERS_MS = 10_000;

/** The request header that names the conversation (over `user`). */
export const CONVERSATION_HEADER = "x-homed-conversation";

type ToolCallView = NonNullable<TurnResultView["toolCalls"]>[number];

const usageOf = (r: TurnResultView) => ({
  prompt_tokens: r.usage.inputTokens,
  completion_tokens: r.usage.outputTokens,
  total_tokens: r.usage.inputTokens + r.usage.outputTokens,
  // What the provider read from its cache, in OpenAI's own words, for clients that show it.
  ...(r.usage.cachedInputTokens ? { prompt_tokens_details: { cached_tokens: r.usage.cachedInputTokens } } : {}),
});

/** OpenAI's finish_reason for how the turn ended; a plugin blocking the input is a content filter. */
function finishReason(r: TurnResultView): string {
  if (r.stopReason === "tool_calls") return "tool_calls";
  if (r.stopReason === "iteration_limit") return "length";
  if (r.stopReason === "blocked") return "content_filter";
  return "stop";
}

const toolCallsOut = (calls: readonly ToolCallView[]) =>
  calls.map((c, index) => ({
    index,
    id: c.id,
    type: "function" as const,
    function: { name: c.name, arguments: c.arguments },
  }));

/** The turn's failure as an OpenAI error, or null when it did not fail. */
function failureOf(r: TurnResultView) {
  if (r.stopReason !== "error") return null;
  const f = turnFailure(r.errorKind);
  return { ...f, message: `the model call failed: ${r.error ?? "unknown error"}` };
}

export function openAiRoutes(hub: ChatHub, plugin: Plugin): Hono {
  const v1 = new Hono();

  /** Known model ids: "homed", the configured model, then the provider's (a failed listing lists none). */
  const modelIds = async () => {
    const m = await hub.models();
    return [...new Set([MODEL_ID, ...(m.configured ? [m.configured] : []), ...m.provider])];
  };

  v1.get("/models", async (c) =>
    c.json({
      object: "list",
      data: (await modelIds()).map((id) => ({
        id,
        object: "model",
        created: 0,
        owned_by: id === MODEL_ID ? "homed" : "provider",
      })),
    }),
  );

  v1.post("/chat/completions", async (c) => {
    if (!isJsonContentType(c.req.header("content-type")))
      return openAiError(c, 415, "send the body as JSON (Content-Type: application/json)");
    let raw: unknown;
    try {
      raw = await jsonBody(c);
    } catch (err) {
      return openAiError(c, 400, err instanceof BadBody ? err.message : "the body could not be read");
    }
    const parsed = v.safeParse(CompletionBody, raw);
    if (!parsed.success) return openAiError(c, 400, `invalid request: ${describeIssues(parsed.issues)}`);
    const body = parsed.output;
    let split: SplitRequest;
    try {
      split = splitMessages(body.messages);
    } catch (err) {
      if (err instanceof BadCompletionRequest) return openAiError(c, 400, err.message);
      throw err;
    }

    const named = c.req.header(CONVERSATION_HEADER);
    if (named !== undefined && !CONVERSATION_NAME.test(named))
      return openAiError(c, 400, "X-Homed-Conversation must be 1-100 letters, digits, . _ : @ -");
    const name = named ?? conversationName(body.user);
    const conv = name ? `api:${name}` : `${UNLISTED_CONV_PREFIX}api:${crypto.randomUUID()}`;
    // Which conversation the turn was logged to, so a client can find it (or the one-off) again.
    c.header(CONVERSATION_HEADER, conv);

    let model: string | undefined;
    if (body.model !== MODEL_ID) {
      const m = await hub.models();
      if (body.model !== m.configured && !m.provider.includes(body.model))
        return openAiError(
          c,
          404,
          `The model '${body.model}' does not exist; GET /v1/models lists those there are`,
          "model_not_found",
        );
      if (body.model !== m.configured) model = body.model;
    }

    const id = `chatcmpl-${crypto.randomUUID().replaceAll("-", "")}`;
    const created = Math.floor(Date.now() / 1000);
    const stream = crypto.randomUUID();
    // Images (data: URLs) are stored as blocks before the turn; a bad one is a 4xx, nothing run.
    const { history, attachments } = await storeRequestImages(plugin, split);
    const extra = {
      history,
      ...(attachments.length ? { attachments } : {}),
      ...(split.toolResults.length ? { toolResults: split.toolResults } : {}),
      ...(body.tools?.length ? { clientTools: clientToolsOf(body) } : {}),
      ...(model ? { model } : {}),
    };
    const modelName = body.model;
    const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
      id,
      object: "chat.completion.chunk",
      created,
      model: modelName,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });

    if (!body.stream) {
      let done = false;
      // A client that hangs up is not waiting for the answer: the turn is cancelled.
      c.req.raw.signal.addEventListener("abort", () => {
        if (!done) void hub.cancel(stream).catch(() => {});
      });
      const r = await hub.run(stream, conv, split.text, { event: () => {} }, "api", extra).finally(() => (done = true));
      const failed = failureOf(r);
      if (failed) return openAiError(c, failed.status, failed.message, failed.code);
      const calls = r.stopReason === "tool_calls" ? (r.toolCalls ?? []) : [];
      return c.json({
        id,
        object: "chat.completion",
        created,
        model: modelName,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: calls.length && !r.text ? null : r.text,
              ...(calls.length ? { tool_calls: toolCallsOut(calls).map(({ index: _, ...t }) => t) } : {}),
            },
            finish_reason: finishReason(r),
          },
        ],
        usage: usageOf(r),
      });
    }
    return streamed(c, hub, {
      stream,
      conv,
      text: split.text,
      extra,
      chunk,
      includeUsage: body.stream_options?.include_usage === true,
    });
  });

  return v1;
}

/**
 * A streamed completion. Nothing is sent until the model's first text or the turn's end (or
 * HOLD_HEADERS_MS), so a turn that fails before it is an HTTP error like a non-streamed one;
 * after that a failure is the stream's last event, `{"error": …}`.
 */
function streamed(
  c: Context,
  hub: ChatHub,
  o: {
    stream: string;
    conv: string;
    text: string;
    extra: Parameters<ChatHub["run"]>[5];
    chunk: (delta: Record<string, unknown>, finish: string | null) => unknown;
    includeUsage: boolean;
  },
) {
  // Text is streamed as the model writes it. The final reply (which stages may reshape, or
  // which follows tool calls) is what counts: if it is not what the last segment streamed,
  // it is sent after a blank line, so the client's text always ends with the real answer.
  let segment = "";
  const early: string[] = [];
  let deliver: ((text: string) => void) | null = null;
  let started!: () => void;
  const begun = new Promise<void>((resolve) => (started = resolve));
  let finished = false;
  const turn = hub
    .run(
      o.stream,
      o.conv,
      o.text,
      {
        event: (e) => {
          if (e.type === "text-delta" && typeof e.text === "string") {
            segment += e.text;
            if (deliver) deliver(e.text);
            else early.push(e.text);
            started();
          }
          if (e.type === "tool-call" || e.type === "text-replace") segment = "";
        },
      },
      "api",
      o.extra,
    )
    .finally(() => {
      finished = true;
      started();
    });
  const outcome = turn.then(
    (r) => ({ r, err: null }),
    (err: unknown) => ({ r: null, err }),
  );

  c.req.raw.signal.addEventListener("abort", () => {
    if (!finished) void hub.cancel(o.stream).catch(() => {});
  });
  return (async () => {
    let hold: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([begun, new Promise<void>((resolve) => (hold = setTimeout(resolve, HOLD_HEADERS_MS)))]);
    clearTimeout(hold);
    if (finished) {
      const { r, err } = await outcome;
      if (err) throw err;
      const failed = r && failureOf(r);
      if (failed) return openAiError(c, failed.status, failed.message, failed.code);
    }
    return streamSSE(c, async (sse) => {
      sse.onAbort(() => {
        if (!finished) void hub.cancel(o.stream).catch(() => {});
      });
      // Chained so chunks keep their order and none is pending when the stream closes.
      let chain = Promise.resolve();
      const writeRaw = (data: string) => (chain = chain.then(() => sse.writeSSE({ data })).catch(() => {}));
      const write = (x: unknown) => writeRaw(JSON.stringify(x));
      void write(o.chunk({ role: "assistant", content: "" }, null));
      let any = early.length > 0;
      for (const t of early.splice(0)) void write(o.chunk({ content: t }, null));
      deliver = (t) => {
        any = true;
        void write(o.chunk({ content: t }, null));
      };
      const { r, err } = await outcome;
      const failed = r ? failureOf(r) : { status: 502, code: "upstream_error", message: (err as Error).message };
      if (!r || failed) {
        await write(openAiErrorBody(failed?.status ?? 502, failed?.message ?? "the turn failed", failed?.code ?? null));
        return;
      }
      if (r.text !== segment) await write(o.chunk({ content: any ? `\n\n${r.text}` : r.text }, null));
      const calls = r.stopReason === "tool_calls" ? (r.toolCalls ?? []) : [];
      if (calls.length) await write(o.chunk({ tool_calls: toolCallsOut(calls) }, null));
      await write(o.chunk({}, finishReason(r)));
      if (o.includeUsage) {
        const last = o.chunk({}, null) as Record<string, unknown>;
        await write({ ...last, choices: [], usage: usageOf(r) });
      }
      await writeRaw("[DONE]");
    });
  })();
}
