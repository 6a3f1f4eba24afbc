/**
 * [memory.distill] of config.toml (src/memory/distill.ts): when cold turns
 * are distilled into L3 facts by the configured model, and how much a run may spend. Its part of
 * `homed initconfig`'s template parses to exactly the defaults (test/kernel/config.test.ts).
 */
import * as v from "valibot";
import type { DistillOptions } from "../../memory/distill.ts";

const int = (min: number, max: number, what: string) =>
  v.pipe(
    v.number(`must be a number of ${what}`),
    v.integer(`must be a whole number of ${what}`),
    v.minValue(min),
    v.maxValue(max),
  );

export const DistillConfig = v.strictObject({
  /** Distill at all (false: cold turns stay in L2). */
  enabled: v.optional(v.boolean("must be true or false"), true),
  /** Minutes between runs. */
  interval_minutes: v.optional(int(1, 7 * 24 * 60, "minutes"), 60),
  /** A cold turn is distilled after this many hours untouched... */
  idle_hours: v.optional(int(0, 24 * 365, "hours"), 72),
  /** ...when none of its events was accessed more than this many times. */
  max_accesses: v.optional(int(0, 1000, "accesses"), 2),
  /** Tokens one run may spend (prompt and answer). */
  run_budget_tokens: v.optional(int(1000, 10_000_000, "tokens"), 20_000),
  /** About this many tokens of conversation per model call. */
  batch_tokens: v.optional(int(200, 100_000, "tokens"), 3000),
  /** Asks again after a bad answer or a failed call, this many times, waiting backoff_ms, then twice that, ... */
  retries: v.optional(int(0, 10, "retries"), 2),
  backoff_ms: v.optional(int(0, 600_000, "milliseconds"), 2000),
});
export type DistillConfig = v.InferOutput<typeof DistillConfig>;

export const DISTILL_TEMPLATE = `[memory.distill]
# Cooling: a cold turn nobody used for idle_hours (accessed at most max_accesses times) is
# distilled by the configured model into facts (subject, predicate, object) of the stable graph,
# L3, which the web UI's Knowledge page shows. The log keeps every word; a failed or refused
# distillation removes nothing. A run every interval_minutes spends at most run_budget_tokens.
enabled = true
interval_minutes = 60
idle_hours = 72
max_accesses = 2
run_budget_tokens = 20000
batch_tokens = 3000
retries = 2
backoff_ms = 2000
`;

/**
 * The job's options from the section as it is now (a reload changes it in place), fitted to the
 * model's context window: a batch takes at most half of it and the answer a quarter, so a small
 * local model is asked smaller batches rather than refused every run.
 */
export function distillOptions(c: DistillConfig, contextWindow = Number.POSITIVE_INFINITY): DistillOptions {
  return {
    idleMs: c.idle_hours * 3_600_000,
    maxAccesses: c.max_accesses,
    runBudgetTokens: c.run_budget_tokens,
    batchTokens: Math.max(200, Math.min(c.batch_tokens, Math.floor(contextWindow / 2))),
    maxOutputTokens: Math.max(100, Math.min(1500, Math.floor(contextWindow / 4))),
    retries: c.retries,
    backoffMs: c.backoff_ms,
  };
}
