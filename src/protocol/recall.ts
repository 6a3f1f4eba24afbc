/** `homed recall --stdio`: one JSON object per line in; one line out per query. */
import * as v from "valibot";

const Conv = v.pipe(v.string(), v.minLength(1), v.maxLength(200));

export const RecallOp = v.variant("op", [
  v.object({ op: v.literal("reset"), conv: Conv }),
  v.object({
    op: v.literal("index"),
    conv: Conv,
    id: v.union([v.string(), v.number()]),
    text: v.string(),
    speaker: v.optional(v.string(), ""),
    time: v.optional(v.union([v.string(), v.number()])),
    session: v.optional(v.union([v.string(), v.number()])),
    seq: v.optional(v.number()),
    caption: v.optional(v.string()),
  }),
  v.object({ op: v.literal("commit"), conv: Conv }),
  v.object({
    op: v.literal("query"),
    conv: Conv,
    qid: v.optional(v.union([v.string(), v.number()])),
    text: v.string(),
    k: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000)),
    time: v.optional(v.union([v.string(), v.number()])),
  }),
]);
export type RecallOp = v.InferOutput<typeof RecallOp>;
