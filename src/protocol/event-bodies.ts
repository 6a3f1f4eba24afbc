/**
 * The bodies of the events homed writes to its log, one valibot schema per kind, and the one
 * reader every consumer parses them with (the turn's history, memory's index, the transcript a
 * person reads; memory II, L3 and blocks will read them here too). A body is JSON read back
 * from sqlite, so it is parsed, never cast.
 *
 * `event.append` may import events of any kind with any body: a known kind whose body does not
 * match its schema reads as null and every reader skips it alike; an unknown kind reads as
 * `other`, of which only its `turn` and a string `text` are used.
 */
import * as v from "valibot";
import { StoredImage } from "./images.ts";
import { Attachment } from "./attachments.ts";
import { ContextFigures } from "./context-figures.ts";

/**
 * Characters of one event's text that memory indexes and embeds. Past this, more text adds
 * tokenizer and embedder time without adding recall; the log keeps the whole body.
 */
export const MAX_INDEXED_TEXT_CHARS = 20_000;

/** Tool output beyond this many characters is cut before it reaches the model (the log keeps all). */
export const MAX_TOOL_OUTPUT_CHARS = 100_000;

/** Plugin records live in the conversation `plugin:<name>`, which no turn writes to. */
export const PLUGIN_RECORDS_CONV_PREFIX = "plugin:";

/** The turn an event belongs to; imported events may have none. */
const TurnId = v.optional(v.nullable(v.string()));

/** A tool call as the model wrote it: arguments are raw JSON text, maybe invalid. */
export const ToolCallBody = v.object({ id: v.string(), name: v.string(), arguments: v.string() });

const TimeValue = v.nullable(v.union([v.string(), v.number()]));

/**
 * Where a message that did not come through a turn came from (`homed import`, `homed recall`'s
 * index ops): the source's id for it, and the session the source put it in. A message without a
 * session is placed in one by time (src/memory/sessions.ts).
 */
const MessageOrigin = {
  /** The source's id of the message: importing it again adds nothing; `homed recall` answers with it. */
  ref: v.optional(v.union([v.string(), v.number()])),
  session: v.optional(v.union([v.string(), v.number()])),
  /** When the source said it was said, kept as given when it is no time the daemon reads ("last week"). */
  said: v.optional(v.string()),
};

