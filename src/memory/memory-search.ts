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
import type { Memory, SearchOptions } from "./memory.ts";
import { inScope, type RecallScope } from "./recall-scope.ts";
import type { BlockRecords } from "../store/block-records.ts";
import type { BlockRecord } from "../protocol/blocks.ts";
import { chunkRole } from "./attachment-chunks.ts";
import type { Coverage } from "./coverage.ts";

/** One remembered event as search shows it. */
export interface FoundEvent {
  id: number;
  /** Epoch milliseconds. */
  ts: number;
  conv: string;
  /** The channel the conversation started on ("web", "cli", …; "" when unknown). */
  channel: string;
  /** The conversation's own title (given by the person, or an imported chat's), when it has one. */
  title?: string;
  untrusted: boolean;
  /** Where its text came from when outside the person's own words, or what was in view when the model wrote it. */
  mark: string | null;
  /** user, assistant, tool <name>, or attachment <name> · <anchor> (a long attachment's chunk). */
  role: string;
  text: string;
  /** Relevance within the scope, the best = 1 (null when brought by id). */
  score: number | null;
  /** The event's blocks (a picture and its caption), held by the event's layer. */
  blocks?: Pick<BlockRecord, "id" | "kind" | "sha256" | "mime" | "text" | "holder">[];
}

/** Candidates are over-fetched by this factor, so that dropping the caller's own turn leaves enough. */
const OVERFETCH = 3;
/**
 * What a memory of an active scene (src/memory/scenes.ts) adds to its score when ranking, times
 * how well the scene matches the turn: memories of the situation the person is in come first
 * among those that match. Chosen on bench/scenes.ts (docs/BENCHMARKS.md, synthetic): 0.2–0.3
 * put the situation's latest fact first every time without losing a question that names another
 * situation; 0.1 is too weak (r@1 74%), 0.5 already takes the first place from such questions.
 */
export const SCENE_BOOST = 0.25;
/** With a scene boost, more candidates are ranked, so scene memories just below the cut can rise. */
const SCENE_OVERFETCH = 4;

function roleOf(e: StoredEvent): string {
  const r = readEventBody(e.kind, e.body);
  if (r?.kind === "user-message") return r.body.speaker || "user";
  if (r?.kind === "tool-result") return `tool ${r.body.name}`;
  if (r?.kind === "attachment-chunk") return chunkRole(r.body);
  if (r?.kind === "recall-turn") return r.body.speaker || "user";
  // What a plugin gave memory (a note) is neither person nor assistant: say whose it is.
  if (r?.kind === "plugin-text") return `${e.actor} ${r.body.key}`;
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
    this.records = store.blockRecords;
  }

  /**
   * The best `k` events of `scope` for `query`, best first. `exclude` leaves events out (the
   * asking turn's own, which contain the query itself); `accept` narrows by conversation.
   */
  find(
    scope: RecallScope,
    query: string,
    k: number,
    opts: {
      excludeTurn?: string;
      accept?: (conv: string) => boolean;
      /** How well the scene an event is a memory of matches the turn (0: none); those rank first. */
      boost?: (id: number, conv: string) => number;
    } & Pick<SearchOptions, "time" | "scorer" | "params" | "askedFrom"> = {},
  ): FoundEvent[] {
    const boost = opts.boost;
    // Forgotten events are no candidates at all, so they cannot crowd out what may be found.
    const forgotten = this.store.forgottenBounds();
    const ranked = this.memory.search(scope, query, {
      limit: k * OVERFETCH * (boost ? SCENE_OVERFETCH : 1),
      accept: (id, conv) => id > (forgotten.get(conv) ?? 0),
      acceptConv: opts.accept,
      time: opts.time,
      scorer: opts.scorer,
      params: opts.params,
      askedFrom: opts.askedFrom,
    });
    if (ranked.length === 0) return [];
    const score = new Map(ranked.map((r) => [r.id, r.score]));
    // Ranked with the boost; the score shown stays the match's own.
    const rank = new Map(
      ranked.map((r) => [r.id, r.score + (boost && r.score > 0 ? SCENE_BOOST * boost(r.id, r.conv) : 0)]),
    );
    const found = this.describe(ranked.map((r) => r.id)).filter(
      (f) => opts.excludeTurn === undefined || f.turn !== opts.excludeTurn,
    );
    return found
      .map((f) => ({ ...f.event, score: score.get(f.event.id) ?? 0 }))
      .sort((a, b) => (rank.get(b.id) ?? 0) - (rank.get(a.id) ?? 0) || b.id - a.id)
      .slice(0, k);
  }

  /** What a found event's text says of `query` (Memory.coverage): the query read once. */
  coverage(scope: RecallScope, query: string): (text: string) => Coverage {
    return this.memory.coverage(scope, query);
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
    const convs = this.conversations([...new Set(events.map((e) => e.conv))]);
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
          channel: convs.get(e.conv)?.channel ?? "",
          ...(convs.get(e.conv)?.title ? { title: convs.get(e.conv)?.title as string } : {}),
          untrusted: e.untrusted,
          mark: e.mark,
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

  private conversations(convs: readonly string[]): Map<string, { channel: string; title: string | null }> {
    if (convs.length === 0) return new Map();
    return this.store.conversationsOf(convs);
  }
}

/**
 * A search hit's snippet of about `chars` characters: the start of the text, and — when the
 * first word of the query it holds lies past that (deep in a page of a long attachment) — the
 * text around that word after a shorter start.
 */
export function snippetOf(text: string, query: string, chars: number): string {
  const lower = text.toLowerCase();
  const found = query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w.length >= 3)
    .map((w) => lower.indexOf(w))
    .filter((i) => i >= 0);
  const at = found.length ? Math.min(...found) : -1;
  const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);
  if (at < chars - 60) return cut(text, chars);
  const head = Math.floor(chars / 3);
  return `${text.slice(0, head)}… ${cut(text.slice(at - 40), chars - head)}`;
}

export { formatTime } from "../shared/time-format.ts";

/**
 * Where an event is from, as a person reads it: "web conversation web-1 · untrusted", or by its
 * title when it has one ("import conversation “Trip to Kyoto” (chatgpt-67f…)").
 */
export function sourceOf(e: Pick<FoundEvent, "conv" | "channel" | "untrusted" | "title">): string {
  const name = e.title ? `“${e.title}” (${e.conv})` : e.conv;
  return `${e.channel ? `${e.channel} ` : ""}conversation ${name}${e.untrusted ? " · untrusted" : ""}`;
}
