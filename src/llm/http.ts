/**
 * The HTTP half shared by the wire providers: one streaming POST with an idle timeout, and the one
 * mapping from HTTP failures to `LlmError`. Providers only parse the body they are handed.
 */
import * as v from "valibot";
import { LlmError, type ProviderSettings } from "./types.ts";

/** Default for `ProviderSettings.idleTimeoutMs`: long enough for a slow first token of a big prompt. */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

/** Bound on an error body we read: enough for any provider's JSON error, not for a runaway HTML page. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** Bound on the provider's own message quoted in ours, so one error cannot flood a log line. */
const MAX_QUOTED_MESSAGE_CHARS = 500;

/**
 * The error bodies providers send: OpenAI and Anthropic `{error: {message, type, code}}`, Ollama
 * and llama.cpp `{error: "text"}`, some proxies `{message}`.
 */
const ErrorBody = v.looseObject({
  error: v.optional(
    v.union([
      v.string(),
      v.looseObject({
        message: v.optional(v.string()),
        type: v.optional(v.nullable(v.string())),
        code: v.optional(v.nullable(v.union([v.string(), v.number()]))),
      }),
    ]),
  ),
  message: v.optional(v.string()),
});

/** What a provider said about a failure, as far as we could tell from its body. */
export interface ProviderComplaint {
  message: string;
  type: string | null;
  code: string | null;
}

/**
 * Extract the provider's own message (and error type/code) from an error body, or the body's text
 * when it is not JSON of a known shape. Never throws.
 */
export function providerComplaint(body: string): ProviderComplaint {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { message: clip(body.trim()), type: null, code: null };
  }
  const parsed = v.safeParse(ErrorBody, json);
  if (!parsed.success) return { message: "", type: null, code: null };
  const { error, message } = parsed.output;
  if (typeof error === "string") return { message: clip(error), type: null, code: null };
  return {
    message: clip(error?.message ?? message ?? ""),
    type: error?.type ?? null,
    code: error?.code == null ? null : String(error.code),
  };
}

function clip(text: string): string {
  return text.length > MAX_QUOTED_MESSAGE_CHARS ? `${text.slice(0, MAX_QUOTED_MESSAGE_CHARS)}…` : text;
}

/** Remove the key from text we did not write, in case a provider or proxy echoes it back. */
export function redactKey(text: string, apiKey: string): string {
  return apiKey.length > 0 ? text.split(apiKey).join("[redacted]") : text;
}

/** Where the provider lives, for messages: host and port, never the path or query. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/**
 * Map a non-2xx response to an `LlmError`. The message names the provider host and status, quotes
 * the provider's own explanation when it gave one, and never contains the API key.
 */
export function httpError(settings: ProviderSettings, url: string, status: number, body: string): LlmError {
  const said = providerComplaint(redactKey(body, settings.apiKey));
  const quote = said.message ? `: ${said.message}` : "";
  const where = `${settings.kind} provider at ${hostOf(url)}`;
  if (status === 401 || status === 403) {
    const what = settings.apiKey === "" ? "rejected the request; no API key is configured" : "rejected the API key";
    return new LlmError("auth", `${where} ${what} (HTTP ${status})${quote}`, status);
  }
  if (status === 404 || said.code === "model_not_found") {
    // The path is named too: a 404 is as often a wrong baseURL as an unknown model.
    return new LlmError(
      "model_not_found",
      `${where} does not know model "${settings.model}" (HTTP ${status} for ${pathOf(url)})${quote}`,
      status,
    );
  }
  if (status === 429)
    return new LlmError("rate_limit", `${where} is rate limiting requests (HTTP 429)${quote}`, status, true);
  if (status === 408 || status === 409 || status >= 500) {
    return new LlmError("server", `${where} failed (HTTP ${status})${quote}`, status, true);
  }
  if (status >= 400)
    return new LlmError("bad_request", `${where} refused the request (HTTP ${status})${quote}`, status);
  return new LlmError("bad_response", `${where} answered with unexpected HTTP ${status}${quote}`, status);
}

