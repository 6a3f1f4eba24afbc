/**
 * The Anthropic Messages API (`POST /v1/messages`), streamed. Text and tool_use content blocks
 * only; thinking and server-tool blocks are skipped.
 */
import * as v from "valibot";
import { finishWithError, postStream, providerComplaint, streamError, trimBase } from "./http.ts";
import { sentImages, textWithOmitted } from "./image-parts.ts";
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
  type Usage,
} from "./types.ts";

/** The API version this mapping was written against; the header is mandatory. */
export const ANTHROPIC_VERSION = "2023-06-01";

/** Used when the request sets no limit: the API requires `max_tokens`. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

const Count = v.optional(v.nullable(v.number()));
const UsageFields = v.looseObject({
  input_tokens: Count,
  output_tokens: Count,
  cache_creation_input_tokens: Count,
  cache_read_input_tokens: Count,
});

/** Minimal, loose schemas of the events we act on; anything else only needs a `type`. */
const Event = v.variant("type", [
  v.looseObject({ type: v.literal("message_start"), message: v.looseObject({ usage: v.optional(UsageFields) }) }),
  v.looseObject({
    type: v.literal("content_block_start"),
    index: v.number(),
    content_block: v.looseObject({
      type: v.string(),
      id: v.optional(v.string()),
      name: v.optional(v.string()),
      text: v.optional(v.string()),
    }),
  }),
  v.looseObject({
    type: v.literal("content_block_delta"),
    index: v.number(),
    delta: v.looseObject({ type: v.string(), text: v.optional(v.string()), partial_json: v.optional(v.string()) }),
  }),
  v.looseObject({ type: v.literal("content_block_stop"), index: v.number() }),
  v.looseObject({
    type: v.literal("message_delta"),
    delta: v.optional(v.looseObject({ stop_reason: v.optional(v.nullable(v.string())) })),
    usage: v.optional(UsageFields),
  }),
  v.looseObject({ type: v.literal("message_stop") }),
  v.looseObject({ type: v.literal("ping") }),
  v.looseObject({ type: v.literal("error"), error: v.optional(v.unknown()) }),
]);
const Typed = v.looseObject({ type: v.string() });
const KNOWN_EVENTS = new Set([
  "message_start",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "message_delta",
  "message_stop",
  "ping",
  "error",
]);

type Block = Record<string, unknown>;

/** Neighbours of the same role, one turn on the wire (tool results go in the user's turn). */
interface WireTurn {
  role: "user" | "assistant";
  msgs: ChatMessage[];
  /** The last block of its first `cacheAfter` messages is a cache breakpoint: the end of the prefix the next request extends. */
  cacheAfter?: number;
}

/** A message's content blocks. */
function blocksOf(m: ChatMessage): Block[] {
  switch (m.role) {
    case "system":
      // Said after the conversation began: text in the user turn it precedes.
      return [{ type: "text", text: m.content }];
    case "user": {
      // A person's images first, then the words (the order the API recommends).
      const images = sentImages(m).map((i) => ({
        type: "image",
        source: { type: "base64", media_type: i.mime, data: i.data },
      }));
      const text = m.images?.length ? textWithOmitted(m) : m.content;
      return [...images, ...(text || images.length === 0 ? [{ type: "text", text }] : [])];
    }
    case "assistant": {
      const blocks: Block[] = m.content === "" ? [] : [{ type: "text", text: m.content }];
      for (const c of m.toolCalls ?? [])
        blocks.push({ type: "tool_use", id: c.id, name: c.name, input: toolInput(c.arguments) });
      return blocks.length > 0 ? blocks : [{ type: "text", text: m.content }];
    }
    case "tool": {
      // Images go inside the tool_result, after its text, as the API documents.
      const images = sentImages(m);
      const content =
        images.length === 0
          ? textWithOmitted(m)
          : [
              { type: "text", text: textWithOmitted(m) || "(no text)" },
              ...images.map((i) => ({ type: "image", source: { type: "base64", media_type: i.mime, data: i.data } })),
            ];
      return [{ type: "tool_result", tool_use_id: m.toolCallId, content, is_error: m.isError ?? false }];
    }
  }
}

