/**
 * OneBot v11 frames as NapCat and Lagrange.OneBot send them, checked with valibot before use:
 * events (post_type message / meta_event / notice / request), message segments, and the answers
 * to API calls ({status, retcode, data, echo}). Fields we do not use are let through untouched.
 */
import * as v from "valibot";

/** Ids arrive as numbers from NapCat and as numbers or strings from some others. */
const Id = v.union([
  v.pipe(v.number(), v.safeInteger()),
  v.pipe(v.string(), v.regex(/^\d{1,19}$/), v.transform(Number)),
]);
const Str = v.pipe(
  v.union([v.string(), v.number()]),
  v.transform((x) => String(x)),
);

/** One segment of a message; `data` values are strings or numbers depending on the implementation. */
export const Segment = v.object({
  type: v.pipe(v.string(), v.maxLength(64)),
  data: v.optional(v.nullable(v.record(v.string(), v.unknown())), {}),
});
export type Segment = { type: string; data: Record<string, unknown> };

export const MessageEvent = v.object({
  time: v.optional(v.number(), 0),
  self_id: Id,
  post_type: v.literal("message"),
  message_type: v.picklist(["private", "group"]),
  sub_type: v.optional(v.string(), ""),
  message_id: Id,
  user_id: Id,
  group_id: v.optional(Id),
  /** An array of segments, or a CQ-code string when the implementation is set to "string". */
  message: v.union([v.pipe(v.string(), v.maxLength(1_000_000)), v.pipe(v.array(Segment), v.maxLength(10_000))]),
  raw_message: v.optional(v.string(), ""),
  sender: v.optional(
    v.object({
      user_id: v.optional(Id),
      nickname: v.optional(Str),
      card: v.optional(Str),
      role: v.optional(v.string()),
    }),
    {},
  ),
});
export type MessageEvent = v.InferOutput<typeof MessageEvent>;

export const MetaEvent = v.object({
  self_id: Id,
  post_type: v.literal("meta_event"),
  meta_event_type: v.string(),
  sub_type: v.optional(v.string()),
});

/** Any event: what every frame that is not an API answer must at least be. */
export const AnyEvent = v.object({ post_type: v.string() });

/** The answer to an API call; `echo` comes back as it was sent. */
export const ApiResponse = v.object({
  status: v.string(),
  retcode: v.number(),
  data: v.optional(v.unknown(), null),
  message: v.optional(v.string(), ""),
  wording: v.optional(v.string(), ""),
  echo: v.optional(v.unknown()),
});
export type ApiResponse = v.InferOutput<typeof ApiResponse>;

/** An API answer's data, or an error naming the action and what the implementation said. */
export function apiResult(action: string, r: ApiResponse): unknown {
  if (r.status === "ok" || r.status === "async" || r.retcode === 0 || r.retcode === 1) return r.data;
  throw new Error(
    `${action} failed: retcode ${r.retcode}${r.wording || r.message ? `: ${r.wording || r.message}` : ""}`,
  );
}
