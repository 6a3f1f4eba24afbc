/**
 * What channel plugins ask of the kernel: run turns with
 * streamed events and approval questions, list conversations and their transcripts, show what
 * the model was sent, and manage the model provider.
 */
import * as v from "valibot";
import { BlockHash, ImageMimeSchema } from "./images.ts";
import { BlockRecordSchema } from "./blocks.ts";
import { AttachmentRef, MAX_ATTACHMENTS } from "./attachments.ts";
import { MAX_MARK_CHARS } from "./agent.ts";

export const ChannelMethod = {
  ChatSend: "chat/send",
  ChatCancel: "chat/cancel",
  /** Follow a turn's stream (src/protocol/turn-stream.ts WatchParams). */
  ChatWatch: "chat/watch",
  ChatUnwatch: "chat/unwatch",
  /** Answer an approval question of a turn the plugin sent. */
  ChatAnswer: "chat/answer",
  /** kernel → plugin notification: one frame of a turn the plugin sent or follows. */
  ChatEvent: "chat/event",
  ConversationsList: "conversations/list",
  ConversationsMessages: "conversations/messages",
  /** Give a conversation a title ("" brings back the one from its first message). */
  ConversationsRename: "conversations/rename",
  /** Forget a conversation: hidden and out of recall; its events stay in the append-only log. */
  ConversationsForget: "conversations/forget",
  /**
   * The person clears a conversation's untrusted mark: the untrusted text in it so far no longer
   * makes side effects ask (logged as a mark-clear event; src/store/store.ts clearMark).
   */
  ConversationsClearMark: "conversations/clear-mark",
  /** Choose the model a conversation runs on (checked against the provider's list). */
  ConversationsModel: "conversations/model",
  ContextGet: "context/get",
  /** Search everything the person may see (trusted conversations; untrusted too with recall_untrusted). */
  MemorySearch: "memory/search",
  /**
   * Built-in plugins only: add a text to memory (the notes plugin's notes), as an event of kind
   * `plugin-text` in the conversation `<plugin>:<key>`, indexed like a turn's text.
   */
  MemoryAdd: "memory/add",
  LlmGet: "llm/get",
  LlmSet: "llm/set",
  LlmTest: "llm/test",
  /** The configured model and the provider's models (src/kernel/provider-models.ts). */
  LlmModels: "llm/models",
} as const;

/** The turn stream's methods between the kernel and a channel plugin (src/protocol/turn-stream.ts). */
export const ChannelStreamMethods = {
  send: ChannelMethod.ChatSend,
  watch: ChannelMethod.ChatWatch,
  unwatch: ChannelMethod.ChatUnwatch,
  answer: ChannelMethod.ChatAnswer,
  event: ChannelMethod.ChatEvent,
} as const;

const ConvId = v.pipe(v.string(), v.minLength(1), v.maxLength(200));

/**
 * Where a conversation happens, as the channel names it for the scenes that cluster recurring
 * situations: `chan:<channel>/peer:<who>`, e.g. `chan:qq/peer:group_123`,
 * `chan:acp/peer:zed`. Recorded on the conversation at its first turn.
 */
export const SceneKey = v.pipe(
  v.string(),
  v.maxLength(200),
  v.regex(/^chan:[a-z0-9_-]{1,32}\/peer:[^\s/]{1,160}$/, "a scene key is chan:<channel>/peer:<who>"),
);

/**
 * Conversations whose id starts with this are one-offs (an API request that names no
 * conversation): logged like any other, left out of the conversation list.
 */
export const UNLISTED_CONV_PREFIX = "unlisted:";

const ToolName = v.pipe(v.string(), v.regex(/^[a-zA-Z0-9_-]{1,64}$/, "a tool name is 1-64 letters, digits, _ or -"));
const CallId = v.pipe(v.string(), v.minLength(1), v.maxLength(200));
const Text = v.pipe(v.string(), v.maxLength(1_000_000));

/** One message of a conversation a client keeps itself (the /v1 API is stateless). */
export const ClientMessage = v.variant("role", [
  v.strictObject({ role: v.literal("system"), content: Text }),
  v.strictObject({
    role: v.literal("user"),
    content: Text,
    /** Images the client sent with it, stored as blocks first (the kernel checks each one's bytes). */
    images: v.optional(v.pipe(v.array(v.strictObject({ sha256: BlockHash, mime: ImageMimeSchema })), v.maxLength(16))),
  }),
  v.strictObject({
    role: v.literal("assistant"),
    content: Text,
    toolCalls: v.optional(
      v.array(v.strictObject({ id: CallId, name: ToolName, arguments: v.pipe(v.string(), v.maxLength(1_000_000)) })),
    ),
  }),
  v.strictObject({ role: v.literal("tool"), toolCallId: CallId, name: v.string(), content: Text }),
]);
export type ClientMessage = v.InferOutput<typeof ClientMessage>;

