/**
 * homed.db: bun:sqlite in WAL mode with synchronous=NORMAL. In WAL mode a committed
 * transaction is in the WAL file before the commit returns, so an event acknowledged to a
 * caller survives a crash of the process (kill -9); power loss may drop the last commits,
 * which the design leaves out of scope: sqlite's full sync on every commit costs every turn.
 */
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, statSync } from "node:fs";
import { eventOf, PLUGIN_RECORDS_CONV_PREFIX, readBodyOf } from "../protocol/event-bodies.ts";
import { HomedError } from "../protocol/errors.ts";
import { UNLISTED_CONV_PREFIX } from "../protocol/channel.ts";
import { migrate, userVersion } from "./migrations.ts";
import { blocksOfEvent, insertBlocks } from "./event-blocks.ts";
import { BlockRecords } from "./block-records.ts";
import { EventTerms } from "./event-terms.ts";
import { EventVectors } from "./event-vectors.ts";
import { SceneStore } from "./scene-store.ts";
import { DistillRows } from "./distill-rows.ts";
import { BlockVectors, type VectorKind } from "./block-vectors.ts";
import type { AppendEvent, ConversationRow, EventRow, StoredEvent } from "./rows.ts";

export type { AppendEvent, ConversationRow, StoredEvent } from "./rows.ts";

export interface StoreOptions {
  busyTimeoutMs?: number;
  /**
   * Channels whose user messages' image tags are believed: their plugins store the pictures
   * themselves and defuse tags a sender typed (manifest `image_tags`). None by default.
   */
  imageTagChannels?: readonly string[];
}

const SELECT_EVENTS =
  "SELECT e.id, e.ts, e.conv, e.kind, e.actor, e.untrusted, e.mark, e.body, s.layer FROM events e LEFT JOIN event_state s ON s.event_id = e.id";

/** A title made from a first message: one line, at most this many characters (no model call). */
export const TITLE_CHARS = 60;

/** The first message's text as a title: whitespace folded, cut to TITLE_CHARS with an ellipsis. */
export function titleFrom(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > TITLE_CHARS ? `${t.slice(0, TITLE_CHARS - 1).trimEnd()}…` : t;
}

const fromRow = (r: EventRow): StoredEvent => ({ ...r, untrusted: r.untrusted === 1, layer: r.layer ?? 1 });

/** The page cache while importing (KiB): SQLite's default is 2,000. */
const BULK_CACHE_KIB = 65_536;

export class Store {
  /**
   * The connection itself, for tests and benchmarks that inspect the file. Code outside
   * src/store asks through the methods and tables below, never SQL (test/boundaries.test.ts).
   */
  readonly db: Database;
  /** forgottenBounds, read once; null after a conversation is forgotten. */
  private bounds: Map<string, number> | null = null;
  private readonly insertEvent;
  private readonly insertState;
  private records: BlockRecords | null = null;
  private terms: EventTerms | null = null;
  private sceneStore: SceneStore | null = null;
  private distill: DistillRows | null = null;

  private constructor(
    readonly path: string,
    db: Database,
    private readonly imageTagChannels: readonly string[],
  ) {
    this.db = db;
    this.insertEvent = db.prepare<{ id: number }, [number, string, string, string, number, string | null, string]>(
      "INSERT INTO events (ts, conv, kind, actor, untrusted, mark, body) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
    );
    this.insertState = db.prepare<unknown, [number, number, number, number | null]>(
      "INSERT INTO event_state (event_id, layer, changed_at, last_access) VALUES (?, ?, ?, ?)",
    );
  }

