/** Tokens a turn (or a conversation) used, as every channel shows them. */
import * as v from "valibot";

export const TokenUsage = v.object({
  inputTokens: v.number(),
  outputTokens: v.number(),
  /**
   * Of `inputTokens`, those the provider read from its prompt cache (OpenAI's `cached_tokens`,
   * Anthropic's `cache_read_input_tokens`), billed at a fraction; absent when it reported none.
   */
  cachedInputTokens: v.optional(v.number()),
});
export type TokenUsage = v.InferOutput<typeof TokenUsage>;

/**
 * "1200 in (800 cached) / 40 out": the words every channel uses for a usage; with `share`, the
 * cached part's share of the input too ("(800 cached, 67 %)").
 */
export function tokenWords(u: TokenUsage, opts: { share?: boolean } = {}): string {
  const c = u.cachedInputTokens ?? 0;
  const share = opts.share && u.inputTokens > 0 ? `, ${Math.round((100 * c) / u.inputTokens)} %` : "";
  const cached = c ? ` (${c} cached${share})` : "";
  return `${u.inputTokens} in${cached} / ${u.outputTokens} out`;
}

/** All turns' tokens: "12040 in (9000 cached, 75 %) / 800 out over 12 turns". */
export function formatUsage(u: TokenUsage & { turns: number }): string {
  if (u.turns === 0) return "no turns yet";
  return `${tokenWords(u, { share: true })} over ${u.turns} turn${u.turns === 1 ? "" : "s"}`;
}