/**
 * A turn's JSON; a turn that is one text block goes as a plain string, the form the API documents
 * first, unless that block carries the cache breakpoint.
 */
function turnJson(t: WireTurn): string {
  const content = t.msgs.flatMap(blocksOf);
  if (t.cacheAfter !== undefined) {
    const at = t.msgs.slice(0, t.cacheAfter).flatMap(blocksOf).length - 1;
    const block = content[at];
    if (block) content[at] = { ...block, cache_control: { type: "ephemeral" } };
  }
  const only = content.length === 1 && t.cacheAfter === undefined ? content[0] : undefined;
  return JSON.stringify({ role: t.role, content: only?.type === "text" ? only.text : content });
}

/** Recent requests' turns as written, for the next request of the same conversation (see openai.ts). */
const written = new MessageBytes<WireTurn>(
  turnJson,
  (a, b) =>
    a.role === b.role &&
    a.cacheAfter === b.cacheAfter &&
    a.msgs.length === b.msgs.length &&
    a.msgs.every((m, i) => sameMessage(m, b.msgs[i] as ChatMessage)),
);
/** The offered tools' JSON, kept from call to call. */
const toolJson = new ToolJson((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));

/**
 * The request body for `request`, as the bytes to send: the leading system messages lifted out,
 * same-role neighbours merged into one turn (tool results answering one assistant turn must sit
 * in the single user message that follows it, tool_result blocks first). A system message after
 * the conversation has begun (what changes per turn: recall notes, a scene's persona) is text in
 * the user turn it precedes; lifted into `system`, it would change what comes before the history
 * and nothing of the history could be read from the cache.
 *
 * Cache breakpoints (Anthropic caches only up to one): after homed's system prompt, so the tools
 * and that prompt are cached even when the history changes, and after the history the previous
 * request carried too (`request.prefix`), which the next request extends.
 */
function anthropicBody(model: string, request: ChatRequest): Uint8Array {
  const system: string[] = [];
  const turns: WireTurn[] = [];
  const prefix = request.prefix ?? 0;
  request.messages.forEach((m, i) => {
    if (m.role === "system" && turns.length === 0) {
      system.push(m.content);
      return;
    }
    const role = m.role === "assistant" ? "assistant" : "user";
    const last = turns.at(-1);
    if (last && last.role === role) last.msgs.push(m);
    else turns.push({ role, msgs: [m] });
    if (i === prefix - 1) {
      const t = turns.at(-1) as WireTurn;
      t.cacheAfter = t.msgs.length;
    }
  });
  const body: Record<string, unknown> = {
    model,
    max_tokens: request.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    stream: true,
  };
  if (system.length > 0)
    body.system = system.map((text, i) =>
      i === 0 ? { type: "text", text, cache_control: { type: "ephemeral" } } : { type: "text", text },
    );
  if (request.temperature !== undefined) body.temperature = request.temperature;
  // Messages last, each turn's JSON written once and reused while the turn is unchanged.
  return written.encode(turns, toolJson.head(body, request.tools), "]}");
}

/**
 * `input` must be a JSON object. Arguments the model wrote badly become `{}`: the turn loop has
 * already told the model its call was invalid, and the API would reject the whole request.
 */
function toolInput(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  return {};
}

function stopReasonOf(reason: string): StopReason {
  switch (reason) {
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
      return "length";
    default:
      // end_turn, stop_sequence, refusal, pause_turn…: the turn is over.
      return "stop";
  }
}

/** The `/v1/messages` URL under `baseURL`, with or without a trailing `/v1` in it. */
function anthropicURL(baseURL: string): string {
  const base = trimBase(baseURL);
  return base.endsWith("/v1") ? `${base}/messages` : `${base}/v1/messages`;
}

/**
 * A `LanguageModel` for the Anthropic Messages API at `baseURL` (`https://api.anthropic.com`,
 * with or without `/v1`). Input usage counts cached prompt tokens too, like OpenAI's `prompt_tokens`.
 */
export function createAnthropic(settings: ProviderSettings): LanguageModel {
  return {
    kind: "anthropic",
    model: settings.model,
    stream: (request, signal) => streamAnthropic(settings, request, signal),
  };
}

