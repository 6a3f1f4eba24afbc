/**
 * A turn as one stream. The kernel numbers each event of a turn (`seq`, from 1) and keeps them
 * while the turn runs, so anyone entitled can follow it from any point: the channel that started
 * it, a second terminal, a page that reloaded. The stream's events are the turn's own (text,
 * tool calls and results), its approval questions and their answers, and the end (done or
 * error). A question is answered by whoever may answer it first, with an `answer` request; there
 * is no request from the kernel to a client.
 *
 * The same frames travel over the control socket (`chat.*`) and between the kernel and channel
 * plugins (`chat/*`); `TurnStreamClient` (src/ipc/turn-stream-client.ts, exported by the plugin
 * SDK) is the one client of both. Adding an event kind: its schema here, its producer in the
 * kernel, and the renderers that show it; everything between passes events through unread.
 *
 * A finished turn is read back as the same events (TranscriptItem, src/protocol/channel.ts): a
 * renderer folds events into what it shows one way, live or from history.
 */
import * as v from "valibot";
import { StoredImage } from "./images.ts";
import { TurnResultSchema } from "./control.ts";
import { ContextFigures } from "./context-figures.ts";
import { Attachment } from "./attachments.ts";

const Id = v.pipe(v.string(), v.minLength(1), v.maxLength(200));

/** A tool call waiting for a person's yes or no. */
export const ApprovalQuestion = v.object({
  tool: v.string(),
  arguments: v.unknown(),
  callId: v.string(),
  /** Why it is asked although a rule allows it (the turn read untrusted content). */
  note: v.optional(v.string()),
});
export type ApprovalQuestion = v.InferOutput<typeof ApprovalQuestion>;

/** A file sent with a message, as a renderer shows it (its text is memory's, not shown). */
export const AttachmentSummary = v.omit(Attachment, ["text", "anchors"]);
export type AttachmentSummary = v.InferOutput<typeof AttachmentSummary>;

/**
 * What a yes covers: this call, or every call of the tool in the rest of the conversation ("Allow
 * in this conversation"), asked again after the daemon restarts.
 */
export const ApprovalScope = v.picklist(["call", "conversation"]);
export type ApprovalScope = v.InferOutput<typeof ApprovalScope>;
/** A person's answer to an approval question, as the turn gets it: no, yes, or yes for the conversation. */
export type ApprovalAnswer = boolean | "conversation";

/** Every kind of event a turn's stream carries. */
export const StreamEvent = v.variant("type", [
  /**
   * The turn began running (it may have waited behind another of its conversation), with the
   * person's message that started it: a renderer that did not send it shows it from here.
   */
  v.object({
    type: v.literal("turn-start"),
    turn: v.string(),
    conv: v.string(),
    text: v.optional(v.string()),
    attachments: v.optional(v.array(AttachmentSummary)),
  }),
  /** More of the reply's text. */
  v.object({ type: v.literal("text-delta"), text: v.string() }),
  /** The reply so far is replaced (a retried model call). */
  v.object({ type: v.literal("text-replace"), text: v.string() }),
  v.object({ type: v.literal("tool-call"), callId: v.string(), name: v.string(), arguments: v.string() }),
  v.object({
    type: v.literal("tool-result"),
    callId: v.string(),
    name: v.string(),
    status: v.string(),
    content: v.string(),
    images: v.optional(v.array(StoredImage)),
  }),
  /** What memory put before the model this turn (ContextFigures), sent once before the first model call. */
  v.object({ type: v.literal("context"), ...ContextFigures.entries }),
  /** Something the person should know that is not the reply (a model fallback, a limit met). */
  v.object({ type: v.literal("notice"), text: v.string() }),
  /** A tool call waits for approval; answered with `answer` by anyone who may. */
  v.object({ type: v.literal("approval"), ...ApprovalQuestion.entries }),
  /** The question was answered (by someone, or no when the turn stopped waiting). */
  v.object({
    type: v.literal("approval-answered"),
    callId: v.string(),
    approved: v.boolean(),
    /** "conversation": the person allowed the tool for the rest of the conversation. */
    scope: v.optional(ApprovalScope),
  }),
  /** The turn ended with this result; the stream's last event. */
  v.object({ type: v.literal("done"), result: TurnResultSchema }),
  /** The turn failed before it had a result; the stream's last event. */
  v.object({ type: v.literal("error"), message: v.string() }),
]);
export type StreamEvent = v.InferOutput<typeof StreamEvent>;
/**
 * An event as a renderer reads it, live or from history: null for a kind it does not know (a
 * newer daemon's), which it skips, or one that does not parse.
 */
export function knownEvent(raw: unknown): StreamEvent | null {
  const r = v.safeParse(StreamEvent, raw);
  return r.success ? r.output : null;
}

/** The events a turn itself produces; the kernel adds the approvals and the end. */
export type TurnEvent = Extract<
  StreamEvent,
  { type: "turn-start" | "context" | "text-delta" | "text-replace" | "tool-call" | "tool-result" | "notice" }
>;

/**
 * One event for one receiver: `stream` is the receiver's own name for what it follows (the id
 * it sent the turn with, or the id it watches under), `seq` the event's number in the turn.
 * `event` is read with StreamEvent by whoever renders it; a kind a client does not know is
 * skipped, so an older client keeps working with a newer daemon.
 */
export const StreamFrame = v.object({
  stream: v.string(),
  seq: v.pipe(v.number(), v.integer(), v.minValue(1)),
  event: v.looseObject({ type: v.string() }),
});
export type StreamFrame = v.InferOutput<typeof StreamFrame>;

/**
 * Follow the conversation's live turn (the running one, else the next queued), or the caller's
 * own turn by the stream id it sent it with. Events numbered above `from` are sent (all of them
 * from 0), tagged `watch`; the answer is the turn's result when it ends, null when there was none.
 */
export const WatchParams = v.strictObject({
  conv: v.optional(Id),
  stream: v.optional(Id),
  from: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 0),
  watch: Id,
});

/** Stop following (a page went away); the turn goes on. */
export const UnwatchParams = v.strictObject({ watch: Id });

/** Answer a turn's approval question; `answered` is false when nothing was waiting for it (any more). */
export const AnswerParams = v.strictObject({
  conv: Id,
  callId: Id,
  approved: v.boolean(),
  /** A yes for this call only, or for every call of the tool in the rest of the conversation. */
  scope: v.optional(ApprovalScope, "call"),
});
export const AnswerResult = v.object({ answered: v.boolean() });
export type AnswerResult = v.InferOutput<typeof AnswerResult>;

/** The names of the stream's methods on one side (the control socket, or the channel protocol). */
export interface StreamMethods {
  /** client → kernel: run a turn (its params name `stream`, the id its frames carry). */
  send: string;
  /** client → kernel: WatchParams. */
  watch: string;
  /** client → kernel: UnwatchParams (absent: a watch ends with the turn or the connection). */
  unwatch?: string;
  /** client → kernel: AnswerParams. */
  answer: string;
  /** kernel → client notification: a StreamFrame. */
  event: string;
}
