/**
 * The one place that turns `ProviderSettings` into a `LanguageModel`: the wire provider for the
 * kind, wrapped in retries. Callers never import a wire provider directly.
 */
import { createAnthropic } from "./anthropic.ts";
import { createOpenAI } from "./openai.ts";
import { type ImageMode, type ImageRefusals, withImageFallback } from "./image-fallback.ts";
import { type ProviderMetrics, withMetrics } from "./metered.ts";
import { withRetry, type RetryOptions } from "./retry.ts";
import type { LanguageModel, ProviderSettings } from "./types.ts";

/**
 * A retrying `LanguageModel` for `settings.kind`; `retry` tunes or (maxRetries: 0) disables
 * retries; `images` applies `[llm] images` (src/llm/image-fallback.ts) — without it images are sent;
 * `metrics` is told of every request, each retry its own (src/llm/metered.ts).
 */
export function createLanguageModel(
  settings: ProviderSettings,
  retry?: RetryOptions,
  images?: { mode: ImageMode; refusals: ImageRefusals },
  metrics?: ProviderMetrics,
): LanguageModel {
  const wire = settings.kind === "openai" ? createOpenAI(settings) : createAnthropic(settings);
  const model = withRetry(metrics ? withMetrics(wire, metrics) : wire, retry);
  if (!images) return model;
  return withImageFallback(
    model,
    images.mode,
    images.refusals,
    `${settings.kind} ${settings.baseURL} ${settings.model}`,
  );
}

/**
 * A key as it may appear in logs and status output: "…" and its last 4 characters. Keys shorter
 * than 8 characters show nothing of themselves ("…"), since 4 characters would be half the secret;
 * an empty key is "" so "no key" stays distinguishable from "a key".
 */
export function maskKey(key: string): string {
  if (key === "") return "";
  if (key.length < 8) return "…";
  return `…${key.slice(-4)}`;
}
