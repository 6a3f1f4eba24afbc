/**
 * OpenAI-compatible chat completions (OpenAI, Ollama, llama.cpp, vLLM, OpenRouter…), streamed.
 * Only the subset every compatible server speaks: `messages`, `tools`, `stream_options`.
 */
import * as v from "valibot";
import { finishWithError, postStream, providerComplaint, streamError, trimBase } from "./http.ts";
import { dataUrl, sendsImages, sentImages, textWithOmitted } from "./image-parts.ts";
import { MessageBytes, sameMessage } from "./message-bytes.ts";
import { parseSse } from "../shared/sse.ts";
import { ToolJson } from "./tool-json.ts";
import {
  LlmError,
  type ChatMessage,
  type ChatRequest,
  type LanguageModel,
  type ProviderSettings,
  type StopReason,
  type StreamEvent,
  type ToolSpec,
  type Usage,
} from "./types.ts";

/** Minimal, loose: compatible servers add fields (reasoning_content, system_fingerprint…) freely. */
const ToolCallDelta = v.looseObject({
  index: v.nullish(v.number()),
  id: v.nullish(v.string()),
  function: v.nullish(
    v.looseObject({
      name: v.nullish(v.string()),
      arguments: v.nullish(v.string()),
    }),
  ),
});

const Chunk = v.looseObject({
  choices: v.nullish(
    v.array(
      v.looseObject({
        delta: v.nullish(
          v.looseObject({
            content: v.nullish(v.string()),
            tool_calls: v.nullish(v.array(ToolCallDelta)),
          }),
        ),
        finish_reason: v.nullish(v.string()),
      }),
    ),
  ),
  // Counts are optional: a server that reports only some of them still streams a good answer.
  usage: v.nullish(
    v.looseObject({
      prompt_tokens: v.nullish(v.number()),
      completion_tokens: v.nullish(v.number()),
      prompt_tokens_details: v.nullish(v.looseObject({ cached_tokens: v.nullish(v.number()) })),
    }),
  ),
  error: v.optional(v.unknown()),
});

/** Recent requests' messages as written, for the next request of the same conversation. */
const written = new MessageBytes<ChatMessage>((m) => JSON.stringify(toOpenAIMessage(m)), sameMessage);
/** The offered tools' JSON, kept from call to call. */
const toolJson = new ToolJson(toOpenAITool);

/** The chat completions body for `request`, as the bytes to send. */
function openAIBody(settings: ProviderSettings, request: ChatRequest): string | Uint8Array {
  const body: Record<string, unknown> = {
    model: settings.model,
    stream: true,
    stream_options: { include_usage: true },
  };
  // OpenAI routes requests with the same key to the same prompt cache. Only its own API is sent
  // one: some compatible servers refuse a field they do not know.
  if (request.cacheKey && sendsCacheKey(settings.baseURL)) body.prompt_cache_key = request.cacheKey;
  // `max_tokens`, not `max_completion_tokens`: every compatible server understands it.
  if (request.maxOutputTokens !== undefined) body.max_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  // Tool images sent with their bytes add a message after their run of tool messages: such a
  // request is written whole. Otherwise each message's JSON is its own, and most were written
  // for the previous request already.
  const messages = request.messages;
  if (!sendsImages(messages) || !messages.some((m) => m.role === "tool" && sentImages(m).length > 0))
    return written.encode(messages, toolJson.head(body, request.tools), "]}");
  // Messages last: JavaScriptCore writes JSON as Latin-1 until it meets a character beyond it,
  // then converts everything written so far; a 550 KB context followed by one "…" in a tool
  // description took 3 ms instead of 1.
  if (request.tools && request.tools.length > 0) body.tools = request.tools.map(toOpenAITool);
  body.messages = toOpenAIMessages(messages);
  return JSON.stringify(body);
}

/** OpenAI's own API (api.openai.com), which documents prompt_cache_key. */
function sendsCacheKey(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === "api.openai.com";
  } catch {
    return false;
  }
}

/**
 * The messages on the wire. Tool messages are text only in chat completions, so the images of a
 * run of tool messages follow it as one user message of image parts, each group introduced by
 * the call it belongs to (a user message between the tool messages would break the rule that
 * they follow their assistant message directly).
 */
function toOpenAIMessages(messages: readonly ChatMessage[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let parts: Record<string, unknown>[] = [];
  const flush = () => {
    if (parts.length > 0) out.push({ role: "user", content: parts });
    parts = [];
  };
  for (const m of messages) {
    if (m.role !== "tool") flush();
    out.push(toOpenAIMessage(m));
    if (m.role !== "tool") continue;
    const images = sentImages(m);
    if (images.length === 0) continue;
    parts.push({
      type: "text",
      text: `The image${images.length > 1 ? "s" : ""} returned by tool call ${m.toolCallId} (${m.name}):`,
    });
    for (const i of images) parts.push({ type: "image_url", image_url: { url: dataUrl(i) } });
  }
  flush();
  return out;
}

function toOpenAIMessage(m: ChatMessage): Record<string, unknown> {
  switch (m.role) {
    case "system":
      return { role: m.role, content: m.content };
    case "user": {
      // A person's images go as image parts after the words; images not sent become lines.
      const images = sentImages(m);
      // Without image parts the content stays a string: a server without vision may take no array.
      if (images.length === 0) return { role: "user", content: m.images?.length ? textWithOmitted(m) : m.content };
      const text = textWithOmitted(m);
      return {
        role: "user",
        content: [
          ...(text ? [{ type: "text", text }] : []),
          ...images.map((i) => ({ type: "image_url", image_url: { url: dataUrl(i) } })),
        ],
      };
    }
    case "assistant":
      if (!m.toolCalls || m.toolCalls.length === 0) return { role: "assistant", content: m.content };
      return {
        role: "assistant",
        // null, not "": the documented value when the turn is only tool calls.
        content: m.content === "" ? null : m.content,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        })),
      };
    case "tool":
      // The wire has no error flag; the turn loop words a failed result so the model can tell.
      return { role: "tool", tool_call_id: m.toolCallId, content: textWithOmitted(m) };
  }
}

