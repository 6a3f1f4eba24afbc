/**
 * `event_terms`: one row per indexed event with its words, concepts, speaker, session and time as
 * JSON (src/memory/lexical-index.ts decides what goes in; this file only reads and writes). The
 * rows are derived data: a change of their layout re-makes them all from the log (`rebuild`).
 * Indexing runs per appended event and the reads per query, so the statements of those paths
 * are prepared once.
 */
import type { Database } from "bun:sqlite";
import { blockTexts } from "./block-records.ts";

/** An event as the log holds it (what indexing it needs). */
export interface LoggedEvent {
  id: number;
  ts: number;
  conv: string;
  kind: string;
  actor: string;
  body: string;
}

/** An indexed event's stored terms with what the person-wide index needs of it. */
export interface TermsRow {
  event_id: number;
  conv: string;
  terms: string;
  untrusted: number;
}

export class EventTerms {
  private readonly lastRow;
  private readonly insert;
  private readonly afterRows;
  private readonly convRow;

  constructor(private readonly db: Database) {
    this.lastRow = db.query<{ terms: string }, [string]>(
      "SELECT terms FROM event_terms WHERE conv = ? ORDER BY event_id DESC LIMIT 1",
    );
    this.insert = db.query("INSERT OR REPLACE INTO event_terms (event_id, conv, tokens, terms) VALUES (?, ?, ?, ?)");
    this.afterRows = db.query<TermsRow, [number, number]>(
      `SELECT t.event_id, t.conv, t.terms, e.untrusted FROM event_terms t JOIN events e ON e.id = t.event_id
       WHERE t.event_id > ? AND e.kind != 'recall-turn' ORDER BY t.event_id LIMIT ?`,
    );
    this.convRow = db.query<{ conv: string }, [number]>("SELECT conv FROM events WHERE id = ?");
  }

  /** The layout the rows were written in (meta `lexical_format`); undefined before any. */
  format(): string | undefined {
    return this.db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'lexical_format'").get()?.value;
  }

  /**
   * Re-make every row in one transaction: the events that had one are read, the table (and the
   * `event_fts` and `term_df` of earlier layouts, which nothing reads any more) emptied,
   * `reindex` writes them again, and the layout becomes `format`.
   */
  rebuild(format: string, reindex: (events: LoggedEvent[]) => void): void {
    const rows = this.db
      .query<LoggedEvent, []>(
        "SELECT e.id, e.ts, e.conv, e.kind, e.actor, e.body FROM event_terms t JOIN events e ON e.id = t.event_id ORDER BY e.id",
      )
      .all();
    this.db.transaction(() => {
      this.db.exec("DELETE FROM event_terms; DELETE FROM event_fts; DELETE FROM term_df");
      reindex(rows);
      this.db
        .query(
          "INSERT INTO meta (key, value) VALUES ('lexical_format', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        )
        .run(format);
    })();
  }

  /** Write (or replace) an event's row. */
  put(eventId: number, conv: string, tokens: number, terms: string): void {
    this.insert.run(eventId, conv, tokens, terms);
  }

  /** The terms of a conversation's newest indexed event, if any. */
  last(conv: string): string | undefined {
    return this.lastRow.get(conv)?.terms;
  }

  /** A conversation's rows with event id >= `fromId`, in id order. */
  ofConversation(conv: string, fromId: number): { event_id: number; terms: string }[] {
    return this.db
      .query<{ event_id: number; terms: string }, [string, number]>(
        "SELECT event_id, terms FROM event_terms WHERE conv = ? AND event_id >= ? ORDER BY event_id",
      )
      .all(conv, fromId);
  }

  /**
   * The rows after event `id` but `homed recall`'s turns, at most `limit`, in id order, with
   * whether its event is untrusted: read a page at a time, never a million rows at once.
   */
  after(id: number, limit: number): TermsRow[] {
    return this.afterRows.all(id, limit);
  }

  /** The conversation of event `id`, if the log holds it. */
  conversationOf(id: number): string | undefined {
    return this.convRow.get(id)?.conv;
  }

  /** The texts an event's blocks carry (captions, file names, alt text), to index with its own. */
  blockTexts(eventId: number): string[] {
    return blockTexts(this.db, eventId);
  }
}
