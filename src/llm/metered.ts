/**
 * A provider's requests as the daemon's metrics see them (docs/metrics.md): each attempt's
 * duration, when its first output came, and how it failed. Wrapped around the wire provider,
 * inside the retries, so a 429 that a retry then got past is still counted as the provider's error.
 */
import type { LanguageModel, LlmErrorKind, ProviderKind, StreamEvent } from "./types.ts";

/** One request's end, told to whoever keeps the metrics. Called once per request, synchronously. */
export interface ProviderRequestEnd {
  provider: ProviderKind;
  /** From the call to the stream's finish. */
  seconds: number;
  /** From the call to the first text or tool call; null when none came. */
  firstOutputSeconds: number | null;
  /** How it failed, or null when it finished; "aborted" is the caller's stop, not the provider's failure. */
  error: LlmErrorKind | null;
}

export interface ProviderMetrics {
  requestEnded(r: ProviderRequestEnd): void;
}

/** `model`, telling `metrics` of every request it makes. */
export function withMetrics(model: LanguageModel, metrics: ProviderMetrics): LanguageModel {
  return {
    kind: model.kind,
    model: model.model,
    stream: (request, signal) => metered(model, metrics, model.stream(request, signal)),
  };
}

async function* metered(
  model: LanguageModel,
  metrics: ProviderMetrics,
  events: AsyncIterable<StreamEvent>,
): AsyncGenerator<StreamEvent> {
  const t0 = performance.now();
  let first: number | null = null;
  let error: LlmErrorKind | null = null;
  let ended = false;
  try {
    for await (const ev of events) {
      if (first === null && (ev.type === "text-delta" || ev.type === "tool-call")) first = performance.now();
      else if (ev.type === "finish") {
        ended = true;
        if (ev.stopReason === "aborted") error = "aborted";
        else if (ev.stopReason === "error") error = ev.error?.kind ?? "bad_response";
      }
      yield ev;
    }
  } finally {
    // A consumer that stops reading early (the turn was cancelled) ends the request too.
    metrics.requestEnded({
      provider: model.kind,
      seconds: (performance.now() - t0) / 1000,
      firstOutputSeconds: first === null ? null : (first - t0) / 1000,
      error: error ?? (ended ? null : "aborted"),
    });
  }
}