  /** Open (creating if needed, 0600) and migrate. Refuses a database newer than this binary. */
  static open(path: string, opts: StoreOptions = {}): Store {
    const fresh = !existsSync(path);
    let db: Database;
    try {
      db = new Database(path, { create: true, strict: true });
    } catch (err) {
      throw new HomedError("store", `cannot open ${path}: ${(err as Error).message}`, { path }, { cause: err });
    }
    try {
      if (fresh) chmodSync(path, 0o600);
      db.exec(`PRAGMA busy_timeout = ${Math.trunc(opts.busyTimeoutMs ?? 5000)}`);
      db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA synchronous = NORMAL");
      db.exec("PRAGMA foreign_keys = ON");
      const imageTagChannels = opts.imageTagChannels ?? [];
      migrate(db, path, { imageTagChannels });
      return new Store(path, db, imageTagChannels);
    } catch (err) {
      db.close();
      if (err instanceof HomedError) throw err;
      throw new HomedError("store", `${path}: ${(err as Error).message}`, { path }, { cause: err });
    }
  }

  get schemaVersion(): number {
    return userVersion(this.db);
  }

  /** Events appended since the store was opened (the daemon's metrics: a counter, not a query). */
  get appended(): number {
    return this.appendedCount;
  }
  private appendedCount = 0;

  /**
   * Append one event, its state (layer 1, or `ev.layer`) and its block records in one
   * transaction; returns id, timestamp and the body as stored (what memory indexes, Memory.add).
   */
  append(ev: AppendEvent): { id: number; ts: number; body: string } {
    const ts = ev.ts ?? Date.now();
    const body = JSON.stringify(ev.body ?? null);
    const stored = this.db.transaction(() => {
      const mark = ev.mark ?? (ev.untrusted ? "untrusted input" : null);
      const row = this.insertEvent.get(ts, ev.conv, ev.kind, ev.actor, ev.untrusted ? 1 : 0, mark, body);
      if (!row) throw new HomedError("store", "insert returned no id");
      // Cold from the start is what setLayer(2, ts) made of it: changed and last looked at then.
      if (ev.layer === 2) this.insertState.run(row.id, 2, ts, ts);
      else this.insertState.run(row.id, 1, ts, null);
      insertBlocks(this.db, row.id, blocksOfEvent(ev.kind, body, this.imageTagChannels));
      return { id: row.id, ts, body };
    })();
    this.appendedCount++;
    return stored;
  }

  /**
   * While many events are appended (an import): a larger page cache for this connection, so a
   * million-event database is not read back from the file for every index it updates (a quarter
   * of an import's time at a million events, docs/BENCHMARKS.md); `false` gives the memory back.
   */
  bulk(on: boolean): void {
    if (on) this.db.exec(`PRAGMA cache_size = -${BULK_CACHE_KIB}`);
    else this.db.exec("PRAGMA cache_size = -2000; PRAGMA shrink_memory");
  }

  /**
   * Append a record of `plugin`'s own (records/append): a `plugin-record` event by that plugin in
   * its records conversation, which no turn writes to and memory does not index.
   */
  appendPluginRecord(plugin: string, type: string, data: unknown): { id: number; ts: number } {
    return this.append({
      conv: `${PLUGIN_RECORDS_CONV_PREFIX}${plugin}`,
      actor: plugin,
      ...eventOf("plugin-record", { type, data }),
    });
  }

  /** `plugin`'s records with id > `afterId`, oldest first, at most `limit`; bodies that do not parse are skipped. */
  pluginRecords(
    plugin: string,
    afterId: number,
    limit: number,
  ): { id: number; ts: number; type: string; data: unknown }[] {
    const rows = this.db
      .query<{ id: number; ts: number; body: string }, [string, string, number, number]>(
        "SELECT id, ts, body FROM events WHERE conv = ? AND kind = 'plugin-record' AND actor = ? AND id > ? ORDER BY id LIMIT ?",
      )
      .all(`${PLUGIN_RECORDS_CONV_PREFIX}${plugin}`, plugin, afterId, limit);
    const out: { id: number; ts: number; type: string; data: unknown }[] = [];
    for (const r of rows) {
      const body = readBodyOf("plugin-record", r.body);
      if (body) out.push({ id: r.id, ts: r.ts, type: body.type, data: body.data });
    }
    return out;
  }

