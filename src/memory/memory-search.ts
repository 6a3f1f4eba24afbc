/**
 * Searching the person's memory within a scope (src/memory/recall-scope.ts) and describing what
 * was found the way a person or the model reads it: when, in which conversation and channel, who
 * said it, whether it is untrusted, and a snippet. One place serves the `memory_search` tool,
 * cross-conversation recall and the web UI's search box, so they agree on what may be seen —
 * and on what was forgotten (Store.forgetConversation): forgotten events are never found.
 */
import type { Store, StoredEvent } from "../store/store.ts";
import { readEventBody } from "../protocol/event-bodies.ts";
import { bodyText } from "./event-text.ts";
import type { Memory } from "./memory.ts";
import { inScope, type RecallScope } from "./recall-scope.ts";
import { BlockRecords } from "../store/block-records.ts";
import type { BlockRecord } from "../protocol/blocks.ts";

/** One remembered event as search shows it. */
export interface FoundEvent {
  id: number;
  /** Epoch milliseconds. */
  ts: number;
  conv: string;
  /** The channel the conversation started on ("web", "cli", …; "" when unknown). */
  channel: string;
  untrusted: boolean;
  /** user, assistant, or tool <name>. */
  role: string;
  text: string;
  /** Relevance within the scope, the best = 1 (null when brought by id). */
  score: number | null;
  /** The event's blocks (a picture and its caption), held by the event's layer. */
  blocks?: Pick<BlockRecord, "id" | "kind" | "sha256" | "mime" | "text" | "holder">[];
}

/** Candidates are over-fetched by this factor, so that dropping the caller's own turn leaves enough. */
const OVERFETCH = 3;

function roleOf(e: StoredEvent): string {
  const r = readEventBody(e.kind, e.body);
  if (r?.kind === "user-message") return "user";
  if (r?.kind === "tool-result") return `tool ${r.body.name}`;
  if (r?.kind === "recall-turn") return r.body.speaker || "user";
  return "assistant";
}

function turnOf(e: StoredEvent): string | null {
  const r = readEventBody(e.kind, e.body);
  return r && "turn" in r.body && typeof r.body.turn === "string" ? r.body.turn : null;
}

export class MemorySearch {
  private readonly records: BlockRecords;

  constructor(
    private readonly store: Store,
    private readonly memory: Memory,
  ) {
    this.records = new BlockRecords(store.db);
  }

  /**
   * The best `k` events of `scope` for `query`, best first. `exclude` leaves events out (the
   * asking turn's own, which contain the query itself); `accept` narrows by conversation.
   */
  find(
    scope: RecallScope,
    query: string,
    k: number,
    opts: { excludeTurn?: string; accept?: (conv: string) => boolean } = {},
  ): FoundEvent[] {
    const accept = opts.accept;
    // Forgotten events are no candidates at all, so they cannot crowd out what may be found.
    const forgotten = this.store.forgottenBounds();
    const remembered = (id: number, conv: string) => id > (forgotten.get(conv) ?? 0);
    const ranked = this.memory.search(
      scope,
      query,
      k * OVERFETCH,
      (id, conv) => remembered(id, conv) && (accept ? accept(conv) : true),
    );
    const score = new Map(ranked.map((r) => [r.id, r.score]));
    const found = this.describe(ranked.map((r) => r.id)).filter(
      (f) => opts.excludeTurn === undefined || f.turn !== opts.excludeTurn,
    );
    return found
      .map((f) => ({ ...f.event, score: score.get(f.event.id) ?? 0 }))
      .sort((a, b) => (b.score ?? 0) - (a.score ?? 0) || b.id - a.id)
      .slice(0, k);
  }

  /**
   * The events of `ids` that `scope` may see, oldest first; ids that do not exist, have no text
   * or are outside the scope are listed in `refused`.
   */
  fetch(scope: RecallScope, ids: readonly number[]): { events: FoundEvent[]; refused: number[] } {
    const forgotten = this.store.forgottenBounds();
    const seen = this.describe(ids).filter(
      (f) => inScope(scope, f.event) && f.event.id > (forgotten.get(f.event.conv) ?? 0),
    );
    const ok = new Set(seen.map((f) => f.event.id));
    return {
      events: seen.map((f) => f.event).sort((a, b) => a.id - b.id),
      refused: ids.filter((id) => !ok.has(id)),
    };
  }

  /** The stored events of `ids` with text, with their conversation's channel, in id order. */
  private describe(ids: readonly number[]): { event: FoundEvent; turn: string | null }[] {
    const events = this.store.eventsByIds(ids);
    const channels = this.channels([...new Set(events.map((e) => e.conv))]);
    const blocks = this.records.ofEvents(events.map((e) => e.id));
    const out: { event: FoundEvent; turn: string | null }[] = [];
    for (const e of events) {
      const r = readEventBody(e.kind, e.body);
      const text = r ? bodyText(r) : null;
      if (text === null) continue;
      out.push({
        event: {
          id: e.id,
          ts: e.ts,
          conv: e.conv,
          channel: channels.get(e.conv) ?? "",
          untrusted: e.untrusted,
          role: roleOf(e),
          text,
          score: null,
          blocks: (blocks.get(e.id) ?? []).map(({ id, kind, sha256, mime, text, holder }) => ({
            id,
            kind,
            sha256,
            mime,
            text,
            holder,
          })),
        },
        turn: turnOf(e),
      });
    }
    return out;
  }

  private channels(convs: readonly string[]): Map<string, string> {
    if (convs.length === 0) return new Map();
    const rows = this.store.db
      .query<{ id: string; channel: string }, [string]>(
        "SELECT id, channel FROM conversations WHERE id IN (SELECT value FROM json_each(?))",
      )
      .all(JSON.stringify(convs));
    return new Map(rows.map((r) => [r.id, r.channel]));
  }
}

/** "2026-12-01 09:05 UTC". */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** Where an event is from, as a person reads it: "web conversation web-1 · untrusted". */
export function sourceOf(e: Pick<FoundEvent, "conv" | "channel" | "untrusted">): string {
  return `${e.channel ? `${e.channel} ` : ""}conversation ${e.conv}${e.untrusted ? " · untrusted" : ""}`;
}
