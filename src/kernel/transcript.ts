/**
 * A conversation as a person reads it, from the stored events, replayed as the events its turns
 * streamed: every renderer folds them the way it folds a live turn.
 */
import { type ReadEventBody, readEventBody } from "../protocol/event-bodies.ts";
import type { TranscriptItem } from "../protocol/channel.ts";
import type { StreamEvent } from "../protocol/turn-stream.ts";
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

/** What each turn's replies need beside their text: the tokens it used and its model calls. */
export interface TurnTotals {
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number };
  iterations: number;
}

/**
 * The conversation's events as a person reads them, as the events its turns streamed
 * (src/protocol/channel.ts TranscriptItem): the final reply, not every model draft, and a message
 * sent again after its turn failed shown once. A reply is its turn's `done`, with the tokens the
 * turn used when `usage` knows the turn (finished here; an imported reply has none).
 */
export function transcript(
  events: readonly StoredEvent[],
  usage: ReadonlyMap<string, TurnTotals["usage"]> = new Map(),
): TranscriptItem[] {
  const retried = retriedTurns(events);
  const calls = new Map<string, number>();
  for (const e of events) {
    const read = e.kind === "model-output" ? readEventBody(e.kind, e.body) : null;
    if (read?.kind === "model-output" && read.body.turn)
      calls.set(read.body.turn, (calls.get(read.body.turn) ?? 0) + 1);
  }
  const out: TranscriptItem[] = [];
  for (const e of events) {
    const read = readEventBody(e.kind, e.body);
    if (!read) continue;
    const turn = "turn" in read.body ? (read.body.turn ?? "") : "";
    if (turn && retried.has(turn)) continue;
    const event = streamed(read, e.conv, {
      usage: usage.get(turn) ?? { inputTokens: 0, outputTokens: 0 },
      iterations: calls.get(turn) ?? 0,
    });
    if (event) out.push({ id: e.id, ts: e.ts, untrusted: e.untrusted, ...(e.mark ? { mark: e.mark } : {}), event });
  }
  return out;
}

/** The stream event a logged event was, or null for what a person does not read (drafts, audit records). */
function streamed(read: ReadEventBody, conv: string, totals: TurnTotals): StreamEvent | null {
  switch (read.kind) {
    case "user-message": {
      const b = read.body;
      const files = (b.attachments ?? []).map(({ text: _t, anchors: _a, ...a }) => a);
      return { type: "turn-start", turn: b.turn ?? "", conv, text: b.text, attachments: files };
    }
    case "model-output": {
      // A reply's words before its tool calls; the last call's words are the turn's `done`.
      const b = read.body;
      return b.toolCalls.length && !b.discarded && b.text ? { type: "text-delta", text: b.text } : null;
    }
    case "tool-call":
      return { type: "tool-call", callId: read.body.callId, name: read.body.name, arguments: read.body.arguments };
    case "tool-result": {
      const b = read.body;
      return {
        type: "tool-result",
        callId: b.callId,
        name: b.name,
        status: b.status,
        content: b.content,
        ...(b.images?.length ? { images: b.images } : {}),
      };
    }
    case "context": {
      const { turn: _turn, ...figures } = read.body;
      return { type: "context", ...figures };
    }
    case "agent-reply": {
      const b = read.body;
      return {
        type: "done",
        result: {
          turn: b.turn ?? "",
          conv,
          text: b.text,
          stopReason: b.stopReason ?? "done",
          iterations: totals.iterations,
          usage: totals.usage,
          ...(b.error ? { error: b.error } : {}),
          conversation: null,
        },
      };
    }
    default:
      return null;
  }
}
