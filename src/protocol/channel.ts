/**
 * What channel plugins (web today; QQ, ACP, A2A later) ask of the kernel: run turns with
 * streamed events and approval questions, list conversations and their transcripts, show what
 * the model was sent, and manage the model provider.
 */
import * as v from "valibot";

export const ChannelMethod = {
  ChatSend: "chat/send",
  ChatCancel: "chat/cancel",
  /** kernel → plugin notification: one event of a running turn. */
  ChatEvent: "chat/event",
  /** kernel → plugin request: may this tool call run? */
  ChatApprove: "chat/approve",
  ConversationsList: "conversations/list",
  ConversationsMessages: "conversations/messages",
  ContextGet: "context/get",
  /** Search everything the person may see (trusted conversations; untrusted too with recall_untrusted). */
  MemorySearch: "memory/search",
  LlmGet: "llm/get",
  LlmSet: "llm/set",
  LlmTest: "llm/test",
} as const;

const ConvId = v.pipe(v.string(), v.minLength(1), v.maxLength(200));

export const ChannelChatParams = v.strictObject({
  /** Chosen by the plugin; tags the events and approval questions of this turn. */
  stream: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  conv: ConvId,
  text: v.pipe(v.string(), v.minLength(1, "message is empty"), v.maxLength(1_000_000)),
  channel: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64)), "web"),
  untrusted: v.optional(v.boolean(), false),
  /**
   * Whether a person on this stream can answer `chat/approve`. false (the /v1 API, scripts):
   * the kernel never asks, and what would need approval is denied by policy.
   */
  interactive: v.optional(v.boolean(), true),
});

export const ChannelCancelParams = v.strictObject({ stream: v.string() });
export const ConvParams = v.strictObject({
  conv: ConvId,
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(5000)), 500),
});
export const ContextParams = v.strictObject({ conv: ConvId });
export const MemorySearchParams = v.strictObject({
  query: v.pipe(v.string(), v.trim(), v.minLength(1, "query is empty"), v.maxLength(500)),
  k: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 20),
});

/** One remembered event as a search shows it. */
export const MemoryHit = v.object({
  id: v.number(),
  ts: v.number(),
  conv: v.string(),
  /** The channel the conversation started on ("" when unknown). */
  channel: v.string(),
  untrusted: v.boolean(),
  /** user, assistant, or tool <name>. */
  role: v.string(),
  text: v.string(),
  /** Relevance, the best of the search = 1; null for events brought back by id. */
  score: v.nullable(v.number()),
});
export type MemoryHit = v.InferOutput<typeof MemoryHit>;

export const ChatEventNotice = v.object({ stream: v.string(), event: v.record(v.string(), v.unknown()) });
export const ChatApproveRequest = v.object({
  stream: v.string(),
  tool: v.string(),
  arguments: v.unknown(),
  callId: v.string(),
});

export const ConversationSummary = v.object({
  id: v.string(),
  channel: v.string(),
  createdAt: v.number(),
  updatedAt: v.number(),
  turns: v.number(),
  inputTokens: v.number(),
  outputTokens: v.number(),
  title: v.string(),
});
export type ConversationSummary = v.InferOutput<typeof ConversationSummary>;

/** One line of a conversation as a person reads it. */
export const TranscriptItem = v.object({
  id: v.number(),
  ts: v.number(),
  kind: v.picklist(["user", "assistant", "tool-call", "tool-result"]),
  text: v.string(),
  name: v.optional(v.string()),
  status: v.optional(v.string()),
  callId: v.optional(v.string()),
  untrusted: v.boolean(),
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
         * the input ("relevant"), or room was left ("recent"); null for what memory did not choose.
         */
        reason: v.nullable(v.picklist(["all", "pinned", "relevant", "recent"])),
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
