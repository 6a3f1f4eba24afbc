/** `llm.test` / `llm/test`: one short call to the configured model, reported as a person wants it. */
import type { LlmTestResult } from "../protocol/control.ts";
import type { KernelServices } from "./kernel-services.ts";

/** Bound on the whole test call: a hung provider must not hang the settings page. */
const TEST_TIMEOUT_MS = 30_000;

/**
 * Send a one-line prompt to the configured model (or `model`, one built from settings not saved
 * yet) and say what happened. Never throws for a provider failure.
 */
export async function checkModel(
  llm: KernelServices["llm"],
  model: ReturnType<KernelServices["llm"]["model"]> = llm.model(),
): Promise<LlmTestResult> {
  const t0 = performance.now();
  if (typeof model === "string") return { ok: false, message: model, latencyMs: 0 };
  let text = "";
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), TEST_TIMEOUT_MS);
  try {
    for await (const ev of model.stream(
      { messages: [{ role: "user", content: "Reply with the single word: ok" }], maxOutputTokens: 16 },
      ac.signal,
    )) {
      if (ev.type === "text-delta") text += ev.text;
      if (ev.type === "finish" && (ev.stopReason === "error" || ev.stopReason === "aborted")) {
        return {
          ok: false,
          message: ev.error?.message ?? "the test call was cancelled (30 s)",
          latencyMs: Math.round(performance.now() - t0),
        };
      }
    }
  } finally {
    clearTimeout(timer);
  }
  return {
    ok: true,
    message: `${model.model} answered: ${text.trim().slice(0, 200) || "(empty)"}`,
    latencyMs: Math.round(performance.now() - t0),
  };
}