  /** Lazy plugins that last said they must keep running (plugin/keep-running): started at boot. */
  keepRunningPlugins(): string[] {
    return this.db
      .query<{ key: string }, []>("SELECT key FROM meta WHERE key LIKE 'keep-running:%' ORDER BY key")
      .all()
      .map((r) => r.key.slice("keep-running:".length));
  }

  /** Remember whether `plugin` must keep running. */
  setKeepRunning(plugin: string, on: boolean): void {
    if (on)
      this.db
        .query("INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT(key) DO NOTHING")
        .run(`keep-running:${plugin}`);
    else this.db.query("DELETE FROM meta WHERE key = ?").run(`keep-running:${plugin}`);
  }

  /** Events of one conversation with id > `afterId`, oldest first, with their layer (incremental readers). */
  conversationEventsAfter(conv: string, afterId: number): StoredEvent[] {
    return this.db
      .query<EventRow, [string, number]>(`${SELECT_EVENTS} WHERE e.conv = ? AND e.id > ? ORDER BY e.id`)
      .all(conv, afterId)
      .map(fromRow);
  }

  /** One event, or null when there is none with that id. */
  event(id: number): StoredEvent | null {
    const r = this.db.query<EventRow, [number]>(`${SELECT_EVENTS} WHERE e.id = ?`).get(id);
    return r ? fromRow(r) : null;
  }

  /** The events of `ids` that exist, oldest first, with their layer (re-reading a turn). */
  eventsByIds(ids: readonly number[]): StoredEvent[] {
    if (ids.length === 0) return [];
    return this.db
      .query<EventRow, [string]>(`${SELECT_EVENTS} WHERE e.id IN (SELECT value FROM json_each(?)) ORDER BY e.id`)
      .all(JSON.stringify(ids))
      .map(fromRow);
  }

  /** Create a conversation unless it exists (messages that come without a turn: an import). */
  ensureConversation(conv: string, channel: string, now = Date.now()): void {
    this.db
      .query("INSERT OR IGNORE INTO conversations (id, channel, created_at, updated_at) VALUES (?, ?, ?, ?)")
      .run(conv, channel, now, now);
  }

  /**
   * The source ids (`ref`) of a conversation's messages that came without a turn (`homed import`,
   * `homed recall`), as the source gave them (string or number). Forgotten events are left out:
   * importing a forgotten conversation again brings it back.
   */
  conversationRefs(conv: string): Set<string | number> {
    const rows = this.db
      .query<{ ref: string | number }, [string, string]>(
        `SELECT ref FROM (SELECT json_extract(body, '$.ref') AS ref FROM events
           WHERE conv = ? AND kind IN ('user-message', 'agent-reply')
             AND id > COALESCE((SELECT forgotten_upto FROM conversations WHERE id = ?), 0))
         WHERE ref IS NOT NULL`,
      )
      .all(conv, conv);
    return new Set(rows.map((r) => r.ref));
  }

  /**
   * Create, or bring up to date, a conversation that past messages are being imported into
   * (before they are appended): it was started when its first message was said (`firstAt`) and
   * last active when its last was (`lastAt`) — the list orders by that, so an old chat sorts
   * among old ones. Its title is set only when it has none (a person's own rename stays), and
   * `exchanges` (the person's messages added) count as its turns, as a chat's do in the list.
   */
  recordImport(
    conv: string,
    channel: string,
    at: { firstAt: number; lastAt: number; title?: string; exchanges: number },
  ): void {
    const title = at.title?.replace(/\s+/g, " ").trim() || null;
    this.db.transaction(() => {
      this.ensureConversation(conv, channel, at.firstAt);
      this.db
        .query(
          `UPDATE conversations SET created_at = min(created_at, ?1), updated_at = max(updated_at, ?2),
             title = COALESCE(title, ?3), turns = turns + ?4 WHERE id = ?5`,
        )
        .run(at.firstAt, at.lastAt, title, at.exchanges, conv);
    })();
  }

