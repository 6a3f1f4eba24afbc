/**
 * Memory over the append-only log: indexes every event's text as it is appended, scores events
 * against an input (src/memory/relevance.ts), and moves events between layers — L1 (context) and
 * L2 (cold) are states in `event_state`, never deletions. Cold recall is Peek (rank L2 without
 * moving anything) then Remove (the caller confirms, and the events go back to L1).
 */
import type { Store } from "../store/store.ts";
import type { Tokenizer } from "../embed/tokenizer.ts";
import { LexicalIndex } from "./lexical-index.ts";
import { rankEvents, type IdSet } from "./relevance.ts";
import type { DenseIndex } from "./dense-index.ts";
import { PersonIndex } from "./person-index.ts";
import type { RecallScope } from "./recall-scope.ts";
import { blockTexts, withBlockTexts } from "../store/block-records.ts";

export { eventText } from "./event-text.ts";

/**
 * Membership in `ids` by binary search, for ranking among a conversation's L1 or L2 events on
 * every turn: a Set of them cost ~40 bytes an id per query, garbage that grew with the
 * conversation and kept the daemon's heap high under load. `ids` are used as they are when
 * ascending (a conversation's turns in order), else a sorted copy.
 */
export function sortedIds(ids: readonly number[]): IdSet {
  let sorted: ArrayLike<number> = ids;
  for (let i = 1; i < ids.length; i++)
    if ((ids[i] as number) < (ids[i - 1] as number)) {
      sorted = Float64Array.from(ids).sort();
      break;
    }
  return {
    has(id: number): boolean {
      let lo = 0;
      let hi = sorted.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const x = sorted[mid] as number;
        if (x === id) return true;
        if (x < id) lo = mid + 1;
        else hi = mid - 1;
      }
      return false;
    },
  };
}

export class Memory {
  readonly index: LexicalIndex;
  /** Every conversation's events in one collection, for recall across conversations. */
  readonly person: PersonIndex;
  /** Dense vectors, once a model is loaded (memory works lexically until then). */
  dense: DenseIndex | null = null;

  constructor(
    private readonly store: Store,
    tokenizer: Tokenizer,
  ) {
    this.index = new LexicalIndex(store.db, tokenizer);
    this.person = new PersonIndex(store.db, this.index);
  }

  /**
   * Index an event's text (empty text is fine: it simply matches nothing), with what its blocks
   * carry (a caption, a file name, alt text), so "the photo of the red bike" finds the photo.
   */
  add(eventId: number, conv: string, text: string): void {
    const full = withBlockTexts(text, blockTexts(this.store.db, eventId));
    this.index.add(eventId, conv, full, { time: Date.now() });
    this.dense?.enqueue(eventId, conv, full);
  }

  /** Before scoring for `text`: embed it once, if a dense model is in use. */
  async prepare(text: string): Promise<void> {
    await this.dense?.prepareQuery(text);
  }

  /** Relevance of each of `ids` to `text` (0 for those that share nothing with it). */
  score(conv: string, text: string, ids: readonly number[]): Map<number, number> {
    const out = new Map<number, number>();
    const dense = this.dense?.cosines(conv, text, ids) ?? null;
    // Only `ids` compete, so the ranking makes no entry for the rest of the conversation (the
    // scores are normalised by the whole conversation's best either way).
    for (const s of rankEvents(this.index, conv, text, { ids, dense, time: Date.now(), among: sortedIds(ids) }))
      out.set(s.id, s.score);
    return out;
  }

  /** Peek: the L2 events of `ids` that best match `text`, best first; nothing moves. */
  peekCold(conv: string, text: string, l2Ids: readonly number[], k: number): { id: number; score: number }[] {
    const dense = this.dense?.cosines(conv, text, l2Ids) ?? null;
    return rankEvents(this.index, conv, text, {
      ids: l2Ids,
      dense,
      time: Date.now(),
      among: sortedIds(l2Ids),
      limit: k,
    });
  }

  /**
   * The events of `scope` that best match `text`, best first, with the conversation each is from.
   * A person scope is one collection (src/memory/person-index.ts), so scores of different
   * conversations compare; it is ranked lexically (dense vectors are kept per conversation).
   * `accept` narrows the candidates (not the normalisation: the best of the scope scores 1);
   * `acceptConv` narrows them by conversation, and when it accepts none of the scope's
   * conversations nothing is ranked (a person with one conversation asks for the others).
   */
  search(
    scope: RecallScope,
    text: string,
    limit: number,
    accept?: (id: number, conv: string) => boolean,
    acceptConv?: (conv: string) => boolean,
  ): { id: number; conv: string; score: number }[] {
    const time = Date.now();
    if (scope.kind === "conversation") {
      const conv = scope.conv;
      if (acceptConv && !acceptConv(conv)) return [];
      const among = accept ? { has: (id: number) => accept(id, conv) } : undefined;
      return rankEvents(this.index, conv, text, { ids: [], time, limit, among }).map((s) => ({ ...s, conv }));
    }
    const { index, convOf, convs } = this.person.scope(scope.includeUntrusted);
    if (acceptConv && !convs.some(acceptConv)) return [];
    const among =
      accept || acceptConv
        ? {
            has: (id: number) => {
              const conv = convOf(id) ?? "";
              return (!acceptConv || acceptConv(conv)) && (!accept || accept(id, conv));
            },
          }
        : undefined;
    return rankEvents(this.index, "", text, { ids: [], time, limit, among, index }).map((s) => ({
      ...s,
      conv: convOf(s.id) ?? "",
    }));
  }

  /** Count an access (a recall that did not move the events), for cooling decisions. */
  touch(ids: readonly number[]): void {
    if (ids.length === 0) return;
    const now = Date.now();
    const q = this.store.db.query("UPDATE event_state SET accesses = accesses + 1, last_access = ? WHERE event_id = ?");
    this.store.db.transaction(() => {
      for (const id of ids) q.run(now, id);
    })();
  }

  /** Ids of a conversation's events in a layer. */
  layerIds(conv: string, layer: 1 | 2 | 3): number[] {
    return this.store.db
      .query<{ id: number }, [string, number]>(
        "SELECT e.id FROM events e JOIN event_state s ON s.event_id = e.id WHERE e.conv = ? AND s.layer = ? ORDER BY e.id",
      )
      .all(conv, layer)
      .map((r) => r.id);
  }

  /** Move events to a layer (L1 = 1 context, L2 = 2 cold, L3 = 3 distilled: for good). */
  setLayer(ids: readonly number[], layer: 1 | 2 | 3): void {
    if (ids.length === 0) return;
    const now = Date.now();
    const q = this.store.db.query(
      "UPDATE event_state SET layer = ?, changed_at = ?, accesses = accesses + ?, last_access = ? WHERE event_id = ? AND layer != 3",
    );
    this.store.db.transaction(() => {
      for (const id of ids) q.run(layer, now, layer === 1 ? 1 : 0, now, id);
    })();
  }
}
