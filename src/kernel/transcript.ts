/**
 * A conversation as a person reads it, from the stored events: the final reply rather than
 * every model draft, a message sent again after its turn failed shown once.
 */
import { readEventBody } from "../protocol/event-bodies.ts";
import type { TranscriptItem } from "../protocol/channel.ts";
import type { StoredEvent } from "../store/store.ts";
import type { KernelServices } from "./kernel-services.ts";

/** The newest `limit` events of `conv` as a person reads them, replies with their turn's usage. */
export function conversationTranscript(k: KernelServices, conv: string, limit: number): TranscriptItem[] {
  // A long file's chunks (memory's, never shown) do not take the places of what was said.
  const events = k.store.recentConversationEvents(conv, limit, ["attachment-chunk"]);
  const turns = new Set<string>();
  for (const e of events) {
    const read = e.kind === "agent-reply" ? readEventBody(e.kind, e.body) : null;
    if (read?.kind === "agent-reply" && read.body.turn) turns.add(read.body.turn);
  }
  return transcript(events, k.store.turnUsage([...turns]));
}

/**
 * Turns that failed before doing anything (no text, no tool call) and whose message the next
 * turn sent again (Retry): the model never reads them (src/memory/turn-log.ts), and a person
 * reads the message once.
 */
function retriedTurns(events: readonly StoredEvent[]): Set<string> {
  const order: string[] = [];
  const seen = new Map<string, { text?: string; did: boolean; failed: boolean }>();
  for (const e of events) {
    const read = readEventBody(e.kind, e.body);
    const turn = read && "turn" in read.body ? read.body.turn : null;
    if (!read || !turn) continue;
    let t = seen.get(turn);
    if (!t) {
      t = { did: false, failed: false };
      seen.set(turn, t);
      order.push(turn);
    }
    if (read.kind === "user-message") t.text = read.body.text;
    else if (read.kind === "tool-call") t.did = true;
    else if (read.kind === "model-output" && !read.body.failed && (read.body.text || read.body.toolCalls.length))
      t.did = true;
    else if (read.kind === "agent-reply" && read.body.stopReason === "error") t.failed = true;
  }
  const retried = new Set<string>();
  for (let i = 0; i + 1 < order.length; i++) {
    const a = seen.get(order[i] as string);
    const b = seen.get(order[i + 1] as string);
    if (a?.failed && !a.did && a.text !== undefined && a.text === b?.text) retried.add(order[i] as string);
  }
  return retried;
}

/**
 * Events as a person reads the conversation: the final reply, not every model draft, and a
 * message sent again after its turn failed shown once. A reply carries its turn's token usage
 * when `usage` knows the turn (so a reloaded page still shows it).
 */
export function transcript(
  events: readonly StoredEvent[],
  usage: ReadonlyMap<string, { inputTokens: number; outputTokens: number }> = new Map(),
): TranscriptItem[] {
  const out: TranscriptItem[] = [];
  const retried = retriedTurns(events);
  for (const e of events) {
    const read = readEventBody(e.kind, e.body);
    if (read && "turn" in read.body && read.body.turn && retried.has(read.body.turn)) continue;
    const base = { id: e.id, ts: e.ts, untrusted: e.untrusted, ...(e.mark ? { mark: e.mark } : {}) };
    if (read?.kind === "user-message") {
      const files = read.body.attachments?.map(({ text: _t, anchors: _a, ...a }) => a);
      out.push({ ...base, kind: "user", text: read.body.text, ...(files?.length ? { attachments: files } : {}) });
    } else if (read?.kind === "model-output") {
      const b = read.body;
      if (b.toolCalls.length && !b.discarded && b.text) out.push({ ...base, kind: "assistant", text: b.text });
    } else if (read?.kind === "tool-call")
      out.push({
        ...base,
        kind: "tool-call",
        text: read.body.arguments,
        name: read.body.name,
        callId: read.body.callId,
      });
    else if (read?.kind === "tool-result") {
      const b = read.body;
      out.push({
        ...base,
        kind: "tool-result",
        text: b.content,
        name: b.name,
        status: b.status,
        callId: b.callId,
        ...(b.images?.length ? { images: b.images } : {}),
      });
    } else if (read?.kind === "context") {
      const { turn: _turn, ...context } = read.body;
      out.push({ ...base, kind: "context", text: "", context });
    } else if (read?.kind === "agent-reply") {
      const used = read.body.turn ? usage.get(read.body.turn) : undefined;
      out.push({
        ...base,
        kind: "assistant",
        text: read.body.text,
        status: read.body.stopReason ?? "",
        ...(used ? { usage: used } : {}),
      });
    }
  }
  return out;
}