  /**
   * Record that a turn started (creating the conversation on its first turn). A scene key is
   * kept from the first turn that declares one.
   */
  beginTurn(turn: string, conv: string, channel: string, now = Date.now(), scene = ""): void {
    this.db.transaction(() => {
      this.ensureConversation(conv, channel, now);
      if (scene) this.db.query("UPDATE conversations SET scene = ? WHERE id = ? AND scene = ''").run(scene, conv);
      this.db.query("INSERT INTO turns (id, conv, started_at) VALUES (?, ?, ?)").run(turn, conv, now);
    })();
  }

  /** Close a turn's accounting and add its tokens to the conversation. */
  finishTurn(
    turn: string,
    t: {
      iterations: number;
      inputTokens: number;
      outputTokens: number;
      cachedInputTokens?: number;
      stopReason: string;
    },
    now = Date.now(),
  ): void {
    const cached = t.cachedInputTokens ?? 0;
    this.db.transaction(() => {
      const row = this.db
        .query<{ conv: string }, [number, number, number, number, number, string, string]>(
          "UPDATE turns SET finished_at = ?, iterations = ?, input_tokens = ?, output_tokens = ?, cached_tokens = ?, stop_reason = ? WHERE id = ? RETURNING conv",
        )
        .get(now, t.iterations, t.inputTokens, t.outputTokens, cached, t.stopReason, turn);
      if (!row) return;
      this.db
        .query(
          "UPDATE conversations SET updated_at = ?, turns = turns + 1, input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, cached_tokens = cached_tokens + ? WHERE id = ?",
        )
        .run(now, t.inputTokens, t.outputTokens, cached, row.conv);
    })();
  }

  conversationUsage(
    conv: string,
  ): { turns: number; inputTokens: number; outputTokens: number; cachedInputTokens: number } | null {
    const row = this.db
      .query<{ turns: number; input_tokens: number; output_tokens: number; cached_tokens: number }, [string]>(
        "SELECT turns, input_tokens, output_tokens, cached_tokens FROM conversations WHERE id = ?",
      )
      .get(conv);
    return row
      ? {
          turns: row.turns,
          inputTokens: row.input_tokens,
          outputTokens: row.output_tokens,
          cachedInputTokens: row.cached_tokens,
        }
      : null;
  }

  /** Tokens of every finished turn, from the conversations' running sums (one row each). */
  totalUsage(): { turns: number; inputTokens: number; outputTokens: number; cachedInputTokens: number } {
    const row = this.db
      .query<{ turns: number; input_tokens: number; output_tokens: number; cached_tokens: number }, []>(
        "SELECT COALESCE(SUM(turns), 0) AS turns, COALESCE(SUM(input_tokens), 0) AS input_tokens, COALESCE(SUM(output_tokens), 0) AS output_tokens, COALESCE(SUM(cached_tokens), 0) AS cached_tokens FROM conversations",
      )
      .get();
    return {
      turns: row?.turns ?? 0,
      inputTokens: row?.input_tokens ?? 0,
      outputTokens: row?.output_tokens ?? 0,
      cachedInputTokens: row?.cached_tokens ?? 0,
    };
  }

  /** Per channel: how many conversations it started and when its latest turn ended (null: none yet). */
  channelActivity(): { channel: string; conversations: number; lastTurnAt: number | null }[] {
    return this.db
      .query<{ channel: string; conversations: number; lastTurnAt: number | null }, []>(
        `SELECT channel, COUNT(*) AS conversations, MAX(CASE WHEN turns > 0 THEN updated_at END) AS lastTurnAt
         FROM conversations GROUP BY channel ORDER BY channel`,
      )
      .all();
  }

