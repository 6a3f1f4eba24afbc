/**
 * Errors under /v1 in OpenAI's shape, `{"error": {"message", "type", "code"}}`, so OpenAI's own
 * clients (and Open WebUI, LibreChat) raise the right exception and show the message. The
 * status says what happened; `type` follows it the way OpenAI's API does; `code` is specific when
 * homed knows more (model_not_found, rate_limit_exceeded, upstream_error).
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export interface OpenAiErrorBody {
  error: { message: string; type: string; code: string | null; param: null };
}

/** OpenAI's error type for an HTTP status. */
function typeOf(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

export function openAiErrorBody(status: number, message: string, code: string | null = null): OpenAiErrorBody {
  return { error: { message, type: typeOf(status), code, param: null } };
}

/** Answer `c` with an OpenAI-shaped error. */
export function openAiError(c: Context, status: ContentfulStatusCode, message: string, code: string | null = null) {
  return c.json(openAiErrorBody(status, message, code), status);
}

/** Whether a path is under /v1, where errors take OpenAI's shape. */
export const isOpenAiPath = (path: string) => path === "/v1" || path.startsWith("/v1/");

/**
 * The HTTP status and code for a turn that failed: by the LLM error's kind (src/llm/types.ts),
 * or "no_model" when no provider is configured. A failing provider is a 502, a rate-limited one
 * a 429 the client may retry; a provider refusing the request itself (too long for the model, a
 * tool schema it will not take) is a 400, which clients do not retry: it would fail again.
 */
export function turnFailure(kind: string | undefined): { status: ContentfulStatusCode; code: string } {
  switch (kind) {
    case "no_model":
      return { status: 503, code: "model_not_configured" };
    case "rate_limit":
      return { status: 429, code: "rate_limit_exceeded" };
    case "model_not_found":
      return { status: 404, code: "model_not_found" };
    case "bad_request":
      return { status: 400, code: "provider_rejected_request" };
    default:
      return { status: 502, code: "upstream_error" };
  }
}
