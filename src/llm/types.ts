/**
 * The provider interface (version 1): one small surface every wire API implements, so the turn
 * loop never knows which provider it talks to. Modelled on vercel/ai's LanguageModel: inject
 * `baseURL` and `fetch` so a test can point a provider at a fake server.
 *
 * Contract of `stream`:
 *   - it never throws once iteration has begun; every failure — HTTP error, malformed response,
 *     timeout, abort — is the stream's last event: `{ type: "finish", stopReason: "error" |
 *     "aborted", error }`;
 *   - text arrives as `text-delta` events in order; each tool call arrives whole, once, as a
 *     `tool-call` event (arguments as the raw JSON text the model produced, unparsed);
 *   - `usage` arrives at most once, before `finish`;
 *   - exactly one `finish` event ends every stream.
 */
import { HomedError } from "../protocol/errors.ts";

export const PROVIDER_INTERFACE_VERSION = 1;

export type ProviderKind = "openai" | "anthropic";

export interface ToolCall {
  /** Provider-assigned id, echoed back with the result. */
  id: string;
  name: string;
  /** The arguments exactly as the model wrote them (JSON text, maybe invalid). */
  arguments: string;
}

/**
 * An image a tool returned or a person attached: its block and sniffed type, and — when this request sends it — its
 * bytes as base64. Without `data` a provider writes "[image: sha… omitted]" in its place (an
 * older image beyond the request's few, or a model that takes no images).
 */
export interface ChatImage {
  sha256: string;
  mime: string;
  data?: string;
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string; images?: ChatImage[] }
  | { role: "assistant"; content: string; toolCalls?: ToolCall[] }
  | { role: "tool"; toolCallId: string; name: string; content: string; isError?: boolean; images?: ChatImage[] };

export interface ToolSpec {
  /** ^[a-zA-Z0-9_-]{1,64}$ — the intersection of what OpenAI and Anthropic accept. */
  name: string;
  description: string;
  /** JSON Schema (draft-07 object schema) of the arguments. */
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  maxOutputTokens?: number;
  temperature?: number;
  /**
   * The first `prefix` messages are what the conversation's previous request carried too (the
   * system prompt and the history): a provider that caches up to a marked point marks its end.
   */
  prefix?: number;
  /** The same for every request of one conversation: a provider that routes by key keeps its cache there. */
  cacheKey?: string;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Of inputTokens, those the provider read from its prompt cache (billed at a fraction). */
  cachedInputTokens?: number;
}

export type StopReason = "stop" | "tool_calls" | "length" | "error" | "aborted";

export type StreamEvent =
  | { type: "text-delta"; text: string }
  | { type: "tool-call"; call: ToolCall }
  | { type: "usage"; usage: Usage }
  | { type: "finish"; stopReason: StopReason; error?: LlmError };

export interface LanguageModel {
  readonly kind: ProviderKind;
  readonly model: string;
  stream(request: ChatRequest, signal?: AbortSignal): AsyncIterable<StreamEvent>;
}

export interface ProviderSettings {
  kind: ProviderKind;
  /** e.g. https://api.openai.com/v1, http://127.0.0.1:11434/v1, https://api.anthropic.com */
  baseURL: string;
  model: string;
  apiKey: string;
  /** No bytes from the server for this long (before or during the stream) = timeout error. */
  idleTimeoutMs?: number;
  /** Injected for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
}

export type LlmErrorKind =
  | "auth" // 401/403: bad or missing key
  | "model_not_found" // 404 for the model, or the provider says the model does not exist
  | "rate_limit" // 429
  | "server" // 5xx
  | "bad_request" // other 4xx
  | "network" // connection refused/reset, DNS
  | "timeout" // idle timeout
  | "bad_response" // malformed JSON / SSE / schema mismatch from the provider
  | "aborted"; // cancelled by the caller

/**
 * A provider failure. `retryable` is a property of the error (408/409/429/5xx, network, timeout),
 * decided where the error is made, never guessed at the call site.
 */
export class LlmError extends HomedError<"llm"> {
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly status: number | null = null,
    readonly retryable = false,
  ) {
    super("llm", message, { kind, status, retryable });
  }
}
