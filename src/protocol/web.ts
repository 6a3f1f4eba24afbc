/**
 * Shapes the web plugin builds or reads itself (plugins/web), not answers of the kernel it passes
 * on: what GET /api/session says, the event that opens a live turn's stream (GET /api/chat/live,
 * POST /api/chat), and the bodies of the chat routes. Here so the routes and their clients (the
 * page in plugins/web/ui, which imports types only, and waiter's remote link) share one
 * definition: a change to either side that the other does not follow is a compile error.
 */
import * as v from "valibot";
import { AttachmentRef, MAX_ATTACHMENTS } from "./attachments.ts";
import { ApprovalScope, type StreamEvent } from "./turn-stream.ts";

/** GET /api/session: whether the page must log in first, and why (`exposed`: reachable beyond this machine). */
export const WebSession = v.object({ exposed: v.boolean(), authenticated: v.boolean() });
export type WebSession = v.InferOutput<typeof WebSession>;

/**
 * The first event of a live turn's stream (plugins/web/live-turns.ts): its stream id (for
 * /api/cancel and /api/approve), the person's message that started it, and whether the turn had
 * started (then the log already holds that message, and a page that attaches draws it again
 * from this event). The turn's own events follow, then `done` with the turn's result.
 */
export const LiveTurnHeader = v.object({
  type: v.literal("stream"),
  stream: v.string(),
  conv: v.string(),
  text: v.string(),
  attachments: v.array(AttachmentRef),
  started: v.boolean(),
});
export type LiveTurnHeader = v.InferOutput<typeof LiveTurnHeader>;
/** What a page reads from /api/chat and /api/chat/live: the header, then the turn's stream. */
export type PageEvent = LiveTurnHeader | StreamEvent;

export const ConvId = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9._:-]{1,200}$/, "conversation ids are 1-200 letters, digits, . _ : -"),
);

/** POST /api/chat: a message of the person's, the files sent with it, and what sends it. */
export const ChatBody = v.strictObject({
  conv: ConvId,
  /** The words; may be empty when files are attached. */
  text: v.pipe(v.string(), v.maxLength(1_000_000)),
  /** Files uploaded first (POST /api/uploads), by the block each became. */
  attachments: v.optional(v.pipe(v.array(AttachmentRef), v.maxLength(MAX_ATTACHMENTS)), []),
  /** This conversation's model when it is not the configured one: one the provider lists. */
  model: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  /** What sends it, for the scene the turn declares: the web UI (the default) or a remote waiter. */
  client: v.optional(v.picklist(["browser", "waiter"]), "browser"),
});
export type ChatBody = v.InferInput<typeof ChatBody>;

/** POST /api/approve: a person's answer to a live turn's question. */
export const ApproveBody = v.strictObject({
  stream: v.string(),
  callId: v.string(),
  approved: v.boolean(),
  /** "conversation": allow the tool for the rest of the conversation. */
  scope: v.optional(ApprovalScope),
});
export type ApproveBody = v.InferInput<typeof ApproveBody>;

/** POST /api/cancel: stop the live turn of that stream. */
export const StreamBody = v.strictObject({ stream: v.string() });
export type StreamBody = v.InferInput<typeof StreamBody>;

/** GET /api/chat/live?conv=: the conversation whose live turn to follow. */
export const LiveQuery = v.object({ conv: v.pipe(v.string("conv is required"), ConvId) });
