/**
 * Shapes the web plugin builds itself (plugins/web), not answers of the kernel it passes on: what
 * GET /api/session says, and the event that opens a live turn's stream (GET /api/chat/live, POST
 * /api/chat). Here so the routes and the page (plugins/web/ui, which imports types only) share
 * one definition: a change to either side that the other does not follow is a compile error.
 */
import * as v from "valibot";
import { AttachmentRef } from "./attachments.ts";
import type { StreamEvent } from "./turn-stream.ts";

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