async function* streamAnthropic(
  settings: ProviderSettings,
  request: ChatRequest,
  signal?: AbortSignal,
): AsyncGenerator<StreamEvent> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "text/event-stream",
    "anthropic-version": ANTHROPIC_VERSION,
  };
  if (settings.apiKey !== "") headers["x-api-key"] = settings.apiKey;
  let body: ReadableStream<Uint8Array>;
  try {
    body = await postStream(
      settings,
      anthropicURL(settings.baseURL),
      headers,
      anthropicBody(settings.model, request),
      signal,
    );
  } catch (err) {
    yield finishWithError(err);
    return;
  }

  const bad = (what: string) => new LlmError("bad_response", `${settings.kind} provider sent ${what}`);
  // Open tool_use blocks by content-block index; each is emitted whole at its content_block_stop.
  const tools = new Map<number, { id: string; name: string; arguments: string }>();
  let stop: StopReason | null = null;
  let sawCalls = false;
  let input: number | null = null;
  let output: number | null = null;
  /** Of the input, tokens read from the prompt cache. */
  let cached = 0;
  let ended = false;

  function* emit(index: number): Generator<StreamEvent> {
    const t = tools.get(index);
    if (!t) return;
    tools.delete(index);
    sawCalls = true;
    yield { type: "tool-call", call: { id: t.id, name: t.name, arguments: t.arguments === "" ? "{}" : t.arguments } };
  }

  try {
    for await (const sse of parseSse(body)) {
      let json: unknown;
      try {
        json = JSON.parse(sse.data);
      } catch {
        throw bad(`a line that is not JSON: ${JSON.stringify(sse.data.slice(0, 200))}`);
      }
      const typed = v.safeParse(Typed, json);
      if (!typed.success) throw bad(`an event without a type (SSE event ${JSON.stringify(sse.event ?? "")})`);
      // Event types added after this was written are skipped, as the API's versioning policy asks.
      if (!KNOWN_EVENTS.has(typed.output.type)) continue;
      const parsed = v.safeParse(Event, json);
      if (!parsed.success)
        throw bad(`a ${typed.output.type} event of unexpected shape: ${v.summarize(parsed.issues).slice(0, 300)}`);
      const ev = parsed.output;
      switch (ev.type) {
        case "message_start": {
          const u = ev.message.usage;
          if (u) {
            input = (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
            cached = u.cache_read_input_tokens ?? 0;
          }
          break;
        }
        case "content_block_start": {
          const b = ev.content_block;
          if (b.type === "text" && b.text) yield { type: "text-delta", text: b.text };
          if (b.type === "tool_use") {
            if (!b.id || !b.name) throw bad("a tool_use block without id or name");
            tools.set(ev.index, { id: b.id, name: b.name, arguments: "" });
          }
          break;
        }
        case "content_block_delta":
          if (ev.delta.type === "text_delta" && ev.delta.text) yield { type: "text-delta", text: ev.delta.text };
          else if (ev.delta.type === "input_json_delta") {
            const t = tools.get(ev.index);
            if (t) t.arguments += ev.delta.partial_json ?? "";
          }
          break;
        case "content_block_stop":
          yield* emit(ev.index);
          break;
        case "message_delta":
          if (ev.delta?.stop_reason) stop = stopReasonOf(ev.delta.stop_reason);
          if (ev.usage?.output_tokens != null) output = ev.usage.output_tokens;
          break;
        case "message_stop":
          ended = true;
          break;
        case "ping":
          break;
        case "error":
          throw streamError(settings, providerComplaint(JSON.stringify({ error: ev.error })));
      }
      if (ended) break;
    }
    if (!ended && stop === null) throw bad("a stream that ended early (no stop_reason, no message_stop)");
    for (const index of [...tools.keys()].sort((a, b) => a - b)) yield* emit(index);
  } catch (err) {
    yield finishWithError(err);
    return;
  }
  if (input !== null || output !== null) {
    const usage: Usage = { inputTokens: input ?? 0, outputTokens: output ?? 0 };
    if (cached > 0) usage.cachedInputTokens = cached;
    yield { type: "usage", usage };
  }
  if (sawCalls && (stop === null || stop === "stop")) stop = "tool_calls";
  yield { type: "finish", stopReason: stop ?? "stop" };
}
