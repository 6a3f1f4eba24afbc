/**
 * Versioned schema of homed.db. `PRAGMA user_version` records how many migrations ran. A
 * migration is appended here and never edited once released: a database that has run it must
 * mean the same thing to every later binary (so the SQL comments of released migrations keep
 * their old wording, "DESIGN §5" included: they name the design notes of their time).
 *
 * The `events` table is the append-only log. Triggers make UPDATE and DELETE on it
 * fail inside sqlite itself, so no code path — ours or a future one — can rewrite history.
 * Layer and access state live beside it in `event_state`.
 */
import type { Database } from "bun:sqlite";
import { HomedError } from "../protocol/errors.ts";
import { adoptBlocks } from "./event-blocks.ts";

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Work SQL alone cannot do (parsing bodies), run after `sql` in the same transaction. */
  run?: (db: Database, opts: MigrateOptions) => void;
}

/** What migrations that read event bodies need to know of this daemon. */
export interface MigrateOptions {
  /** Channels whose user messages' image tags are believed (src/store/event-blocks.ts). */
  imageTagChannels: readonly string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "append-only event log",
    sql: `
      CREATE TABLE events (
        id        INTEGER PRIMARY KEY AUTOINCREMENT,
        ts        INTEGER NOT NULL,           -- unix milliseconds when appended
        conv      TEXT    NOT NULL,           -- conversation the event belongs to
        kind      TEXT    NOT NULL,           -- noun-verb: user-message, tool-call, ...
        actor     TEXT    NOT NULL,           -- who produced it: user, agent, plugin name
        untrusted INTEGER NOT NULL DEFAULT 0, -- 1 when it came from an untrusted source
        body      TEXT    NOT NULL            -- JSON payload, validated when read back
      );
      CREATE INDEX events_conv ON events(conv, id);
      CREATE TRIGGER events_no_update BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE refused'); END;
      CREATE TRIGGER events_no_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE refused'); END;

      -- Mutable state over the log: which memory layer an event is in and how it is used.
      CREATE TABLE event_state (
        event_id    INTEGER PRIMARY KEY REFERENCES events(id),
        layer       INTEGER NOT NULL DEFAULT 1 CHECK (layer IN (1, 2, 3)),
        accesses    INTEGER NOT NULL DEFAULT 0,
        last_access INTEGER,
        changed_at  INTEGER NOT NULL
      );

      CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: "conversations and turns",
    sql: `
      -- Per-conversation and per-turn accounting beside the log (the log itself stays append-only).
      CREATE TABLE conversations (
        id            TEXT PRIMARY KEY,
        channel       TEXT    NOT NULL,
        created_at    INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL,
        turns         INTEGER NOT NULL DEFAULT 0,
        input_tokens  INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0
      );
      CREATE TABLE turns (
        id            TEXT PRIMARY KEY,
        conv          TEXT    NOT NULL,
        started_at    INTEGER NOT NULL,
        finished_at   INTEGER,
        iterations    INTEGER NOT NULL DEFAULT 0,
        input_tokens  INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        stop_reason   TEXT
      );
      CREATE INDEX turns_conv ON turns(conv, started_at);
    `,
  },
  {
    version: 3,
    name: "lexical memory index",
    sql: `
      -- BM25 over jieba's words: FTS5's own tokenizer does not split Chinese into words, so each
      -- event's terms (already segmented, space-separated) are what FTS5 indexes. rowid = event id.
      CREATE VIRTUAL TABLE event_fts USING fts5(terms, conv UNINDEXED, tokenize = 'unicode61 remove_diacritics 0');
      -- Term counts per event, for TF-IDF vectors weighted with the corpus's current IDF.
      CREATE TABLE event_terms (
        event_id INTEGER PRIMARY KEY REFERENCES events(id),
        conv     TEXT NOT NULL,
        tokens   INTEGER NOT NULL,
        terms    TEXT NOT NULL -- JSON {term: count}
      );
      CREATE INDEX event_terms_conv ON event_terms(conv, event_id);
      -- Document frequency of every term over the data dir's events (incremental IDF).
      CREATE TABLE term_df (
        term TEXT PRIMARY KEY,
        df   INTEGER NOT NULL
      ) WITHOUT ROWID;
      INSERT INTO meta (key, value) VALUES ('lexical_docs', '0');
    `,
  },
  {
    version: 4,
    name: "words and concepts in separate FTS columns",
    sql: `
      -- Words and their concepts (WordNet, CC-CEDICT) are indexed in separate columns, so BM25
      -- can weight a shared concept below a shared word, and plain-word BM25 stays measurable.
      DROP TABLE event_fts;
      CREATE VIRTUAL TABLE event_fts USING fts5(words, concepts, conv UNINDEXED, tokenize = 'unicode61 remove_diacritics 0');
      INSERT INTO event_fts (rowid, words, concepts, conv)
        SELECT event_id, (SELECT group_concat(key, ' ') FROM json_each(terms)), '', conv FROM event_terms;
    `,
  },
  {
    version: 5,
    name: "dense vectors",
    sql: `
      -- One vector per event and embedder; the embedder id (model and version) travels with the
      -- vector, so a changed model never compares with old vectors and they can be re-made.
      CREATE TABLE event_vectors (
        event_id INTEGER NOT NULL REFERENCES events(id),
        embedder TEXT    NOT NULL,
        dim      INTEGER NOT NULL,
        vec      BLOB    NOT NULL, -- float32, little-endian, L2-normalised
        PRIMARY KEY (event_id, embedder)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 6,
    name: "conversation titles and forgetting",
    sql: `
      -- A title the person gave (NULL: the first message's text stands in).
      ALTER TABLE conversations ADD COLUMN title TEXT;
      -- Forgetting is a state, not a deletion: the events up to forgotten_upto stay in the log
      -- but leave the list, every search and recall, and the conversation's own context.
      ALTER TABLE conversations ADD COLUMN forgotten_upto INTEGER;
      ALTER TABLE conversations ADD COLUMN forgotten_at INTEGER;
    `,
  },
  {
    version: 7,
    name: "a model per conversation",
    sql: `
      -- A model of the provider chosen for this conversation (NULL: the configured one), used by
      -- every channel that continues it.
      ALTER TABLE conversations ADD COLUMN model TEXT;
    `,
  },
  {
    version: 8,
    name: "a scene key per conversation",
    sql: `
      -- Where the conversation happens as its channel names it (chan:qq/peer:group_1), set by
      -- its first turn; '' when the channel declared none.
      ALTER TABLE conversations ADD COLUMN scene TEXT NOT NULL DEFAULT '';
    `,
  },
  {
    version: 9,
    name: "scenes",
    sql: `
      -- Recurring situations (DESIGN §6, src/memory/scenes.ts). A row is a candidate until its
      -- fingerprint occurs a second time (minSceneEvidence = 2), then a scene. A declared scene has
      -- the key a channel declared (chan:qq/peer:group_1); a clustered one has key '' and, grown
      -- inside a declared scene, that scene's key as parent_key. strength is as of last_seen (it
      -- decays by the configured half-life from then); settings: {persona, tools} the owner set.
      CREATE TABLE scenes (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        status     TEXT    NOT NULL CHECK (status IN ('candidate', 'scene')),
        key        TEXT    NOT NULL DEFAULT '',
        parent_key TEXT    NOT NULL DEFAULT '',
        features   TEXT    NOT NULL,
        strength   REAL    NOT NULL,
        created_at INTEGER NOT NULL,
        last_seen  INTEGER NOT NULL,
        settings   TEXT    NOT NULL DEFAULT '{}'
      );
      CREATE UNIQUE INDEX scenes_declared ON scenes(key) WHERE key != '';
      CREATE INDEX scenes_parent ON scenes(parent_key, status);
      -- The turns of a scene: events of conv with first_event <= id <= last_event are its memories.
      CREATE TABLE scene_members (
        scene_id    INTEGER NOT NULL REFERENCES scenes(id),
        turn        TEXT    NOT NULL,
        conv        TEXT    NOT NULL,
        ts          INTEGER NOT NULL,
        first_event INTEGER NOT NULL,
        last_event  INTEGER NOT NULL,
        PRIMARY KEY (scene_id, turn)
      );
    `,
  },
  {
    version: 10,
    name: "block records with one holder",
    sql: `
      -- A block is a per-event record with its own id pointing at bytes in DATA/blocks (DESIGN §5).
      -- Its one holder is its event's layer (event_state, one row per event): one event_id per
      -- record, and records never change or go, so a block can neither have two holders nor
      -- change id, and no reference counting is needed. sha256 is NULL for a block without bytes.
      CREATE TABLE blocks (
        id       INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id INTEGER NOT NULL REFERENCES events(id),
        seq      INTEGER NOT NULL,
        kind     TEXT    NOT NULL CHECK (kind IN ('text', 'image', 'audio', 'video', 'page', 'file')),
        sha256   TEXT    CHECK (sha256 IS NULL OR length(sha256) = 64),
        mime     TEXT    NOT NULL DEFAULT '',
        size     INTEGER NOT NULL DEFAULT 0,
        text     TEXT    NOT NULL DEFAULT '', -- caption, file name, alt text: indexed with the event
        UNIQUE (event_id, seq)
      );
      CREATE INDEX blocks_sha ON blocks(sha256);
      CREATE TRIGGER blocks_no_update BEFORE UPDATE ON blocks
        BEGIN SELECT RAISE(ABORT, 'block records never change: UPDATE refused'); END;
      CREATE TRIGGER blocks_no_delete BEFORE DELETE ON blocks
        BEGIN SELECT RAISE(ABORT, 'block records are never deleted: DELETE refused'); END;
    `,
    // Images logged before this migration (tool results, pictures a channel stored) become their events' blocks.
    run: (db, opts) => {
      adoptBlocks(db, opts.imageTagChannels);
    },
  },
  {
    version: 11,
    name: "the stable graph (L3)",
    sql: `
      -- L3 (DESIGN §5, src/store/l3-graph.ts): subject-predicate-object facts whose nodes are
      -- blocks. An entity is a text block of an 'l3-entity' event in the log's 'l3:graph'
      -- conversation, held by L3 (its event's layer is 3); a media node is the image's own block,
      -- held by L3 once its event is distilled. key: the entity's name folded for lookup.
      CREATE TABLE l3_nodes (
        block_id INTEGER PRIMARY KEY REFERENCES blocks(id),
        key      TEXT NOT NULL,
        label    TEXT NOT NULL
      );
      CREATE UNIQUE INDEX l3_nodes_key ON l3_nodes(key) WHERE key != '';
      -- A fact. Never deleted, never rewritten: only its marks are set, once each — superseded
      -- (by a newer fact on the same subject and predicate) and hidden (a person deleted it).
      -- valid_from: when it became true (its newest source's time, or when the person said it).
      -- version: the distillation prompt and triple schema that made it ('person' for a correction).
      CREATE TABLE l3_facts (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        subject       INTEGER NOT NULL REFERENCES l3_nodes(block_id),
        predicate     TEXT    NOT NULL,
        object        INTEGER NOT NULL REFERENCES l3_nodes(block_id),
        valid_from    INTEGER NOT NULL,
        created_at    INTEGER NOT NULL,
        origin        TEXT    NOT NULL CHECK (origin IN ('distill', 'person')),
        version       TEXT    NOT NULL,
        superseded_by INTEGER REFERENCES l3_facts(id),
        superseded_at INTEGER,
        hidden_at     INTEGER,
        hidden_by     TEXT
      );
      CREATE INDEX l3_facts_sp ON l3_facts(subject, predicate);
      CREATE INDEX l3_facts_object ON l3_facts(object);
      CREATE TRIGGER l3_facts_no_delete BEFORE DELETE ON l3_facts
        BEGIN SELECT RAISE(ABORT, 'L3 facts are never deleted: DELETE refused'); END;
      CREATE TRIGGER l3_facts_marks_only BEFORE UPDATE ON l3_facts
        WHEN NEW.subject != OLD.subject OR NEW.predicate != OLD.predicate OR NEW.object != OLD.object
          OR NEW.valid_from != OLD.valid_from OR NEW.created_at != OLD.created_at OR NEW.origin != OLD.origin
          OR NEW.version != OLD.version
          OR (OLD.superseded_by IS NOT NULL AND NEW.superseded_by IS NOT OLD.superseded_by)
          OR (OLD.superseded_at IS NOT NULL AND NEW.superseded_at IS NOT OLD.superseded_at)
          OR (OLD.hidden_at IS NOT NULL AND NEW.hidden_at IS NOT OLD.hidden_at)
        BEGIN SELECT RAISE(ABORT, 'L3 facts are only ever marked superseded or hidden: UPDATE refused'); END;
      -- The events a fact was distilled from (a fact said again gains sources, never a copy).
      CREATE TABLE l3_sources (
        fact_id  INTEGER NOT NULL REFERENCES l3_facts(id),
        event_id INTEGER NOT NULL REFERENCES events(id),
        PRIMARY KEY (fact_id, event_id)
      ) WITHOUT ROWID;
      CREATE INDEX l3_sources_event ON l3_sources(event_id);
      -- What was done to facts and by whom (supersede, hide, correct): append-only.
      CREATE TABLE l3_log (
        id      INTEGER PRIMARY KEY AUTOINCREMENT,
        ts      INTEGER NOT NULL,
        fact_id INTEGER NOT NULL REFERENCES l3_facts(id),
        action  TEXT    NOT NULL,
        actor   TEXT    NOT NULL,
        detail  TEXT    NOT NULL DEFAULT ''
      );
      CREATE TRIGGER l3_log_no_update BEFORE UPDATE ON l3_log
        BEGIN SELECT RAISE(ABORT, 'the L3 log is append-only: UPDATE refused'); END;
      CREATE TRIGGER l3_log_no_delete BEFORE DELETE ON l3_log
        BEGIN SELECT RAISE(ABORT, 'the L3 log is append-only: DELETE refused'); END;
    `,
  },
  {
    version: 12,
    name: "image block vectors",
    sql: `
      -- An image block's vector from a CLIP-style model, in its text space (src/memory/dense-index.ts),
      -- with the embedder id like event_vectors. vec is NULL (dim 0) when the image could not be
      -- embedded (undecodable, bytes gone): tried once per model, logged once, never retried.
      CREATE TABLE block_vectors (
        block_id INTEGER NOT NULL REFERENCES blocks(id),
        embedder TEXT    NOT NULL,
        dim      INTEGER NOT NULL,
        vec      BLOB, -- float32, little-endian, L2-normalised; NULL when the image failed
        PRIMARY KEY (block_id, embedder)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 13,
    name: "the untrusted mark follows the text",
    sql: `
      -- Where an event's text came from when that was outside the person's own words, or what
      -- untrusted text was in the model's view when the model wrote it ("fetch_url https://…",
      -- "a2a (anonymous)"); NULL for trusted text. A conversation whose context holds a marked
      -- event has side effects asked about (src/agent/approval.ts).
      ALTER TABLE events ADD COLUMN mark TEXT;
      -- The person cleared the mark: events of the conversation up to this id no longer mark it
      -- (each clearing is also logged as a mark-clear event).
      ALTER TABLE conversations ADD COLUMN mark_cleared INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 14,
    name: "cached input tokens",
    sql: `
      -- Of input_tokens, those the provider read from its prompt cache (billed at a fraction).
      ALTER TABLE turns ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE conversations ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 15,
    name: "tool calls by time",
    sql: `
      -- The person's habits: which tools they called in the last weeks (Store.toolUse), read
      -- without walking the log. Partial: only tool calls, a small share of the events.
      CREATE INDEX events_tool_calls ON events(ts) WHERE kind = 'tool-call';
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export function userVersion(db: Database): number {
  const row = db.query<{ user_version: number }, []>("PRAGMA user_version").get();
  return row?.user_version ?? 0;
}

/** Run the migrations `db` has not run yet, each in its own transaction; refuse a newer schema. */
export function migrate(db: Database, path: string, opts: MigrateOptions = { imageTagChannels: [] }): void {
  const current = userVersion(db);
  if (current > SCHEMA_VERSION) {
    throw new HomedError(
      "schema_too_new",
      `${path} has schema version ${current}, but this homed only knows up to ${SCHEMA_VERSION}: it was written by a newer homed. Run that version, or restore a backup.`,
      { path, schemaVersion: current, supported: SCHEMA_VERSION },
    );
  }
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      m.run?.(db, opts);
      db.exec(`PRAGMA user_version = ${m.version}`);
    })();
  }
}