/** A tool the client offers and runs itself (OpenAI's function tools). */
export const ClientTool = v.strictObject({
  name: ToolName,
  description: v.pipe(v.string(), v.maxLength(10_000)),
  parameters: v.record(v.string(), v.unknown()),
});

export const ChannelChatParams = v.strictObject({
  /** Chosen by the plugin; tags the events and approval questions of this turn. */
  stream: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  conv: ConvId,
  /** The person's new message; empty only when the new input is `toolResults` or `attachments`. */
  text: v.pipe(v.string(), v.maxLength(1_000_000)),
  /**
   * Files sent with it, already stored (blocks/put): the kernel types each by its bytes and reads
   * its text with the media plugin (src/kernel/attachments.ts). Built-in plugins only.
   */
  attachments: v.optional(v.pipe(v.array(AttachmentRef), v.maxLength(MAX_ATTACHMENTS))),
  /** The channel the message came in on; absent: the sending plugin's name. */
  channel: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
  untrusted: v.optional(v.boolean(), false),
  /**
   * The text was written with untrusted text in view, and where that came from (a job's prompt
   * the model wrote while reading a page): the turn starts marked. A plugin can only add a mark.
   */
  mark: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_MARK_CHARS))),
  scene: v.optional(SceneKey),
  /**
   * Whether a person on this stream can answer `chat/approve`. false (the /v1 API, scripts):
   * the kernel never asks, and what would need approval is denied by policy.
   */
  interactive: v.optional(v.boolean(), true),
  /**
   * Who started the turn: a person on a channel ("foreground", the default), or a job with no
   * person behind it ("scheduled", "background"). A job's turn is never interactive: what
   * would need approval is denied by policy, and the audit event names the origin.
   */
  origin: v.optional(v.picklist(["foreground", "background", "scheduled"]), "foreground"),
  /**
   * The conversation so far as the client keeps it (before the new input). Given, it replaces
   * what the log holds of `conv` in the prompt (homed's memory is still added, as one note);
   * only the new input and the reply are appended to the log.
   */
  history: v.optional(v.pipe(v.array(ClientMessage), v.maxLength(10_000))),
  /** The new input when it is the results of client tools the model called last time. */
  toolResults: v.optional(
    v.pipe(v.array(v.strictObject({ callId: CallId, name: v.string(), content: Text })), v.maxLength(1000)),
  ),
  /** Tools the client runs itself, offered beside homed's own; a call to one ends the turn. */
  clientTools: v.optional(v.pipe(v.array(ClientTool), v.maxLength(500))),
  /** A model of the configured provider other than the configured one. */
  model: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  /**
   * What of the turn's stream reaches the sender: every event ("all"), or only its start and
   * its end ("ends": turn-start, done, error) for a sender whose readers follow the turn with
   * chat/watch, so no event crosses the pipe twice.
   */
  follow: v.optional(v.picklist(["all", "ends"]), "all"),
});

/** The configured model and what the provider's /models lists (empty when it could not be asked). */
export const LlmModelsResult = v.object({ configured: v.string(), provider: v.array(v.string()) });
export type LlmModelsResult = v.InferOutput<typeof LlmModelsResult>;

export const ChannelCancelParams = v.strictObject({ stream: v.string() });
export const ConvParams = v.strictObject({
  conv: ConvId,
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(5000)), 500),
});
export const ContextParams = v.strictObject({ conv: ConvId });
export const RenameParams = v.strictObject({ conv: ConvId, title: v.pipe(v.string(), v.maxLength(200)) });
export const ForgetParams = v.strictObject({ conv: ConvId });
/** A model the provider offers for this conversation from now on, in every channel; "" = the configured one. */
export const ConversationModelParams = v.strictObject({
  conv: ConvId,
  channel: v.pipe(v.string(), v.minLength(1), v.maxLength(32)),
  model: v.pipe(v.string(), v.maxLength(200)),
});
export const ForgetResult = v.object({ forgotten: v.number() });
/** `by`: the surface the person cleared it from, as the log records it. */
export const ClearMarkParams = v.strictObject({ conv: ConvId, by: v.pipe(v.string(), v.regex(/^[a-z0-9-]{1,32}$/)) });
/** The event up to which the conversation's mark is cleared. */
export const ClearMarkResult = v.object({ clearedUpto: v.number() });
export const MemorySearchParams = v.strictObject({
  query: v.pipe(v.string(), v.trim(), v.minLength(1, "query is empty"), v.maxLength(500)),
  k: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 20),
});

