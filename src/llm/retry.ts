/**
 * Retrying a request is only safe while the caller has seen nothing of it: once a text-delta or
 * tool-call reached the turn loop, a second attempt would duplicate or contradict it, so from then
 * on an error is passed through as the final event.
 */
import { LlmError, type ChatRequest, type LanguageModel, type StreamEvent } from "./types.ts";

export interface RetryOptions {
  /** Further attempts after the first; 0 disables retrying. Default 3. */
  maxRetries?: number;
  /** Delay before the first retry; doubles per retry. Default 500 ms. */
  baseDelayMs?: number;
  /** Cap on one delay. Default 8000 ms. */
  maxDelayMs?: number;
  /**
   * Waits `ms`, resolving early (or rejecting) when `signal` aborts. Injected by tests to record
   * the delays and skip the waiting.
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Source of jitter in [0, 1); injected by tests for exact delays. Default Math.random. */
  random?: () => number;
}

/** The delay before retry number `retry` (0-based): exponential, capped, jittered to 50–100 %. */
export function backoffDelay(retry: number, options: RetryOptions = {}): number {
  const base = options.baseDelayMs ?? 500;
  const cap = options.maxDelayMs ?? 8000;
  const full = Math.min(cap, base * 2 ** retry);
  // Half fixed, half random: spreads clients that failed together without ever retrying at once.
  return Math.round(full / 2 + (full / 2) * (options.random ?? Math.random)());
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Wrap `model` so that a stream which fails with a retryable `LlmError` before yielding any
 * text-delta or tool-call is started again, up to `maxRetries` times, with exponential backoff.
 * Events other than output (usage) of a discarded attempt are dropped with it, so the caller sees
 * exactly one attempt's events. An abort during the wait ends the stream with "aborted".
 */
export function withRetry(model: LanguageModel, options: RetryOptions = {}): LanguageModel {
  const maxRetries = options.maxRetries ?? 3;
  const sleep = options.sleep ?? abortableSleep;
  return {
    kind: model.kind,
    model: model.model,
    stream: (request, signal) => retrying(model, request, signal, maxRetries, sleep, options),
  };
}

async function* retrying(
  model: LanguageModel,
  request: ChatRequest,
  signal: AbortSignal | undefined,
  maxRetries: number,
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  options: RetryOptions,
): AsyncGenerator<StreamEvent> {
  for (let attempt = 0; ; attempt++) {
    // Held back until the first output event, because this attempt may yet be discarded.
    const held: StreamEvent[] = [];
    let committed = false;
    let retry = false;
    try {
      for await (const ev of model.stream(request, signal)) {
        if (!committed && ev.type === "finish" && ev.error?.retryable && attempt < maxRetries && !signal?.aborted) {
          retry = true;
          break;
        }
        if (committed) {
          yield ev;
          continue;
        }
        held.push(ev);
        if (ev.type === "text-delta" || ev.type === "tool-call" || ev.type === "finish") {
          committed = true;
          yield* held;
        }
      }
    } catch (err) {
      // The interface promises no throws; a model that breaks it still must not break the caller's loop.
      const error =
        err instanceof LlmError
          ? err
          : new LlmError("bad_response", `provider threw: ${err instanceof Error ? err.message : String(err)}`);
      yield { type: "finish", stopReason: error.kind === "aborted" ? "aborted" : "error", error };
      return;
    }
    if (!retry) {
      // Only reached without a finish when a model broke the contract; still pass on what it said.
      if (!committed) yield* held;
      return;
    }
    try {
      await sleep(backoffDelay(attempt, options), signal);
    } catch {
      // A sleep that rejects on abort is as good as one that resolves early.
    }
    if (signal?.aborted) {
      yield {
        type: "finish",
        stopReason: "aborted",
        error: new LlmError("aborted", "the request was aborted by the caller while waiting to retry"),
      };
      return;
    }
  }
}
