/**
 * A fake LLM over real HTTP that speaks both wire formats — OpenAI chat completions
 * (`/v1/chat/completions`, `/chat/completions`) and Anthropic messages (`/v1/messages`) — as real
 * SSE, scripted per test, recording every request. Model: opencode `test/lib/llm-server.ts`.
 *
 *   const llm = await startFakeLlm();
 *   llm.script([{ text: "hi" }, { status: 429 }, { toolCalls: [{ name: "f", arguments: { a: 1 } }] }]);
 *   ... createOpenAI({ kind: "openai", baseURL: llm.url, ... }) or baseURL: llm.origin for Anthropic
 *   expect(llm.requests[0]!.body).toMatchObject({ ... });
 *   await llm.stop();
 */
import { expect } from "bun:test";
import { LlmError, type StreamEvent } from "../../src/llm/types.ts";
import { anthropicFrames, openAIFrames, type Wire } from "./fake-llm-wire.ts";

export interface FakeToolCall {
  name: string;
  /** An object is sent as its JSON; a string is sent verbatim (so a test can send invalid JSON). */
  arguments: string | Record<string, unknown>;
  id?: string;
}

export interface FakeUsage {
  input: number;
  output: number;
  /** Of `input`, tokens the provider says it read from its prompt cache. */
  cached?: number;
}

/** One scripted answer; each request takes the next step in order. */
export type FakeStep =
  /**
   * A streamed reply: text in a few chunks, then tool calls (parallel when several), each call's
   * arguments split across chunks. `stall` sends the chunks through the first output and then
   * nothing, keeping the connection open until the client gives up or `llm.resume()` sends the rest.
   */
  | {
      text?: string;
      /** The text's pieces on the wire (default 3). */
      chunks?: number;
      toolCalls?: FakeToolCall[];
      usage?: FakeUsage;
      finish?: "stop" | "length";
      stall?: true;
    }
  /**
   * An HTTP response: `body` defaults to the provider's own error JSON for the status; an object
   * is sent as JSON, a string verbatim (with a 2xx status: a hand-written SSE stream).
   */
  | { status: number; body?: unknown }
  /** Some chunks, then a line that is not JSON, then the rest. */
  | { malformed: true; text?: string }
  /** Accept the request and send nothing (not even headers) until the client gives up. */
  | { hang: true }
  /** Some chunks, then the connection is reset without the end of the chunked body. */
  | { drop: true; text?: string };

export interface RecordedRequest {
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The parsed JSON body ({} with `raw` set when it was not JSON). */
  body: Record<string, unknown>;
  raw: string;
}

