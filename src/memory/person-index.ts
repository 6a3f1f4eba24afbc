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
 * Like a conversation's index it is made from `event_terms` and then brought up to date by reading
 * only the rows added since (one indexed range read, a page at a time). Made from every row, a
 * million events took 20–30 seconds, so it is kept: a scope is saved as a snapshot
 * (src/memory/index-snapshot.ts) where the daemon keeps them, and a start restores it and reads
 * only the rows after it. `catchUp` brings a scope up to date a slice of time at a time, so the
 * daemon can do it in the background (after a start, after an import) instead of in a turn.
 */
import { ConvIndex } from "./conv-index.ts";
import { LEXICAL_FORMAT, type LexicalIndex } from "./lexical-index.ts";
import { decodeScope, encodeScope, type IndexSnapshots, type ScopeState } from "./index-snapshot.ts";
import type { EventTerms } from "../store/event-terms.ts";

interface Scope extends ScopeState {
  /** Untrusted events are in it too. */
  all: boolean;
  convIds: Map<string, number>;
  /** `lastSeen` when it was last saved or restored (0: never). */
  savedAt: number;
  /** `lastSeen` of the snapshot it was restored from (0: made from the log). */
  restoredAt: number;
}

/** What a scope offers: its index, and the conversation of each of its events. */
export interface PersonScope {
  index: ConvIndex;
  /** The conversation an event of the index is from; undefined for an event not in it. */
  convOf(id: number): string | undefined;
  /** The conversations with at least one event in the index, in the order they first appeared. */
  convs: readonly string[];
}

/** Rows read at a time: ~10 ms of indexing, so a slice of `catchUp` stays near its budget. */
const PAGE = 500;
/** A read that added this many documents gives back the room its lists kept to grow. */
const TRIM_AFTER = 50_000;

export class PersonIndex {
  private readonly scopes = new Map<boolean, Scope>();
  constructor(
    private readonly terms: Pick<EventTerms, "after" | "conversationOf">,
    private readonly lexical: LexicalIndex,
    private readonly snapshots: IndexSnapshots | null = null,
  ) {}

  /** The index over the person's trusted events (and untrusted ones too, with `includeUntrusted`), up to date. */
  scope(includeUntrusted: boolean): PersonScope {
    const s = this.state(includeUntrusted);
    this.read(s, Number.POSITIVE_INFINITY);
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

  /**
   * Bring a scope up to date for at most about `budgetMs` (restoring its snapshot first, when it
   * has one); true when it is up to date.
   */
  catchUp(includeUntrusted: boolean, budgetMs: number): boolean {
    return this.read(this.state(includeUntrusted), budgetMs);
  }

  /**
   * What a scope holds: its documents, and the last event of the snapshot it was restored from
   * (0 when it was made from the log).
   */
  figures(includeUntrusted: boolean): { documents: number; restoredAt: number } {
    const s = this.scopes.get(includeUntrusted);
    return { documents: s?.index.size ?? 0, restoredAt: s?.restoredAt ?? 0 };
  }

  /** Events read into the scopes since they were last saved or restored (the most of any scope). */
  unsaved(): number {
    let n = 0;
    for (const s of this.scopes.values()) n = Math.max(n, s.lastSeen - s.savedAt);
    return n;
  }

  /** Save every scope read further than its snapshot; returns how many were saved. */
  save(): number {
    if (!this.snapshots) return 0;
    let saved = 0;
    for (const s of this.scopes.values()) {
      if (s.lastSeen === s.savedAt) continue;
      this.snapshots.save(snapshotName(s.all), encodeScope(s, LEXICAL_FORMAT));
      s.savedAt = s.lastSeen;
      saved++;
    }
    return saved;
  }

  private state(includeUntrusted: boolean): Scope {
    let s = this.scopes.get(includeUntrusted);
    if (!s) {
      s = this.restore(includeUntrusted) ?? {
        all: includeUntrusted,
        index: new ConvIndex(0),
        convOfDoc: new Int32Array(16),
        convs: [],
        convIds: new Map(),
        lastSeen: 0,
        lastConv: "",
        savedAt: 0,
        restoredAt: 0,
      };
      this.scopes.set(includeUntrusted, s);
    }
    return s;
  }

  /**
   * The scope its snapshot holds, when there is one of this layout and of this log: the event it
   * read last is there, in the same conversation (a data dir restored from an older backup, or
   * another database, is not the one the snapshot was made of).
   */
  private restore(includeUntrusted: boolean): Scope | null {
    const bytes = this.snapshots?.load(snapshotName(includeUntrusted)) ?? null;
    const st = bytes ? decodeScope(bytes, LEXICAL_FORMAT) : null;
    if (!st || (st.lastSeen > 0 && this.terms.conversationOf(st.lastSeen) !== st.lastConv)) return null;
    return {
      ...st,
      all: includeUntrusted,
      convIds: new Map(st.convs.map((c, i) => [c, i])),
      savedAt: st.lastSeen,
      restoredAt: st.lastSeen,
    };
  }

  /** Read the rows after the scope's last, a page at a time, for about `budgetMs`; true when none are left. */
  private read(s: Scope, budgetMs: number): boolean {
    const t0 = performance.now();
    const before = s.index.size;
    let done = false;
    for (;;) {
      const rows = this.terms.after(s.lastSeen, PAGE);
      for (const r of rows) this.add(s, r);
      if (rows.length < PAGE) {
        done = true;
        break;
      }
      if (performance.now() - t0 >= budgetMs) break;
    }
    if (s.index.size - before >= TRIM_AFTER) s.index.trim();
    return done;
  }

  private add(s: Scope, r: { event_id: number; conv: string; terms: string; untrusted: number }): void {
    s.lastSeen = r.event_id;
    s.lastConv = r.conv;
    if (r.untrusted === 1 && !s.all) return;
    const before = s.index.size;
    const e = this.lexical.fromStored(r.event_id, r.terms);
    // Sessions are a conversation's own: two conversations may name theirs alike.
    s.index.add(e.session === null ? e : { ...e, session: `${r.conv}\u0000${e.session}` });
    if (s.index.size === before) return;
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
}

/** The name a scope's snapshot is kept under. */
function snapshotName(includeUntrusted: boolean): string {
  return includeUntrusted ? "person-all" : "person-trusted";
}
