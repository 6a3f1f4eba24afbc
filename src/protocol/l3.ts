/**
 * The stable graph (L3) as the kernel serves it to built-in plugins (the web UI's Knowledge
 * page; src/kernel/methods/l3.ts): `l3/facts` lists and searches facts, `l3/history` gives a
 * fact's supersession chain with provenance and what was done to it, `l3/correct` adds the
 * person's superseding fact, `l3/delete` hides a fact (kept, and logged), `l3/recall` shows
 * what a trusted turn would be told for a text, and `l3/distill` runs the distillation now.
 */
import * as v from "valibot";

export const L3Method = {
  Facts: "l3/facts",
  History: "l3/history",
  Correct: "l3/correct",
  Delete: "l3/delete",
  Recall: "l3/recall",
  Distill: "l3/distill",
} as const;

const FactId = v.pipe(v.number(), v.integer(), v.minValue(1));

export const L3FactsParams = v.strictObject({
  /** Words a subject, predicate or object contains ("" for all). */
  query: v.optional(v.pipe(v.string(), v.maxLength(200)), ""),
  includeSuperseded: v.optional(v.boolean(), false),
  includeHidden: v.optional(v.boolean(), false),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000)), 200),
});
export const L3HistoryParams = v.strictObject({ id: FactId });
export const L3CorrectParams = v.strictObject({
  id: FactId,
  /** The right value: the new fact's object. */
  object: v.pipe(v.string(), v.trim(), v.minLength(1, "say what is right"), v.maxLength(200)),
});
export const L3DeleteParams = v.strictObject({
  id: FactId,
  reason: v.optional(v.pipe(v.string(), v.maxLength(500)), ""),
});
export const L3RecallParams = v.strictObject({ query: v.pipe(v.string(), v.minLength(1), v.maxLength(2000)) });

const Node = v.object({ id: v.number(), label: v.string() });

export const FactView = v.object({
  id: v.number(),
  subject: Node,
  predicate: v.string(),
  object: Node,
  validFrom: v.number(),
  createdAt: v.number(),
  origin: v.picklist(["distill", "person"]),
  version: v.string(),
  supersededBy: v.nullable(v.number()),
  supersededAt: v.nullable(v.number()),
  hiddenAt: v.nullable(v.number()),
  hiddenBy: v.nullable(v.string()),
  /** Where it was learned: the events, their conversation and time. */
  sources: v.array(v.object({ eventId: v.number(), conv: v.string(), ts: v.number(), untrusted: v.boolean() })),
});
export type FactView = v.InferOutput<typeof FactView>;

export const L3FactsResult = v.object({
  facts: v.array(FactView),
  counts: v.object({ facts: v.number(), current: v.number(), nodes: v.number() }),
});
export type L3FactsResult = v.InferOutput<typeof L3FactsResult>;

export const L3HistoryResult = v.object({
  facts: v.array(FactView),
  log: v.array(
    v.object({ ts: v.number(), factId: v.number(), action: v.string(), actor: v.string(), detail: v.string() }),
  ),
});
export type L3HistoryResult = v.InferOutput<typeof L3HistoryResult>;

export const L3RecallResult = v.object({ note: v.nullable(v.string()), facts: v.array(v.number()) });
export type L3RecallResult = v.InferOutput<typeof L3RecallResult>;

export const L3DistillResult = v.object({
  turns: v.number(),
  events: v.number(),
  facts: v.number(),
  batches: v.number(),
  skipped: v.number(),
  tokens: v.number(),
  stopped: v.picklist(["", "budget", "model_failed"]),
});
export type L3DistillResult = v.InferOutput<typeof L3DistillResult>;