  /**
   * Conversations, most recently active first, without one-offs (UNLISTED_CONV_PREFIX) and those
   * forgotten (unless a turn came after): the title the person gave, else the first user
   * message's text cut to TITLE_CHARS.
   */
  listConversations(limit = 200): ConversationRow[] {
    const rows = this.db
      .query<
        {
          id: string;
          channel: string;
          created_at: number;
          updated_at: number;
          turns: number;
          input_tokens: number;
          output_tokens: number;
          cached_tokens: number;
          title: string | null;
          model: string | null;
          scene: string;
          first: string | null;
        },
        [number]
      >(
        // The newest `limit` first, then the first message of those alone: asked of every
        // conversation before the sort, it read the log of each (130 ms at 22k conversations,
        // 10 ms this way; docs/BENCHMARKS.md, make bench-scale).
        `SELECT c.*, (SELECT body FROM events e WHERE e.conv = c.id AND e.kind = 'user-message'
                        AND e.id > COALESCE(c.forgotten_upto, 0) ORDER BY e.id LIMIT 1) AS first
         FROM (SELECT * FROM conversations c
               WHERE c.id NOT LIKE '${UNLISTED_CONV_PREFIX}%'
                 AND (c.forgotten_upto IS NULL OR EXISTS (SELECT 1 FROM events e WHERE e.conv = c.id AND e.id > c.forgotten_upto))
               ORDER BY c.updated_at DESC LIMIT ?) c
         ORDER BY c.updated_at DESC`,
      )
      .all(limit);
    return rows.map((r) => {
      // A first event that is not a user message's body leaves the id as the title.
      // A message of files alone is titled by their names.
      const said = r.first === null ? null : readBodyOf("user-message", r.first);
      const first = said && (said.text || (said.attachments ?? []).map((a) => a.name ?? a.kind).join(", "));
      return {
        id: r.id,
        channel: r.channel,
        createdAt: r.created_at,
        updatedAt: r.updated_at,
        turns: r.turns,
        inputTokens: r.input_tokens,
        outputTokens: r.output_tokens,
        cachedInputTokens: r.cached_tokens,
        title: r.title ?? ((first && titleFrom(first)) || r.id),
        model: r.model,
        scene: r.scene,
      };
    });
  }

  /** Give a conversation a title; an empty one brings back the title from its first message. */
  renameConversation(conv: string, title: string): void {
    const t = title.replace(/\s+/g, " ").trim();
    const r = this.db.query("UPDATE conversations SET title = ? WHERE id = ?").run(t || null, conv);
    if (r.changes === 0) throw new HomedError("not_found", `no conversation ${conv}`, { conv });
  }

  /**
   * Choose the model a conversation runs on in every channel (null: the configured one again).
   * A conversation not started yet is created, so the choice can precede its first message.
   */
  setConversationModel(conv: string, channel: string, model: string | null, now = Date.now()): void {
    this.db.transaction(() => {
      this.ensureConversation(conv, channel, now);
      this.db.query("UPDATE conversations SET model = ? WHERE id = ?").run(model, conv);
    })();
  }

  /** The model chosen for a conversation, or null for the configured one. */
  conversationModel(conv: string): string | null {
    return (
      this.db.query<{ model: string | null }, [string]>("SELECT model FROM conversations WHERE id = ?").get(conv)
        ?.model ?? null
    );
  }

  /**
   * The person cleared the conversation's untrusted mark: its events up to now no longer mark
   * it. Logged as a mark-clear event (who and up to which event) in the same transaction.
   * Returns the event id the mark is cleared up to.
   */
  clearMark(conv: string, by: string, now = Date.now()): number {
    return this.db.transaction(() => {
      if (!this.db.query("SELECT 1 FROM conversations WHERE id = ?").get(conv))
        throw new HomedError("not_found", `there is no conversation ${conv}`, { conv });
      const last = this.db
        .query<{ id: number | null }, [string]>("SELECT max(id) AS id FROM events WHERE conv = ?")
        .get(conv);
      const upto = last?.id ?? 0;
      this.append({ conv, actor: by, ts: now, ...eventOf("mark-clear", { upto, by }) });
      this.db.query("UPDATE conversations SET mark_cleared = ? WHERE id = ?").run(upto, conv);
      return upto;
    })();
  }

  /** The id up to which the person cleared the conversation's mark (0: never). */
  markCleared(conv: string): number {
    return (
      this.db.query<{ upto: number }, [string]>("SELECT mark_cleared AS upto FROM conversations WHERE id = ?").get(conv)
        ?.upto ?? 0
    );
  }