/**
 * POST `body` (the provider's JSON, as text or bytes) to `url` and return the response body as a
 * stream, or throw an `LlmError` (this function's only failure mode) when no 2xx response arrives.
 *
 * The idle timeout (`settings.idleTimeoutMs`, default 120 s) runs from the request until the
 * headers, then during every read of the body: a server that sends nothing for that long fails
 * the request or the stream with a retryable "timeout". The returned stream's reads fail with an
 * `LlmError` as well: "timeout", "aborted" (caller's `signal`), or retryable "network" when the
 * connection breaks mid-body. Cancelling the returned stream closes the connection.
 */
export async function postStream(
  settings: ProviderSettings,
  url: string,
  headers: Record<string, string>,
  body: string | Uint8Array,
  signal?: AbortSignal,
): Promise<ReadableStream<Uint8Array>> {
  const aborted = () => new LlmError("aborted", "the request was aborted by the caller");
  if (signal?.aborted) throw aborted();
  try {
    new URL(url);
  } catch {
    throw new LlmError("bad_request", `invalid provider URL ${JSON.stringify(url)} (check baseURL)`);
  }
  const idleMs = settings.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const host = hostOf(url);
  const controller = new AbortController();
  // Widened on purpose: set from callbacks (timer, abort), which control-flow narrowing cannot see.
  let failure = null as LlmError | null;
  const fail = (err: LlmError) => {
    if (failure) return;
    failure = err;
    controller.abort(err);
  };
  // Settles like `p`, or rejects with the failure as soon as there is one, so a stalled read
  // cannot outlive a timeout or an abort. The listener goes away with each read.
  const guard = <T>(p: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (controller.signal.aborted) return reject(failure);
      const onFail = () => reject(failure);
      controller.signal.addEventListener("abort", onFail, { once: true });
      p.then(
        (x) => {
          controller.signal.removeEventListener("abort", onFail);
          resolve(x);
        },
        (e: unknown) => {
          controller.signal.removeEventListener("abort", onFail);
          reject(e);
        },
      );
    });
  const onAbort = () => fail(aborted());
  signal?.addEventListener("abort", onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(
      () =>
        fail(new LlmError("timeout", `no data from ${settings.kind} provider at ${host} for ${idleMs} ms`, null, true)),
      idleMs,
    );
  };
  const done = () => {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  };

  arm();
  let res: Response;
  try {
    res = await (settings.fetch ?? fetch)(url, {
      method: "POST",
      headers,
      body,
      signal: controller.signal,
    });
  } catch (err) {
    done();
    throw (
      failure ??
      new LlmError(
        "network",
        `cannot reach ${settings.kind} provider at ${host}: ${describe(err, settings.apiKey)}`,
        null,
        true,
      )
    );
  }

  if (!res.ok || !res.body) {
    arm();
    let text = "";
    try {
      text = await readLimited(res, guard);
    } catch {
      // An unreadable error body still leaves the status to report.
    }
    done();
    // A status in hand says more than a timeout while reading its explanation; an abort wins.
    if (failure?.kind === "aborted") throw failure;
    if (res.ok)
      throw new LlmError(
        "bad_response",
        `${settings.kind} provider at ${host} sent an empty response body`,
        res.status,
      );
    throw httpError(settings, url, res.status, text);
  }

  clearTimeout(timer);
  const reader = res.body.getReader();
  // No read-ahead (high-water mark 0): a read is outstanding only while the caller waits for one,
  // so the idle clock never counts time the caller spent elsewhere.
  return new ReadableStream<Uint8Array>(
    {
      async pull(out) {
        try {
          if (failure) throw failure;
          // The clock runs only while we wait on the server: a caller slow to pull is not idleness.
          arm();
          const chunk = await guard(reader.read());
          clearTimeout(timer);
          if (chunk.done) {
            done();
            out.close();
            return;
          }
          out.enqueue(chunk.value);
        } catch (err) {
          done();
          reader.cancel().catch(() => {});
          out.error(
            failure ??
              new LlmError(
                "network",
                `connection to ${settings.kind} provider at ${host} broke mid-stream: ${describe(err, settings.apiKey)}`,
                null,
                true,
              ),
          );
        }
      },
      async cancel() {
        done();
        controller.abort();
        await reader.cancel().catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}

/** Read at most MAX_ERROR_BODY_BYTES of `res` as text, then drop the rest. */
async function readLimited(res: Response, guard: <T>(p: Promise<T>) => Promise<T>): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_ERROR_BODY_BYTES) {
      const chunk = await guard(reader.read());
      if (chunk.done) break;
      chunks.push(chunk.value);
      size += chunk.value.byteLength;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const all = new Uint8Array(Math.min(size, MAX_ERROR_BODY_BYTES));
  let at = 0;
  for (const c of chunks) {
    const part = c.subarray(0, all.length - at);
    all.set(part, at);
    at += part.length;
  }
  return new TextDecoder().decode(all);
}

/** What a network failure's code means for the person setting up a provider: what to check. */
const NETWORK_ADVICE: Record<string, string> = {
  ECONNREFUSED: "nothing answers at that address and port: check the base URL, and that the server is running",
  ConnectionRefused: "nothing answers at that address and port: check the base URL, and that the server is running",
  ENOTFOUND: "the host name does not resolve: check the base URL's host, and the machine's DNS",
  EAI_AGAIN: "the host name could not be resolved now: check the machine's DNS and network",
  ETIMEDOUT: "the connection timed out: check the address, and any firewall or proxy on the way",
  ECONNRESET: "the server closed the connection: check the base URL, and whether it speaks HTTP there",
  EPROTO: "the TLS handshake failed: does the server speak https on that port (or should the URL be http)?",
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is self-signed and not trusted by this machine",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's TLS certificate chain is not trusted by this machine",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's TLS certificate is not trusted by this machine",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's TLS certificate is for another host name",
};

/**
 * A thrown value as text for a message: what to check for a failure we know (the runtime's own
 * wording — "Is the computer able to access the url?" — says nothing a person can act on), with
 * its code; the runtime's message otherwise. The key is removed either way.
 */
function describe(err: unknown, apiKey: string): string {
  const code = err instanceof Error && "code" in err && typeof err.code === "string" ? err.code : null;
  const message = err instanceof Error ? err.message : String(err);
  const advice = code ? NETWORK_ADVICE[code] : undefined;
  const text = advice ? `${advice} (${code})` : code && !message.includes(code) ? `${code}: ${message}` : message;
  return redactKey(text, apiKey);
}

/**
 * The error a provider reported inside a 2xx stream (OpenAI `{error}` chunk, Anthropic `error`
 * event), classified by the provider's error type so an overload is retried and a bad request is not.
 */
export function streamError(settings: ProviderSettings, said: ProviderComplaint): LlmError {
  const tag = `${said.type ?? ""} ${said.code ?? ""}`;
  const text = `${settings.kind} provider reported an error mid-stream${said.type ? ` (${said.type})` : ""}: ${redactKey(said.message, settings.apiKey) || "no message"}`;
  if (/rate_limit/.test(tag)) return new LlmError("rate_limit", text, null, true);
  if (/overloaded|api_error|server_error/.test(tag)) return new LlmError("server", text, null, true);
  if (/authentication|permission/.test(tag)) return new LlmError("auth", text);
  if (/not_found/.test(tag)) return new LlmError("model_not_found", `${text} (model "${settings.model}")`);
  if (/invalid_request/.test(tag)) return new LlmError("bad_request", text);
  return new LlmError("bad_response", text);
}

/** The stream's last event for a failure; anything that is not an `LlmError` is a bad response. */
export function finishWithError(err: unknown): { type: "finish"; stopReason: "error" | "aborted"; error: LlmError } {
  const error =
    err instanceof LlmError
      ? err
      : new LlmError(
          "bad_response",
          `unexpected failure reading the provider's response: ${err instanceof Error ? err.message : String(err)}`,
        );
  return { type: "finish", stopReason: error.kind === "aborted" ? "aborted" : "error", error };
}

/** `baseURL` without trailing slashes, so path joins never produce `//`. */
export function trimBase(baseURL: string): string {
  return baseURL.replace(/\/+$/, "");
}
