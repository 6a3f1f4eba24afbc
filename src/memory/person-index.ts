/**
 * One person, one memory: a lexical index over every conversation of the data dir,
 * so that a fact told in one web chat is found from a CLI chat. Scores of different
 * per-conversation indexes are not comparable (each has its own document frequencies and
 * normalisation), so cross-conversation ranking uses one collection: BM25 statistics over
 * everything in scope, one ranking, one normalisation.
 *
 * Two scopes exist, chosen by `[memory] recall_untrusted`: trusted events only (the default), or
 * every event. Untrusted conversations never query this index — they recall only their own
 * conversation (src/memory/recall-scope.ts). `homed recall` turns (`recall-turn`) are left out:
 * each of its conversations is an isolated memory.
 *
 * Like a conversation's index it is built from `event_terms` on first use and then brought up to
 * date on every query by reading only the rows added since (one indexed range read).
 */
import { ConvIndex } from "./conv-index.ts";
import type { LexicalIndex } from "./lexical-index.ts";
import type { EventTerms } from "../store/event-terms.ts";

interface Scope {
  index: ConvIndex;
  /**
   * The conversation of each document, as an ordinal into `convs`: 4 bytes an event, where a
   * Map entry and a small object per event cost ~25 times that in an index that holds every
   * event of the data dir.
   */
  convOfDoc: Int32Array;
  convs: string[];
  convIds: Map<string, number>;
  /** The last event id read from the log (indexed or not). */
  lastSeen: number;
}

/** What a scope offers: its index, and the conversation of each of its events. */
export interface PersonScope {
  index: ConvIndex;
  /** The conversation an event of the index is from; undefined for an event not in it. */
  convOf(id: number): string | undefined;
  /** The conversations with at least one event in the index, in the order they first appeared. */
  convs: readonly string[];
}

export class PersonIndex {
  private readonly scopes = new Map<boolean, Scope>();
  constructor(
    private readonly terms: Pick<EventTerms, "after">,
    private readonly lexical: LexicalIndex,
  ) {}

  /** The index over the person's trusted events (and untrusted ones too, with `includeUntrusted`), up to date. */
  scope(includeUntrusted: boolean): PersonScope {
    let s = this.scopes.get(includeUntrusted);
    if (!s) {
      s = { index: new ConvIndex(0), convOfDoc: new Int32Array(16), convs: [], convIds: new Map(), lastSeen: 0 };
      this.scopes.set(includeUntrusted, s);
    }
    for (const r of this.terms.after(s.lastSeen)) {
      s.lastSeen = r.event_id;
      if (r.untrusted === 1 && !includeUntrusted) continue;
      const before = s.index.size;
      const e = this.lexical.fromStored(r.event_id, r.terms);
      // Sessions are a conversation's own: two conversations may name theirs alike.
      s.index.add(e.session === null ? e : { ...e, session: `${r.conv}\u0000${e.session}` });
      if (s.index.size === before) continue;
      let c = s.convIds.get(r.conv);
      if (c === undefined) {
        c = s.convs.length;
        s.convs.push(r.conv);
        s.convIds.set(r.conv, c);
      }
      if (before === s.convOfDoc.length) {
        const grown = new Int32Array(s.convOfDoc.length * 2);
        grown.set(s.convOfDoc);
        s.convOfDoc = grown;
      }
      s.convOfDoc[before] = c;
    }
    const { index, convOfDoc, convs } = s;
    return {
      index,
      convs,
      convOf(id: number): string | undefined {
        // Documents are in ascending id order: binary search, nothing allocated per lookup.
        let lo = 0;
        let hi = index.size - 1;
        while (lo <= hi) {
          const mid = (lo + hi) >> 1;
          const x = index.ids[mid] as number;
          if (x === id) return convs[convOfDoc[mid] as number];
          if (x < id) lo = mid + 1;
          else hi = mid - 1;
        }
        return undefined;
      },
    };
  }
}
