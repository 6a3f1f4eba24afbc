/**
 * The scenes tables (migration 9) as stored: scenes and candidates with their JSON columns as
 * text, and their member turns. src/memory/scene-rows.ts parses and caches the rows and
 * src/memory/scenes.ts decides; this file only reads and writes. Every turn compares itself with
 * its comparable rows and adds a member, so these run per turn.
 */
import type { Database } from "bun:sqlite";

/** A row of `scenes` as sqlite returns it (`features` and `settings` are JSON text). */
export interface SceneRecord {
  id: number;
  status: string;
  key: string;
  parent_key: string;
  features: string;
  strength: number;
  created_at: number;
  last_seen: number;
  settings: string;
}

/** A member turn of a scene: the events it holds in its conversation. */
export interface SceneMember {
  turn: string;
  conv: string;
  ts: number;
  firstEvent: number;
  lastEvent: number;
}

export class SceneStore {
  constructor(private readonly db: Database) {}

  /**
   * Scenes and candidates a turn under `key` (or none, "") may match: those of that key and those
   * grown inside it (with no key, the undeclared ones: no row's key is "\u0000").
   */
  comparable(key: string): SceneRecord[] {
    return this.db
      .query<SceneRecord, [string, string]>("SELECT * FROM scenes WHERE key = ? OR (key = '' AND parent_key = ?)")
      .all(key || "\u0000", key);
  }

  /** Every scene (not candidates), oldest first. */
  scenes(): SceneRecord[] {
    return this.db.query<SceneRecord, []>("SELECT * FROM scenes WHERE status = 'scene' ORDER BY id").all();
  }

  byId(id: number): SceneRecord | null {
    return this.db.query<SceneRecord, [number]>("SELECT * FROM scenes WHERE id = ?").get(id);
  }

  byKey(key: string): SceneRecord | null {
    return this.db.query<SceneRecord, [string]>("SELECT * FROM scenes WHERE key = ?").get(key);
  }

  /**
   * Add a row; then, beyond the newest `maxCandidates` undeclared candidates, the older ones and
   * their members are deleted. Returns the new id (0 if none came back) and the ids deleted.
   */
  insert(row: Omit<SceneRecord, "id">, maxCandidates: number): { id: number; dropped: number[] } {
    const r = this.db
      .query<{ id: number }, [string, string, string, string, number, number, number, string]>(
        `INSERT INTO scenes (status, key, parent_key, features, strength, created_at, last_seen, settings)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      )
      .get(
        row.status,
        row.key,
        row.parent_key,
        row.features,
        row.strength,
        row.created_at,
        row.last_seen,
        row.settings,
      );
    const dropped: number[] = [];
    const cut = this.db
      .query<{ id: number }, [number]>(
        "SELECT id FROM scenes WHERE status = 'candidate' AND key = '' ORDER BY id DESC LIMIT 1 OFFSET ?",
      )
      .get(maxCandidates);
    if (cut) {
      const old = "SELECT id FROM scenes WHERE status = 'candidate' AND key = '' AND id <= ?";
      for (const gone of this.db.query<{ id: number }, [number]>(old).all(cut.id)) dropped.push(gone.id);
      this.db.query(`DELETE FROM scene_members WHERE scene_id IN (${old})`).run(cut.id);
      this.db.query(`DELETE FROM scenes WHERE id IN (${old})`).run(cut.id);
    }
    return { id: r?.id ?? 0, dropped };
  }

  /** Write a row's changing columns. */
  update(row: Pick<SceneRecord, "id" | "status" | "features" | "strength" | "last_seen" | "settings">): void {
    this.db
      .query("UPDATE scenes SET status = ?, features = ?, strength = ?, last_seen = ?, settings = ? WHERE id = ?")
      .run(row.status, row.features, row.strength, row.last_seen, row.settings, row.id);
  }

  /** Add a member turn to scene `id`; false when that turn already is one (nothing changes). */
  addMember(id: number, m: SceneMember): boolean {
    const r = this.db
      .query(
        "INSERT OR IGNORE INTO scene_members (scene_id, turn, conv, ts, first_event, last_event) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(id, m.turn, m.conv, m.ts, m.firstEvent, m.lastEvent);
    return r.changes > 0;
  }

  /** The events of scene `id`'s member turns, by first event. */
  memberEvents(id: number): { conv: string; first_event: number; last_event: number }[] {
    return this.db
      .query<{ conv: string; first_event: number; last_event: number }, [number]>(
        "SELECT conv, first_event, last_event FROM scene_members WHERE scene_id = ? ORDER BY first_event",
      )
      .all(id);
  }

  /** A scene's newest `limit` member turns, newest first. */
  recentMembers(id: number, limit: number): { turn: string; conv: string; ts: number }[] {
    return this.db
      .query<{ turn: string; conv: string; ts: number }, [number, number]>(
        "SELECT turn, conv, ts FROM scene_members WHERE scene_id = ? ORDER BY ts DESC LIMIT ?",
      )
      .all(id, limit);
  }

  memberCount(id: number): number {
    return this.db.query<{ n: number }, [number]>("SELECT count(*) AS n FROM scene_members WHERE scene_id = ?").get(id)
      ?.n as number;
  }

  /** The newest event id of the log (a turn's events are those after it, in its conversation). */
  lastEventId(): number {
    return this.db.query<{ m: number | null }, []>("SELECT max(id) AS m FROM events").get()?.m ?? 0;
  }
}