/** One schema per kind of event homed writes. */
export const EventBodies = {
  /** What a person said, as the turn received it (before on_input rewrote it). */
  "user-message": v.object({
    turn: TurnId,
    text: v.string(),
    channel: v.optional(v.string()),
    /** Files sent with it (src/protocol/attachments.ts), stored as blocks, with the text read from them. */
    attachments: v.optional(v.array(Attachment)),
    ...MessageOrigin,
    /**
     * Who said it, when not the person the daemon serves speaking to it: a name in a dialogue
     * between people ("Caroline"), "" when the source did not say. Absent: the person ("user").
     */
    speaker: v.optional(v.string()),
    /** What an image the speaker shared showed, when only a description of it came (an imported chat). */
    caption: v.optional(v.string()),
  }),
  /**
   * A piece of a long attachment's text (src/memory/attachment-chunks.ts), logged right after
   * the user message of the same turn so memory finds text beyond what it indexes of the
   * message. Never a message of the prompt: the message already carries the text.
   */
  "attachment-chunk": v.object({
    turn: TurnId,
    sha256: v.string(),
    name: v.optional(v.string()),
    /** Where it is in the document: "page 27", "pages 26–28", "## Results". */
    anchor: v.optional(v.string()),
    /** Its first character's offset in the attachment's text. */
    offset: v.number(),
    text: v.string(),
    /** What was left out (the last chunk of an attachment that reached the cap). */
    note: v.optional(v.string()),
  }),
  /**
   * One model call's answer. `failed`: the call ended in an error or was aborted; `discarded`: a
   * post_action handler redirected it (the model never sees it again).
   */
  "model-output": v.object({
    turn: TurnId,
    iteration: v.optional(v.number()),
    text: v.string(),
    toolCalls: v.optional(v.array(ToolCallBody), []),
    failed: v.optional(v.boolean(), false),
    discarded: v.optional(v.boolean(), false),
    redirect: v.optional(v.string()),
  }),
  /** A tool call entering the gate (the audit record, whatever the outcome). */
  "tool-call": v.object({
    turn: TurnId,
    callId: v.string(),
    name: v.string(),
    risk: v.optional(v.nullable(v.string())),
    arguments: v.string(),
    origin: v.optional(v.string()),
  }),
  /** The gate's outcome: `content` is everything the tool returned or why it did not run. */
  "tool-result": v.object({
    turn: TurnId,
    callId: v.string(),
    name: v.string(),
    status: v.string(),
    content: v.string(),
    arguments: v.optional(v.unknown()),
    /** Images the tool returned, stored as blocks (src/store/blocks.ts). */
    images: v.optional(v.array(StoredImage)),
  }),
  /** What memory put before the model for the turn, as the live stream said it. */
  context: v.object({ turn: TurnId, ...ContextFigures.entries }),
  /** The turn's answer. `fromModel`: the model wrote it (then its model-output holds the same text). */
  "agent-reply": v.object({
    turn: TurnId,
    text: v.string(),
    fromModel: v.boolean(),
    ...MessageOrigin,
    stopReason: v.optional(v.string()),
    error: v.optional(v.string()),
  }),
  /**
   * The person cleared the conversation's untrusted mark: its events up to `upto` no longer mark
   * it (src/store/store.ts clearMark). `by`: the surface that asked (web, cli, control).
   */
  "mark-clear": v.object({ upto: v.number(), by: v.string() }),
  /**
   * A plugin's own record (records/append): state a plugin keeps in the log, e.g. the schedule
   * plugin's jobs. `type` and `data` are the plugin's; it parses `data` with its own schema when
   * it reads its records back. The event's actor is the plugin, its conversation
   * `${PLUGIN_RECORDS_CONV_PREFIX}<plugin>`; memory never indexes it.
   */
  "plugin-record": v.object({ type: v.string(), data: v.unknown() }),
  /** Text a built-in plugin gave memory (memory/add: a note, say), in the conversation `<plugin>:<key>`. */
  "plugin-text": v.object({ key: v.string(), text: v.string() }),
  /**
   * A turn of a `homed recall --stdio` memory as earlier data dirs hold it (index ops
   * now append ordinary messages); `id` is the caller's. Still read and indexed.
   */
  "recall-turn": v.object({
    id: v.union([v.string(), v.number()]),
    text: v.string(),
    speaker: v.optional(v.string()),
    time: v.optional(TimeValue),
    session: v.optional(TimeValue),
    seq: v.optional(v.nullable(v.number())),
    caption: v.optional(v.nullable(v.string())),
  }),
} as const;

export type EventKind = keyof typeof EventBodies;
/** A body as read back (defaults applied). */
export type EventBody<K extends EventKind> = v.InferOutput<(typeof EventBodies)[K]>;
/** A body as a writer builds it. */
export type EventBodyInput<K extends EventKind> = v.InferInput<(typeof EventBodies)[K]>;

/** What an event of a kind homed does not write may offer: its turn and its text. */
const OtherBody = v.looseObject({ turn: TurnId, text: v.optional(v.string()) });

/** A stored body, parsed by its kind. */
export type ReadEventBody =
  | { [K in EventKind]: { kind: K; body: EventBody<K> } }[EventKind]
  | { kind: "other"; body: v.InferOutput<typeof OtherBody> };

const isKind = (kind: string): kind is EventKind => Object.hasOwn(EventBodies, kind);

function parseJson(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

/**
 * Parse a stored body by its kind; null when it is not JSON or does not match its kind's
 * schema (readers skip such events).
 */
export function readEventBody(kind: string, json: string): ReadEventBody | null {
  const raw = parseJson(json);
  const r = v.safeParse(isKind(kind) ? EventBodies[kind] : OtherBody, raw);
  return r.success ? ({ kind: isKind(kind) ? kind : "other", body: r.output } as ReadEventBody) : null;
}

/** Parse a stored body that must be of kind `kind`; null when it does not match. */
export function readBodyOf<K extends EventKind>(kind: K, json: string): EventBody<K> | null {
  const r = v.safeParse(EventBodies[kind], parseJson(json));
  return r.success ? (r.output as EventBody<K>) : null;
}

/**
 * A kind and its body for `Store.append`, checked by the compiler against the kind's schema:
 * `store.append({ conv, actor, ...eventOf("tool-result", {...}) })`.
 */
export function eventOf<K extends EventKind>(kind: K, body: EventBodyInput<K>): { kind: K; body: EventBodyInput<K> } {
  return { kind, body };
}
