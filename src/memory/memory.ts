/**
 * Memory over the append-only log: indexes every event's text as it is appended, scores events
 * against an input (src/memory/relevance.ts), and moves events between layers — L1 (context) and
 * L2 (cold) are states in `event_state`, never deletions. Cold recall is Peek (rank L2 without
 * moving anything) then Remove (the caller confirms, and the events go back to L1).
 */
import type { Store } from "../store/store.ts";
import type { Tokenizer } from "../embed/tokenizer.ts";
import { LexicalIndex } from "./lexical-index.ts";
import { rankEvents } from "./relevance.ts";
import type { DenseIndex } from "./dense-index.ts";

export { eventText } from "./event-text.ts";

export class Memory {
  readonly index: LexicalIndex;
  /** Dense vectors, once a model is loaded (memory works lexically until then). */
  dense: DenseIndex | null = null;

  constructor(
    private readonly store: Store,
    tokenizer: Tokenizer,
  ) {
    this.index = new LexicalIndex(store.db, tokenizer);
  }

  /** Index an event's text (empty text is fine: it simply matches nothing). */
  add(eventId: number, conv: string, text: string): void {
    this.index.add(eventId, conv, text, { time: Date.now() });
    this.dense?.enqueue(eventId, conv, text);
  }

  /** Before scoring for `text`: embed it once, if a dense model is in use. */
  async prepare(text: string): Promise<void> {
    await this.dense?.prepareQuery(text);
  }

  /** Relevance of each of `ids` to `text` (0 for those that share nothing with it). */
  score(conv: string, text: string, ids: readonly number[]): Map<number, number> {
    const wanted = new Set(ids);
    const out = new Map<number, number>();
    const dense = this.dense?.cosines(conv, text, ids) ?? null;
    for (const s of rankEvents(this.index, conv, text, { ids, dense, time: Date.now() }))
      if (wanted.has(s.id)) out.set(s.id, s.score);
    return out;
  }

  /** Peek: the L2 events of `ids` that best match `text`, best first; nothing moves. */
  peekCold(conv: string, text: string, l2Ids: readonly number[], k: number): { id: number; score: number }[] {
    const dense = this.dense?.cosines(conv, text, l2Ids) ?? null;
    return rankEvents(this.index, conv, text, { ids: l2Ids, dense, time: Date.now(), among: new Set(l2Ids), limit: k });
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

  /** Move events to a layer (L1 = 1 context, L2 = 2 cold). */
  setLayer(ids: readonly number[], layer: 1 | 2): void {
    if (ids.length === 0) return;
    const now = Date.now();
    const q = this.store.db.query(
      "UPDATE event_state SET layer = ?, changed_at = ?, accesses = accesses + ?, last_access = ? WHERE event_id = ?",
    );
    this.store.db.transaction(() => {
      for (const id of ids) q.run(layer, now, layer === 1 ? 1 : 0, now, id);
    })();
  }
}
