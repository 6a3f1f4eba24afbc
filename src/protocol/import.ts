/**
 * A person's past conversations as `homed import` hands them to memory (the control socket's
 * `memory.import`, or the data dir itself when no daemon runs): what the export readers
 * (src/import) make of a ChatGPT or Claude export or of JSON lines, whatever the source.
 */
import * as v from "valibot";
import { PLUGIN_RECORDS_CONV_PREFIX } from "./event-bodies.ts";
import { MAX_MARK_CHARS } from "./agent.ts";

/** The channel imported conversations are listed under (the conversation list's tag). */
export const IMPORT_CHANNEL = "import";

/**
 * The longest message text taken, as for a chat message (ChatSendParams): a batch of messages
 * must fit in one control-socket frame (4 MiB), so one message must fit with room to spare.
 */
export const MAX_IMPORTED_TEXT_CHARS = 1_000_000;

/** A conversation's title is cut to this, as a rename is (RenameParams). */
export const MAX_IMPORTED_TITLE_CHARS = 200;

/** The most messages one `memory.import` call carries (the client sends more in several calls). */
export const MAX_IMPORT_BATCH_MESSAGES = 10_000;

export const ImportedConvId = v.pipe(
  v.string(),
  v.minLength(1, "conversation id is empty"),
  v.maxLength(200, "conversation id is longer than 200 characters"),
  v.check((c) => !c.startsWith(PLUGIN_RECORDS_CONV_PREFIX), `a conversation id may not start with "plugin:"`),
);

/** The source's own id of a message: importing the same message again adds nothing. */
export const ImportedRef = v.union([v.pipe(v.string(), v.minLength(1), v.maxLength(200)), v.number()]);

/**
 * A tool the assistant called, for a message of role "tool" (its `text` is what the tool
 * returned): logged as the call and its result, as a chat turn logs them.
 */
export const ImportedToolCall = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1, "tool name is empty"), v.maxLength(200)),
  /** The call's arguments as the model wrote them (JSON text, not checked). */
  arguments: v.pipe(v.string(), v.maxLength(MAX_IMPORTED_TEXT_CHARS)),
  /** "ok", or what went wrong ("error", "denied"); absent: "ok". */
  status: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
});
export type ImportedToolCall = v.InferOutput<typeof ImportedToolCall>;

/** One message, as the log will keep it (src/memory/ingest.ts IncomingMessage without `conv`). */
export const ImportedMessage = v.pipe(
  v.strictObject({
    /**
     * The person ("user", or with `speaker` someone in a dialogue), the assistant, or a tool the
     * assistant called ("tool", with `tool`; `text` is its result).
     */
    role: v.picklist(["user", "assistant", "tool"]),
    speaker: v.optional(v.pipe(v.string(), v.maxLength(200))),
    text: v.pipe(
      v.string(),
      v.maxLength(MAX_IMPORTED_TEXT_CHARS, `text is longer than ${MAX_IMPORTED_TEXT_CHARS} characters`),
    ),
    /** When it was said, epoch milliseconds; absent: the time of the import. */
    time: v.optional(v.pipe(v.number(), v.finite())),
    session: v.optional(v.union([v.string(), v.number()])),
    ref: ImportedRef,
    /**
     * Where its text came from when it is not the person's own words (a page's text in a reply, an
     * untrusted source): it is logged with this mark, and what quotes it is marked in turn.
     */
    mark: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_MARK_CHARS))),
    tool: v.optional(ImportedToolCall),
  }),
  v.check(
    (m) => (m.role === "tool") === (m.tool !== undefined),
    'a message of role "tool", and only one, names its tool',
  ),
);
export type ImportedMessage = v.InferOutput<typeof ImportedMessage>;

/** A conversation's messages in the order they were said (or a part of them: a long one comes in several calls). */
export const ImportedConversation = v.strictObject({
  conv: ImportedConvId,
  title: v.optional(v.pipe(v.string(), v.maxLength(MAX_IMPORTED_TITLE_CHARS))),
  messages: v.array(ImportedMessage),
});
export type ImportedConversation = v.InferOutput<typeof ImportedConversation>;

/** `memory.import`: append what is not there yet, one transaction for the whole call. */
export const MemoryImportParams = v.strictObject({
  channel: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64)), IMPORT_CHANNEL),
  conversations: v.pipe(
    v.array(ImportedConversation),
    v.check(
      (cs) => cs.reduce((n, c) => n + c.messages.length, 0) <= MAX_IMPORT_BATCH_MESSAGES,
      `at most ${MAX_IMPORT_BATCH_MESSAGES} messages per call`,
    ),
  ),
});
export type MemoryImportParams = v.InferOutput<typeof MemoryImportParams>;

/** Messages appended, and messages whose ref the conversation already held (not appended again). */
export const MemoryImportResult = v.object({ added: v.number(), already: v.number() });
export type MemoryImportResult = v.InferOutput<typeof MemoryImportResult>;
