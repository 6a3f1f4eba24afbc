/**
 * What distillation (src/memory/distill.ts) reads of the log: the turns cold enough to distill,
 * and the image blocks of their events; and the transaction a batch commits in.
 */
import type { Database } from "bun:sqlite";

/** A turn as read for distillation: its event ids as a JSON array, whether any is untrusted (1). */
export interface ColdTurnRow {
  conv: string;
  turn: string;
  ids: string;
  untrusted: number;
}

export class DistillRows {
  constructor(private readonly db: Database) {}

  /**
   * Turns whose events are all in L2, none accessed more than `maxAccesses` times nor touched
   * after `idleBefore`, oldest first, at most `limit`; forgotten events, L3's own log and
   * plugins' records left out.
   */
  readyTurns(maxAccesses: number, idleBefore: number, limit: number): ColdTurnRow[] {
    return this.db
      .query<ColdTurnRow, [number, number, number]>(
        `SELECT e.conv, json_extract(e.body, '$.turn') AS turn, json_group_array(e.id) AS ids, max(e.untrusted) AS untrusted
         FROM events e JOIN event_state s ON s.event_id = e.id
         LEFT JOIN conversations c ON c.id = e.conv
         WHERE e.conv NOT LIKE 'l3:%' AND e.conv NOT LIKE 'plugin:%'
           AND json_valid(e.body) AND json_type(e.body, '$.turn') = 'text'
           AND e.id > COALESCE(c.forgotten_upto, 0)
         GROUP BY e.conv, turn
         HAVING min(s.layer) = 2 AND max(s.layer) = 2 AND max(s.accesses) <= ?
           AND max(COALESCE(s.last_access, s.changed_at)) <= ?
         ORDER BY min(e.id) LIMIT ?`,
      )
      .all(maxAccesses, idleBefore, limit);
  }

  /** The image blocks of `eventIds`, by block id, with their text. */
  imageBlocks(eventIds: readonly number[]): { id: number; event_id: number; text: string }[] {
    return this.db
      .query<{ id: number; event_id: number; text: string }, [string]>(
        "SELECT id, event_id, text FROM blocks WHERE kind = 'image' AND event_id IN (SELECT value FROM json_each(?)) ORDER BY id",
      )
      .all(JSON.stringify(eventIds));
  }

  /** Run `fn` in one transaction: a batch's facts and its turns' move to L3 commit together. */
  transaction(fn: () => void): void {
    this.db.transaction(fn)();
  }
}
