/**
 * The one place that turns `ProviderSettings` into a `LanguageModel`: the wire provider for the
 * kind, wrapped in retries. Callers never import a wire provider directly.
 */
import { createAnthropic } from "./anthropic.ts";
import { createOpenAI } from "./openai.ts";
import { withRetry, type RetryOptions } from "./retry.ts";
import type { LanguageModel, ProviderSettings } from "./types.ts";

/** A retrying `LanguageModel` for `settings.kind`; `retry` tunes or (maxRetries: 0) disables retries. */
export function createLanguageModel(settings: ProviderSettings, retry?: RetryOptions): LanguageModel {
  switch (settings.kind) {
    case "openai":
      return withRetry(createOpenAI(settings), retry);
    case "anthropic":
      return withRetry(createAnthropic(settings), retry);
  }
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