  /**
   * Forget a conversation: its events so far leave the list, searches, recall and its own
   * context. Nothing is deleted — the log stays append-only; this is a state on the conversation.
   * Returns how many events were forgotten.
   */
  forgetConversation(conv: string, now = Date.now()): { events: number } {
    return this.db.transaction(() => {
      const last = this.db
        .query<{ upto: number | null; n: number }, [string]>(
          "SELECT max(id) AS upto, count(*) AS n FROM events WHERE conv = ?",
        )
        .get(conv);
      const r = this.db
        .query("UPDATE conversations SET forgotten_upto = ?, forgotten_at = ? WHERE id = ?")
        .run(last?.upto ?? 0, now, conv);
      if (r.changes === 0) throw new HomedError("not_found", `no conversation ${conv}`, { conv });
      this.bounds = null;
      return { events: last?.n ?? 0 };
    })();
  }

  /**
   * The forgotten events' bound per conversation: an event of `conv` with id <= the bound is
   * forgotten. Read once and kept until a conversation is forgotten (forgetConversation is the
   * only writer): a turn asks two or three times.
   */
  forgottenBounds(): ReadonlyMap<string, number> {
    this.bounds ??= new Map(
      this.db
        .query<{ id: string; upto: number }, []>(
          "SELECT id, forgotten_upto AS upto FROM conversations WHERE forgotten_upto IS NOT NULL",
        )
        .all()
        .map((r) => [r.id, r.upto]),
    );
    return this.bounds;
  }

  /**
   * How often each tool was called from `from` until (not at) `until` (ms), by name: the person's
   * habits, which decide the tools a model call carries with their full schemas
   * (src/agent/tool-offer.ts).
   */
  toolUse(from: number, until: number): Map<string, number> {
    const rows = this.db
      .query<{ name: string | null; n: number }, [number, number]>(
        "SELECT json_extract(body, '$.name') AS name, count(*) AS n FROM events WHERE kind = 'tool-call' AND ts >= ? AND ts < ? GROUP BY name",
      )
      .all(from, until);
    return new Map(rows.flatMap((r) => (typeof r.name === "string" ? [[r.name, r.n] as const] : [])));
  }

  /** Tokens each of `turns` used, by turn id (turns not finished or unknown are absent). */
  turnUsage(
    turns: readonly string[],
  ): Map<string, { inputTokens: number; outputTokens: number; cachedInputTokens: number }> {
    if (turns.length === 0) return new Map();
    const rows = this.db
      .query<{ id: string; input_tokens: number; output_tokens: number; cached_tokens: number }, [string]>(
        "SELECT id, input_tokens, output_tokens, cached_tokens FROM turns WHERE finished_at IS NOT NULL AND id IN (SELECT value FROM json_each(?))",
      )
      .all(JSON.stringify(turns));
    return new Map(
      rows.map((r) => [
        r.id,
        { inputTokens: r.input_tokens, outputTokens: r.output_tokens, cachedInputTokens: r.cached_tokens },
      ]),
    );
  }

  /** The newest `limit` events of a conversation that are not forgotten (nor of a kind in `except`), oldest first. */
  recentConversationEvents(conv: string, limit: number, except: readonly string[] = []): StoredEvent[] {
    return this.db
      .query<Omit<EventRow, "layer">, [string, string, string, number]>(
        `SELECT * FROM (SELECT id, ts, conv, kind, actor, untrusted, mark, body FROM events
           WHERE conv = ? AND id > COALESCE((SELECT forgotten_upto FROM conversations WHERE id = ?), 0)
             AND kind NOT IN (SELECT value FROM json_each(?))
           ORDER BY id DESC LIMIT ?) ORDER BY id`,
      )
      .all(conv, conv, JSON.stringify(except), limit)
      .map((r) => ({ ...r, untrusted: r.untrusted === 1 }));
  }