export interface FakeLlm {
  /** Base URL for OpenAI-compatible clients: `${origin}/v1`. */
  url: string;
  /** `http://127.0.0.1:PORT`, the base URL for Anthropic clients. */
  origin: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Append steps to the script. */
  script(steps: FakeStep[]): void;
  /** Let every stalled response send the rest of its chunks. */
  resume(): void;
  /**
   * What GET /models (and /v1/models) answers from now on: these ids in OpenAI's list shape, or
   * null for a 500. Until set it is a 404. Listing requests are recorded in `listings`, not
   * `requests`, so a test counting model calls is not thrown off by a listing.
   */
  models(ids: string[] | null): void;
  /** Every model listing request received, in order. */
  listings: RecordedRequest[];
  /** Steps not yet used. */
  remaining(): number;
  /** Resolves once `n` requests have arrived (a readiness signal for tests that abort mid-request). */
  received(n: number): Promise<void>;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Gap between the last chunk of a `drop` step and the reset. Bun's fetch discards body bytes that
 * arrive in the same read as the reset, so the chunks must land in an earlier one; 20 ms held for
 * 1000 of 1000 drops under 10 parallel clients (0 ms lost 1.6 %). The wait only ever delays a drop.
 */
const DROP_GAP_MS = 20;

const encoder = new TextEncoder();

/** Start a fake LLM on 127.0.0.1 and an ephemeral port. */
export async function startFakeLlm(): Promise<FakeLlm> {
  const steps: FakeStep[] = [];
  const requests: RecordedRequest[] = [];
  // Hung and stalled responses, released when the server stops so no handler outlives the test;
  // stalled ones can also be resumed.
  const hanging = new Set<() => void>();
  const stalled = new Set<() => void>();
  const waiters: { n: number; resolve: () => void }[] = [];
  let models: string[] | null | undefined;
  const listings: RecordedRequest[] = [];

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // Off: hangs and stalls must last until the client's own idle timeout, not Bun's 10 s.
    idleTimeout: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method === "GET" && (path === "/v1/models" || path === "/models")) {
        listings.push({ path, headers: Object.fromEntries(req.headers), body: {}, raw: "" });
        if (models === undefined) return new Response(`fake-llm: no route for ${path}`, { status: 404 });
        if (models === null) return errorResponse("openai", 500, defaultMessage(500));
        return Response.json({
          object: "list",
          data: models.map((id) => ({ id, object: "model", created: 1700000000, owned_by: "fake" })),
        });
      }
      const raw = await req.text();
      let body: Record<string, unknown> = {};
      try {
        const parsed: unknown = JSON.parse(raw);
        if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
          body = parsed as Record<string, unknown>;
      } catch {
        // Recorded as raw; the test sees what was sent.
      }
      requests.push({ path, headers: Object.fromEntries(req.headers), body, raw });
      for (const w of waiters.filter((w) => requests.length >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }

      const wire: Wire | null =
        path === "/v1/messages"
          ? "anthropic"
          : path === "/v1/chat/completions" || path === "/chat/completions"
            ? "openai"
            : null;
      if (wire === null) return new Response(`fake-llm: no route for ${path}`, { status: 404 });
      const step = steps.shift();
      if (step === undefined) {
        return errorResponse(
          wire,
          500,
          `fake-llm: script exhausted — no step left for request #${requests.length} (POST ${path})`,
        );
      }
      if ("status" in step) {
        return step.body === undefined
          ? errorResponse(wire, step.status, defaultMessage(step.status))
          : typeof step.body === "string"
            ? new Response(step.body, {
                status: step.status,
                headers: { "content-type": step.status < 300 ? "text/event-stream" : "text/plain" },
              })
            : Response.json(step.body, { status: step.status });
      }
      if ("hang" in step) {
        return new Promise<Response>((resolve) => {
          const release = () => {
            hanging.delete(release);
            resolve(new Response("fake-llm: released", { status: 503 }));
          };
          hanging.add(release);
          req.signal.addEventListener("abort", release, { once: true });
        });
      }

      const model = typeof body.model === "string" ? body.model : "fake-model";
      const reply = "malformed" in step || "drop" in step ? { text: step.text ?? "partial answer" } : step;
      const usage = reply.usage ?? { input: 11, output: 7 };
      const wantsUsage =
        wire === "anthropic" ||
        (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
      const { frames, cut } =
        wire === "openai"
          ? openAIFrames(model, reply, wantsUsage ? usage : null)
          : anthropicFrames(model, reply, usage);
      // Cut-off steps send the frames through the first output, then misbehave.
      let plan: { frames: string[]; ending: "end" | "drop"; stallAt?: number };
      if ("malformed" in step) {
        const junk =
          wire === "openai"
            ? `data: {"choices": [{"delta": {"content": "trunc\n\n`
            : `event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {\n\n`;
        plan = { frames: [...frames.slice(0, cut), junk, ...frames.slice(cut)], ending: "end" };
      } else if ("drop" in step) plan = { frames: frames.slice(0, cut), ending: "drop" };
      else if ("stall" in step && step.stall) plan = { frames, ending: "end", stallAt: cut };
      else plan = { frames, ending: "end" };

      let i = 0;
      const stream = new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            if (i === plan.stallAt) {
              plan.stallAt = undefined;
              const resumed = await new Promise<boolean>((resolve) => {
                const release = () => {
                  hanging.delete(release);
                  stalled.delete(resume);
                  resolve(false);
                };
                const resume = () => {
                  hanging.delete(release);
                  stalled.delete(resume);
                  resolve(true);
                };
                hanging.add(release);
                stalled.add(resume);
                req.signal.addEventListener("abort", release, { once: true });
              });
              if (!resumed) return controller.close();
            }
            const frame = plan.frames[i++];
            if (frame !== undefined) return controller.enqueue(encoder.encode(frame));
            if (plan.ending === "end") return controller.close();
            await new Promise((r) => setTimeout(r, DROP_GAP_MS));
            // error() without a reason resets the connection without Bun logging an uncaught error.
            controller.error();
          },
        },
        { highWaterMark: 0 },
      );
      return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
    },
  });

  const origin = `http://127.0.0.1:${server.port}`;
  const stop = async () => {
    for (const release of [...hanging]) release();
    await server.stop(true);
  };
  return {
    url: `${origin}/v1`,
    origin,
    requests,
    listings,
    script: (more) => void steps.push(...more),
    models: (ids) => {
      models = ids;
    },
    remaining: () => steps.length,
    resume: () => {
      for (const resume of [...stalled]) resume();
    },
    received: (n) =>
      requests.length >= n ? Promise.resolve() : new Promise<void>((resolve) => void waiters.push({ n, resolve })),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

function defaultMessage(status: number): string {
  switch (status) {
    case 401:
      return "Incorrect API key provided.";
    case 403:
      return "Your key does not have access to this resource.";
    case 404:
      return "The model does not exist or you do not have access to it.";
    case 429:
      return "Rate limit reached for requests.";
    default:
      return status >= 500 ? "The server had an error while processing your request." : "Invalid request.";
  }
}

/** The provider's own error JSON for `status`, as each API shapes it. */
function errorResponse(wire: Wire, status: number, message: string): Response {
  const body =
    wire === "openai"
      ? {
          error: {
            message,
            type: status === 429 ? "requests" : status >= 500 ? "server_error" : "invalid_request_error",
            param: null,
            code: status === 401 ? "invalid_api_key" : status === 404 ? "model_not_found" : null,
          },
        }
      : { type: "error", error: { type: anthropicErrorType(status), message } };
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

function anthropicErrorType(status: number): string {
  const types: Record<number, string> = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
  };
  return types[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

/** Every event of a stream, in order. A throw here is a contract breach and fails the test. */
export async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const ev of events) out.push(ev);
  return out;
}

/** The concatenated text of `events`. */
export function textOf(events: StreamEvent[]): string {
  return events.map((e) => (e.type === "text-delta" ? e.text : "")).join("");
}

/** The single finish event that ends a stream (fails the test if there is not exactly one, last). */
export function finishOf(events: StreamEvent[]): Extract<StreamEvent, { type: "finish" }> {
  const last = events.at(-1);
  if (last?.type !== "finish") throw new Error(`last event is not finish: ${JSON.stringify(last)}`);
  expect(events.filter((e) => e.type === "finish")).toHaveLength(1);
  return last;
}

/** The LlmError a stream ended with. */
export function errorOf(events: StreamEvent[]): LlmError {
  const f = finishOf(events);
  expect(f.error).toBeInstanceOf(LlmError);
  return f.error as LlmError;
}