export const MemoryAddParams = v.strictObject({
  // Letters and digits of any script (a note may be "日记" or "Café"), and a few signs; no
  // control characters or line breaks (the key names a conversation).
  key: v.pipe(
    v.string(),
    v.regex(/^[\p{L}\p{N}\p{M} _.,'()/-]{1,160}$/u, "key: letters, digits, space, _ . , ' ( ) / - (1-160)"),
  ),
  text: v.pipe(v.string(), v.minLength(1, "text is empty"), v.maxLength(200_000)),
  /** The text came from untrusted input: recall treats it like an untrusted turn. */
  untrusted: v.optional(v.boolean(), false),
});
export const MemoryAddResult = v.object({ id: v.number(), conv: v.string() });

/** One remembered event as a search shows it. */
export const MemoryHit = v.object({
  id: v.number(),
  ts: v.number(),
  conv: v.string(),
  /** The channel the conversation started on ("" when unknown). */
  channel: v.string(),
  /** The conversation's own title (given by the person, or an imported chat's), when it has one. */
  title: v.optional(v.string()),
  untrusted: v.boolean(),
  /** user, assistant, tool <name>, or attachment <name> · <anchor> (a long attachment's chunk). */
  role: v.string(),
  text: v.string(),
  /** Relevance, the best of the search = 1; null for events brought back by id. */
  score: v.nullable(v.number()),
  /** The event's blocks (src/protocol/blocks.ts): a picture's id, hash, type, caption, holder. */
  blocks: v.optional(v.array(v.pick(BlockRecordSchema, ["id", "kind", "sha256", "mime", "text", "holder"])), []),
});
export type MemoryHit = v.InferOutput<typeof MemoryHit>;

export const ConversationSummary = v.object({
  id: v.string(),
  channel: v.string(),
  createdAt: v.number(),
  updatedAt: v.number(),
  turns: v.number(),
  inputTokens: v.number(),
  outputTokens: v.number(),
  /** Of inputTokens, those read from the provider's prompt cache. */
  cachedInputTokens: v.optional(v.number(), 0),
  title: v.string(),
  /** The model chosen for this conversation; null: the configured one. */
  model: v.optional(v.nullable(v.string()), null),
  /** The scene key its channel declared ("" when none). */
  scene: v.optional(v.string(), ""),
});
export type ConversationSummary = v.InferOutput<typeof ConversationSummary>;

/**
 * One event of a conversation as a person reads it: the stored turn replayed as the events its
 * stream carried (StreamEvent, src/protocol/turn-stream.ts, read the same way: a kind a client
 * does not know is skipped). The person's message is its turn's `turn-start`, a reply's text
 * before a tool call a `text-delta`, the reply itself the turn's `done` (its result with the
 * tokens the turn used), what memory brought the `context`.
 */
export const TranscriptItem = v.object({
  /** The logged event it was read from. */
  id: v.number(),
  ts: v.number(),
  untrusted: v.boolean(),
  /** Where its text came from when not the person's own words, or what was in view when it was written. */
  mark: v.optional(v.string()),
  event: v.looseObject({ type: v.string() }),
});
export type TranscriptItem = v.InferOutput<typeof TranscriptItem>;

export const ContextView = v.nullable(
  v.object({
    turn: v.string(),
    at: v.number(),
    tools: v.array(v.string()),
    messages: v.array(
      v.object({
        role: v.string(),
        content: v.string(),
        /** Where it came from: "system", "input", or the memory layer ("L1"). */
        layer: v.string(),
        /** It had been moved to cold memory (L2) and was recalled for this input (it matches it). */
        recalled: v.boolean(),
        /** It had been moved to cold memory (L2) and came back to fill room left in the budget (by recency). */
        filled: v.boolean(),
        /**
         * Why memory put it there: everything fit ("all"), one of the newest ("pinned"), it matches
         * the input ("relevant"), room was left ("recent"), or it is in the plan made on an
         * earlier turn ("kept"); null for what memory did not choose.
         */
        reason: v.nullable(v.picklist(["all", "pinned", "relevant", "recent", "kept"])),
        /** Relevance to the input when the history had to be pruned; null when nothing was scored. */
        score: v.nullable(v.number()),
        /** One of the newest turns, kept regardless of relevance. */
        pinned: v.boolean(),
        tokens: v.number(),
        toolCalls: v.optional(v.array(v.object({ id: v.string(), name: v.string(), arguments: v.string() }))),
        name: v.optional(v.string()),
      }),
    ),
    /** Events the memory_search tool brought back into context during the turn, oldest first. */
    brought: v.optional(v.array(MemoryHit), []),
  }),
);
export type ContextView = v.InferOutput<typeof ContextView>;
