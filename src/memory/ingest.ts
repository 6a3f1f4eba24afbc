/**
 * Messages that come from elsewhere than a live chat turn — a person's past chats brought in by
 * `homed import` (each exchange a turn of its own, src/memory/import-conversations.ts), the turns
 * of `homed recall`'s index ops — appended to the log as the ordinary messages a chat turn writes (the person's `user-message`, the assistant's `agent-reply`) and indexed by the same
 * code (Memory.add), so they are recalled, searched and shown exactly like chat turns.
 */
import type { Store } from "../store/store.ts";
import { type EventKind, eventOf } from "../protocol/event-bodies.ts";
import type { Memory } from "./memory.ts";

/** One message as a source gives it. */
export interface IncomingMessage {
  conv: string;
  /** The person the daemon serves (or, with `speaker`, someone in a dialogue), or the assistant. */
  role: "user" | "assistant";
  /** A name in a dialogue between people; "" when the source does not say who spoke. */
  speaker?: string;
  text: string;
  /** When it was said, epoch milliseconds (absent: now). */
  time?: number;
  /** When the source said it was said, when that is no time to read ("last week"): kept as given. */
  said?: string;
  session?: string | number;
  /** The source's id for it. */
  ref?: string | number;
  /** The turn it belongs to, when the source has turns (an import's exchanges). */
  turn?: string;
  /** What an image shared with it showed. */
  caption?: string;
}

/** The event a message is logged as, and its actor. */
export function messageEvent(m: IncomingMessage): { kind: EventKind; body: unknown; actor: string } {
  const origin = {
    ...(m.ref !== undefined ? { ref: m.ref } : {}),
    ...(m.session !== undefined ? { session: m.session } : {}),
    ...(m.said !== undefined ? { said: m.said } : {}),
    ...(m.turn !== undefined ? { turn: m.turn } : {}),
  };
  if (m.role === "assistant")
    return { actor: "agent", ...eventOf("agent-reply", { text: m.text, fromModel: false, ...origin }) };
  return {
    actor: m.speaker === undefined ? "user" : m.speaker || "unknown",
    ...eventOf("user-message", {
      text: m.text,
      ...origin,
      ...(m.speaker !== undefined ? { speaker: m.speaker } : {}),
      ...(m.caption ? { caption: m.caption } : {}),
    }),
  };
}

/**
 * Append one message to its conversation and index it; returns its event id. The conversation
 * must exist (Store.ensureConversation). Call inside a transaction when appending many.
 */
export function ingestMessage(store: Store, memory: Memory, m: IncomingMessage): number {
  const { kind, body, actor } = messageEvent(m);
  const { id } = store.append({ conv: m.conv, actor, kind, body, ...(m.time !== undefined ? { ts: m.time } : {}) });
  memory.add(id);
  return id;
}
