/**
 * One person, one memory (DESIGN §5): a lexical index over every conversation of the data dir,
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
import type { Database } from "bun:sqlite";
import { ConvIndex } from "./conv-index.ts";
import type { LexicalIndex } from "./lexical-index.ts";

/** Where an event of the person-wide index came from. */
export interface EventSource {
  conv: string;
  untrusted: boolean;
}

interface Scope {
  index: ConvIndex;
  sources: Map<number, EventSource>;
  /** The last event id read from the log (indexed or not). */
  lastSeen: number;
}

export class PersonIndex {
  private readonly scopes = new Map<boolean, Scope>();
  private readonly after;

  constructor(
    db: Database,
    private readonly lexical: LexicalIndex,
  ) {
    this.after = db.query<{ event_id: number; conv: string; terms: string; untrusted: number }, [number]>(
      `SELECT t.event_id, t.conv, t.terms, e.untrusted FROM event_terms t JOIN events e ON e.id = t.event_id
       WHERE t.event_id > ? AND e.kind != 'recall-turn' ORDER BY t.event_id`,
    );
  }

  /** The index over the person's trusted events (and untrusted ones too, with `includeUntrusted`), up to date. */
  scope(includeUntrusted: boolean): { index: ConvIndex; sources: ReadonlyMap<number, EventSource> } {
    let s = this.scopes.get(includeUntrusted);
    if (!s) {
      s = { index: new ConvIndex(0), sources: new Map(), lastSeen: 0 };
      this.scopes.set(includeUntrusted, s);
    }
    for (const r of this.after.all(s.lastSeen)) {
      s.lastSeen = r.event_id;
      const untrusted = r.untrusted === 1;
      if (untrusted && !includeUntrusted) continue;
      s.index.add(this.lexical.fromStored(r.event_id, r.terms));
      s.sources.set(r.event_id, { conv: r.conv, untrusted });
    }
    return s;
  }
}