  /**
   * Run `fn` in one transaction: a batch of appends and what memory derives from them commit
   * together or not at all. A call inside another is a savepoint of it (bun:sqlite).
   */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /**
   * Open a write transaction that stays open across calls until `commit` (`homed recall` batches
   * its index ops between queries this way). Not for use inside `transaction`.
   */
  begin(): void {
    this.db.exec("BEGIN");
  }

  /** Commit the transaction `begin` opened. */
  commit(): void {
    this.db.exec("COMMIT");
  }

  /** Block records by id, event and holder (src/store/block-records.ts), one reader per store. */
  get blockRecords(): BlockRecords {
    this.records ??= new BlockRecords(this.db);
    return this.records;
  }

  /** The lexical index's rows (src/store/event-terms.ts), one per store: its statements are prepared once. */
  get eventTerms(): EventTerms {
    this.terms ??= new EventTerms(this.db);
    return this.terms;
  }

  /** The scenes tables (src/store/scene-store.ts). */
  get scenes(): SceneStore {
    this.sceneStore ??= new SceneStore(this.db);
    return this.sceneStore;
  }

  /** What distillation reads of the log (src/store/distill-rows.ts). */
  get distillRows(): DistillRows {
    this.distill ??= new DistillRows(this.db);
    return this.distill;
  }

  /** `embedder`'s vectors of events' texts (src/store/event-vectors.ts). */
  eventVectors(embedder: string): EventVectors {
    return new EventVectors(this.db, embedder);
  }

  /** `embedder`'s vectors of blocks of `kinds` (src/store/block-vectors.ts). */
  blockVectors(embedder: string, kinds: readonly VectorKind[]): BlockVectors {
    return new BlockVectors(this.db, embedder, kinds);
  }

  /** Count an access to each of `ids` at `now` (a recall that did not move them), in one transaction. */
  touchEvents(ids: readonly number[], now: number): void {
    const q = this.db.query("UPDATE event_state SET accesses = accesses + 1, last_access = ? WHERE event_id = ?");
    this.db.transaction(() => {
      for (const id of ids) q.run(now, id);
    })();
  }

  /** Ids of a conversation's events in a layer, oldest first. */
  layerIds(conv: string, layer: number): number[] {
    return this.db
      .query<{ id: number }, [string, number]>(
        "SELECT e.id FROM events e JOIN event_state s ON s.event_id = e.id WHERE e.conv = ? AND s.layer = ? ORDER BY e.id",
      )
      .all(conv, layer)
      .map((r) => r.id);
  }

  /**
   * Move events to `layer` at `now` in one transaction; events in L3 stay there. A move to L1
   * counts as an access.
   */
  setLayer(ids: readonly number[], layer: number, now: number): void {
    const q = this.db.query(
      "UPDATE event_state SET layer = ?, changed_at = ?, accesses = accesses + ?, last_access = ? WHERE event_id = ? AND layer != 3",
    );
    this.db.transaction(() => {
      for (const id of ids) q.run(layer, now, layer === 1 ? 1 : 0, now, id);
    })();
  }

  /** The channel of each of `convs` that exists, and its title when it has one of its own (given, or an import's). */
  conversationsOf(convs: readonly string[]): Map<string, { channel: string; title: string | null }> {
    const rows = this.db
      .query<{ id: string; channel: string; title: string | null }, [string]>(
        "SELECT id, channel, title FROM conversations WHERE id IN (SELECT value FROM json_each(?))",
      )
      .all(JSON.stringify(convs));
    return new Map(rows.map((r) => [r.id, { channel: r.channel, title: r.title }]));
  }

  eventCount(): number {
    const row = this.db.query<{ n: number }, []>("SELECT count(*) AS n FROM events").get();
    return row?.n ?? 0;
  }

  /** Size of the database plus its WAL, in bytes. */
  sizeBytes(): number {
    let total = 0;
    for (const p of [this.path, `${this.path}-wal`]) {
      if (existsSync(p)) total += statSync(p).size;
    }
    return total;
  }

  close(): void {
    try {
      this.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch {
      // A checkpoint is an optimisation; the WAL is replayed on the next open anyway.
    }
    this.db.close();
  }
}