function toOpenAITool(t: ToolSpec): Record<string, unknown> {
  return { type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } };
}

function stopReasonOf(finish: string): StopReason {
  switch (finish) {
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "length":
      return "length";
    default:
      // "stop", "content_filter", and whatever a compatible server invents: the turn is over.
      return "stop";
  }
}

/**
 * A `LanguageModel` for an OpenAI-compatible `POST {baseURL}/chat/completions`. `baseURL` includes
 * the version (`https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`); an empty `apiKey` sends
 * no Authorization header, as local servers expect.
 */
export function createOpenAI(settings: ProviderSettings): LanguageModel {
  return {
    kind: "openai",
    model: settings.model,
    stream: (request, signal) => streamOpenAI(settings, request, signal),
  };
}

async function* streamOpenAI(
  settings: ProviderSettings,
  request: ChatRequest,
  signal?: AbortSignal,
): AsyncGenerator<StreamEvent> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
  if (settings.apiKey !== "") headers.authorization = `Bearer ${settings.apiKey}`;
  let body: ReadableStream<Uint8Array>;
  try {
    body = await postStream(
      settings,
      `${trimBase(settings.baseURL)}/chat/completions`,
      headers,
      openAIBody(settings, request),
      signal,
    );
  } catch (err) {
    yield finishWithError(err);
    return;
  }

  const bad = (what: string) => new LlmError("bad_response", `${settings.kind} provider sent ${what}`);
  // Tool calls in order of their first fragment: id and name come first, arguments in pieces.
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  const slotOf = new Map<number, number>();
  let slots = 0;
  let stop: StopReason | null = null;
  let usage: Usage | null = null;
  let done = false;

  function* flushCalls(): Generator<StreamEvent> {
    for (const c of calls.values()) {
      if (c.name === "") throw bad(`a tool call without a name (id ${JSON.stringify(c.id)})`);
      yield {
        type: "tool-call",
        call: { id: c.id || `call_${crypto.randomUUID()}`, name: c.name, arguments: c.arguments },
      };
    }
    calls.clear();
    slotOf.clear();
  }

  try {
    for await (const sse of parseSse(body)) {
      if (sse.data === "[DONE]") {
        done = true;
        break;
      }
      let json: unknown;
      try {
        json = JSON.parse(sse.data);
      } catch {
        throw bad(`a line that is not JSON: ${JSON.stringify(sse.data.slice(0, 200))}`);
      }
      const parsed = v.safeParse(Chunk, json);
      if (!parsed.success) throw bad(`a chunk of unexpected shape: ${v.summarize(parsed.issues).slice(0, 300)}`);
      const chunk = parsed.output;
      if (chunk.error !== undefined && chunk.error !== null) {
        throw streamError(settings, providerComplaint(JSON.stringify({ error: chunk.error })));
      }
      if (chunk.usage) {
        const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
        usage = {
          inputTokens: chunk.usage.prompt_tokens ?? 0,
          outputTokens: chunk.usage.completion_tokens ?? 0,
          ...(cached > 0 ? { cachedInputTokens: cached } : {}),
        };
      }
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta;
      if (delta?.content) yield { type: "text-delta", text: delta.content };
      for (const part of delta?.tool_calls ?? []) {
        // Fragments are matched to calls by `index`. A server that omits it (wire index -1 here),
        // or reuses one for a call with a new id, gets a new call per id; fragments without an id
        // continue the latest call of their index.
        const wire = part.index ?? -1;
        let slot = slotOf.get(wire);
        const current = slot === undefined ? undefined : calls.get(slot);
        if (slot === undefined || (part.id && current && current.id !== "" && current.id !== part.id)) {
          slot = slots++;
          slotOf.set(wire, slot);
        }
        let call = calls.get(slot);
        if (!call) {
          call = { id: "", name: "", arguments: "" };
          calls.set(slot, call);
        }
        // id and name are taken from their first fragment only: some servers repeat them.
        if (part.id && call.id === "") call.id = part.id;
        if (part.function?.name && call.name === "") call.name = part.function.name;
        if (part.function?.arguments) call.arguments += part.function.arguments;
      }
      if (choice.finish_reason) {
        const hadCalls = calls.size > 0;
        yield* flushCalls();
        stop = stopReasonOf(choice.finish_reason);
        // Some servers say "stop" after tool calls; the calls are what the turn loop must act on.
        if (stop === "stop" && hadCalls) stop = "tool_calls";
      }
    }
    if (!done && stop === null) throw bad("a stream that ended early (no finish_reason, no [DONE])");
    const hadCalls = calls.size > 0;
    yield* flushCalls();
    if (hadCalls && (stop === null || stop === "stop")) stop = "tool_calls";
  } catch (err) {
    yield finishWithError(err);
    return;
  }
  if (usage) yield { type: "usage", usage };
  yield { type: "finish", stopReason: stop ?? "stop" };
}
