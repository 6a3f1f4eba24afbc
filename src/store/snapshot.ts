/**
 * A consistent copy of homed.db while a daemon may be writing it, and the checks that say a copy
 * is whole. The copy is sqlite's `VACUUM INTO` on a read-only connection of its own: it reads one
 * snapshot of the database (every transaction committed before it began, none after), so a turn
 * acknowledged before a backup started is in it and a turn half-written is not, and it never
 * blocks the daemon's writes (WAL). The copy is compact and in rollback-journal mode; the daemon
 * turns WAL back on when it opens it.
 */
import { Database } from "bun:sqlite";
import { chmodSync, existsSync } from "node:fs";
import { HomedError } from "../protocol/errors.ts";
import { SCHEMA_VERSION, userVersion } from "./migrations.ts";

/** What a database holds, counted: the figures a backup's manifest records and its check compares. */
export interface DatabaseCounts {
  events: number;
  conversations: number;
  turns: number;
  blocks: number;
  facts: number;
}

export interface DatabaseCheck {
  /** `PRAGMA integrity_check` said "ok". */
  ok: boolean;
  /** Its first lines when not. */
  problems: string[];
  schemaVersion: number;
  counts: DatabaseCounts;
  /** The newest event's id (0 when empty). */
  lastEventId: number;
}

/** The schema this homed writes (a restored older copy is migrated up to it when the daemon opens it). */
export const CURRENT_SCHEMA = SCHEMA_VERSION;

/**
 * Copy the database at `from` (which a daemon may hold open) into `to`, a file that must not exist,
 * created 0600. Throws HomedError("store") with sqlite's reason when it cannot.
 */
export function snapshotDatabase(from: string, to: string): void {
  if (!existsSync(from)) throw new HomedError("store", `${from}: no database to copy`, { path: from });
  if (existsSync(to)) throw new HomedError("store", `${to} exists already`, { path: to });
  let db: Database | null = null;
  try {
    db = new Database(from, { readonly: true });
    // A writer holding the lock a moment (a checkpoint) is waited for, not failed on.
    db.exec("PRAGMA busy_timeout = 10000");
    db.query("VACUUM INTO ?").run(to);
    chmodSync(to, 0o600);
  } catch (err) {
    if (err instanceof HomedError) throw err;
    throw new HomedError("store", `copying ${from}: ${(err as Error).message}`, { path: from }, { cause: err });
  } finally {
    db?.close();
  }
}

/** Open `path` read-only and check it: integrity, schema version, counts. */
export function checkDatabase(path: string): DatabaseCheck {
  let db: Database | null = null;
  try {
    db = new Database(path, { readonly: true });
    const problems = db
      .query<{ integrity_check: string }, []>("PRAGMA integrity_check")
      .all()
      .map((r) => r.integrity_check);
    const count = (table: string) => {
      const exists = db
        ?.query<{ n: number }, [string]>("SELECT count(*) AS n FROM sqlite_master WHERE name = ?")
        .get(table);
      if (!exists?.n) return 0;
      return db?.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? 0;
    };
    const ok = problems.length === 1 && problems[0] === "ok";
    return {
      ok,
      problems: ok ? [] : problems.slice(0, 10),
      schemaVersion: userVersion(db),
      counts: {
        events: count("events"),
        conversations: count("conversations"),
        turns: count("turns"),
        blocks: count("blocks"),
        facts: count("l3_facts"),
      },
      lastEventId: db.query<{ id: number | null }, []>("SELECT max(id) AS id FROM events").get()?.id ?? 0,
    };
  } catch (err) {
    throw new HomedError("store", `${path}: ${(err as Error).message}`, { path }, { cause: err });
  } finally {
    db?.close();
  }
}
