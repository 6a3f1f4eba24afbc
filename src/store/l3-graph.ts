/**
 * The stable graph, L3: subject–predicate–object facts whose nodes are
 * blocks. An entity node is a text block of its own `l3-entity` event in the log's L3_CONV
 * conversation, whose layer is 3 from the start, so L3 is its one holder; a media node is an
 * image's existing block, held by L3 once its event is distilled. Nothing here is ever deleted
 * or rewritten (triggers, migration 11): a new fact on the same subject and predicate marks the
 * older one superseded (both kept), a person's deletion marks a fact hidden, and each mark is
 * written to `l3_log` with who made it. Scope and forgetting are applied by the reader
 * (src/memory/l3-recall.ts), which gets every fact's sources with their conversation and time.
 */
import type { Database } from "bun:sqlite";
import { HomedError } from "../protocol/errors.ts";
import { insertBlocks } from "./event-blocks.ts";
import type { Store } from "./store.ts";

/** The log conversation entity nodes are appended to (no turn is ever run in it). */
export const L3_CONV = "l3:graph";
/** The most characters of an entity's name or a predicate kept. */
export const MAX_NODE_CHARS = 200;

/** A node by name (an entity, made on first use) or by an existing block (media). */
export type NodeRef = { label: string } | { blockId: number };

export interface NewFact {
  subject: NodeRef;
  predicate: string;
  object: NodeRef;
  /** The events the fact was distilled from ([] for a person's correction). */
  sources: readonly number[];
  /** When it became true (unix ms). */
  validFrom: number;
  origin: "distill" | "person";
  /** The prompt and schema version that made it, or "person". */
  version: string;
}

export interface FactSource {
  eventId: number;
  conv: string;
  ts: number;
  untrusted: boolean;
  /** The source event's untrusted mark (events.mark); null for trusted text. */
  mark: string | null;
}

export interface Fact {
  id: number;
  subject: { id: number; label: string };
  predicate: string;
  object: { id: number; label: string };
  validFrom: number;
  createdAt: number;
  origin: "distill" | "person";
  version: string;
  supersededBy: number | null;
  supersededAt: number | null;
  hiddenAt: number | null;
  hiddenBy: string | null;
  sources: FactSource[];
}

export interface FactLogEntry {
  ts: number;
  factId: number;
  action: string;
  actor: string;
  detail: string;
}

/** A name folded for lookup: lower case, spaces folded, a leading article dropped. */
export function nodeKey(label: string): string {
  return label
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^(the|a|an) /, "")
    .slice(0, MAX_NODE_CHARS);
}

/** A predicate as stored: lower case, words joined by one space. */
export function predicateKey(p: string): string {
  return p
    .toLowerCase()
    .replace(/[_\s]+/g, " ")
    .trim()
    .slice(0, MAX_NODE_CHARS);
}

interface FactRow {
  id: number;
  subject: number;
  s_label: string;
  predicate: string;
  object: number;
  o_label: string;
  valid_from: number;
  created_at: number;
  origin: "distill" | "person";
  version: string;
  superseded_by: number | null;
  superseded_at: number | null;
  hidden_at: number | null;
  hidden_by: string | null;
}

const SELECT = `SELECT f.*, s.label AS s_label, o.label AS o_label FROM l3_facts f
  JOIN l3_nodes s ON s.block_id = f.subject JOIN l3_nodes o ON o.block_id = f.object`;

export class L3Graph {
  private readonly db: Database;
  /** Bumped on every change, so readers can cache what they derived (node names). */
  version = 0;

  constructor(private readonly store: Pick<Store, "db" | "append">) {
    this.db = store.db;
  }

  /** The block of the entity named `label`, made (a text block held by L3) on first use. */
  entity(label: string, now = Date.now()): number {
    const key = nodeKey(label);
    if (!key) throw new HomedError("invalid_params", "an entity needs a name");
    const have = this.db.query<{ block_id: number }, [string]>("SELECT block_id FROM l3_nodes WHERE key = ?").get(key);
    if (have) return have.block_id;
    const name = label.replace(/\s+/g, " ").trim().slice(0, MAX_NODE_CHARS);
    return this.db.transaction(() => {
      const ev = this.store.append({ conv: L3_CONV, kind: "l3-entity", actor: "l3", body: { name }, ts: now });
      this.db.query("UPDATE event_state SET layer = 3, changed_at = ? WHERE event_id = ?").run(now, ev.id);
      const size = new TextEncoder().encode(name).length;
      insertBlocks(this.db, ev.id, [{ kind: "text", sha256: null, mime: "text/plain", size, text: name }]);
      const block = this.db
        .query<{ id: number }, [number]>("SELECT id FROM blocks WHERE event_id = ? AND seq = 0")
        .get(ev.id);
      if (!block) throw new HomedError("store", "entity block not recorded");
      this.db.query("INSERT INTO l3_nodes (block_id, key, label) VALUES (?, ?, ?)").run(block.id, key, name);
      this.version++;
      return block.id;
    })();
  }

  /** A media node: an existing block (an image) as itself; its text names it. */
  media(blockId: number): number {
    const b = this.db
      .query<{ text: string; kind: string }, [number]>("SELECT text, kind FROM blocks WHERE id = ?")
      .get(blockId);
    if (!b) throw new HomedError("not_found", `there is no block ${blockId}`, { blockId });
    this.db
      .query("INSERT OR IGNORE INTO l3_nodes (block_id, key, label) VALUES (?, '', ?)")
      .run(blockId, b.text || `${b.kind} block ${blockId}`);
    return blockId;
  }

  private node(ref: NodeRef, now: number): number {
    return "label" in ref ? this.entity(ref.label, now) : this.media(ref.blockId);
  }

  /**
   * Add a fact. The same subject, predicate and object as a current fact adds its sources to it
   * (no copy). Otherwise the fact is new and, among current facts on the same subject and
   * predicate, the newer (by valid_from) supersedes the older: usually the new one supersedes
   * the old, but a fact distilled late from an older event arrives already superseded.
   */
  add(f: NewFact, now = Date.now()): { id: number; merged: boolean; superseded: number[] } {
    const predicate = predicateKey(f.predicate);
    if (!predicate) throw new HomedError("invalid_params", "a fact needs a predicate");
    return this.db.transaction(() => {
      const subject = this.node(f.subject, now);
      const object = this.node(f.object, now);
      const current = this.db
        .query<{ id: number; object: number; valid_from: number }, [number, string]>(
          `SELECT id, object, valid_from FROM l3_facts
           WHERE subject = ? AND predicate = ? AND superseded_by IS NULL AND hidden_at IS NULL ORDER BY valid_from DESC, id DESC`,
        )
        .all(subject, predicate);
      const same = current.find((c) => c.object === object);
      if (same) {
        this.addSources(same.id, f.sources);
        this.version++;
        return { id: same.id, merged: true, superseded: [] };
      }
      // What only untrusted input said (a group chat) never marks what the person's own
      // conversations said as superseded; recall judges per scope anyway (src/memory/l3-recall.ts).
      const untrustedOnly = this.untrustedOnly(f.sources);
      const rivals = untrustedOnly ? current.filter((c) => !this.trusted(c.id)) : current;
      const row = this.db
        .query<{ id: number }, [number, string, number, number, number, string, string]>(
          `INSERT INTO l3_facts (subject, predicate, object, valid_from, created_at, origin, version)
           VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        )
        .get(subject, predicate, object, f.validFrom, now, f.origin, f.version);
      if (!row) throw new HomedError("store", "fact not inserted");
      this.addSources(row.id, f.sources);
      this.log(row.id, "add", f.origin === "person" ? "person" : "distill", f.version, now);
      const superseded: number[] = [];
      const newer = rivals.find((c) => c.valid_from > f.validFrom);
      if (newer) {
        this.markSuperseded(row.id, newer.id, now);
        superseded.push(row.id);
      } else
        for (const c of rivals) {
          this.markSuperseded(c.id, row.id, now);
          superseded.push(c.id);
        }
      this.version++;
      return { id: row.id, merged: false, superseded };
    })();
  }

  /**
   * A person's correction: a new fact (origin person, valid from now) with the same subject and
   * predicate and the object they gave, superseding `id`.
   */
  correct(id: number, object: string, actor: string, now = Date.now()): { id: number } {
    const old = this.get(id);
    if (!old) throw new HomedError("not_found", `there is no fact ${id}`, { id });
    if (!nodeKey(object)) throw new HomedError("invalid_params", "a correction needs the right value");
    return this.db.transaction(() => {
      const r = this.add(
        {
          subject: { blockId: old.subject.id },
          predicate: old.predicate,
          object: { label: object },
          sources: [],
          validFrom: Math.max(now, old.validFrom + 1),
          origin: "person",
          version: "person",
        },
        now,
      );
      if (old.supersededBy === null && r.id !== id) {
        const still = this.get(id);
        if (still?.supersededBy === null) this.markSuperseded(id, r.id, now);
      }
      this.log(r.id, "correct", actor, `corrects fact ${id}`, now);
      return { id: r.id };
    })();
  }

  /** A person's deletion: the fact is hidden from recall and lists (kept, and logged). */
  hide(id: number, actor: string, reason: string, now = Date.now()): void {
    this.db.transaction(() => {
      const r = this.db
        .query("UPDATE l3_facts SET hidden_at = ?, hidden_by = ? WHERE id = ? AND hidden_at IS NULL")
        .run(now, actor, id);
      if (r.changes === 0) {
        if (!this.get(id)) throw new HomedError("not_found", `there is no fact ${id}`, { id });
        return;
      }
      this.log(id, "hide", actor, reason, now);
      this.version++;
    })();
  }

  get(id: number): Fact | null {
    const r = this.db.query<FactRow, [number]>(`${SELECT} WHERE f.id = ?`).get(id);
    return r ? (this.withSources([r])[0] ?? null) : null;
  }

  /** Every fact on `id`'s subject and predicate (its supersession chain), oldest first. */
  history(id: number): Fact[] {
    const f = this.db
      .query<{ subject: number; predicate: string }, [number]>("SELECT subject, predicate FROM l3_facts WHERE id = ?")
      .get(id);
    if (!f) return [];
    return this.withSources(
      this.db
        .query<FactRow, [number, string]>(
          `${SELECT} WHERE f.subject = ? AND f.predicate = ? ORDER BY f.valid_from, f.id`,
        )
        .all(f.subject, f.predicate),
    );
  }

  /** Facts with a subject or an object among `nodes`, not hidden, newest first. */
  touching(nodes: readonly number[], limit = 200): Fact[] {
    if (nodes.length === 0) return [];
    const ids = JSON.stringify(nodes);
    return this.withSources(
      this.db
        .query<FactRow, [string, string, number]>(
          `${SELECT} WHERE f.hidden_at IS NULL AND (f.subject IN (SELECT value FROM json_each(?)) OR f.object IN (SELECT value FROM json_each(?)))
           ORDER BY f.valid_from DESC, f.id DESC LIMIT ?`,
        )
        .all(ids, ids, limit),
    );
  }

  /**
   * Facts for lists, newest first: those whose subject, predicate or object contains `query`
   * (all when empty); superseded and hidden ones only when asked.
   */
  list(opts: { query?: string; includeSuperseded?: boolean; includeHidden?: boolean; limit?: number } = {}): Fact[] {
    const where = ["1 = 1"];
    if (!opts.includeSuperseded) where.push("f.superseded_by IS NULL");
    if (!opts.includeHidden) where.push("f.hidden_at IS NULL");
    const q = (opts.query ?? "").toLowerCase().trim();
    if (q) where.push("(instr(lower(s.label), ?1) > 0 OR instr(f.predicate, ?1) > 0 OR instr(lower(o.label), ?1) > 0)");
    const sql = `${SELECT} WHERE ${where.join(" AND ")} ORDER BY f.valid_from DESC, f.id DESC LIMIT ${Math.trunc(opts.limit ?? 200)}`;
    const rows = q ? this.db.query<FactRow, [string]>(sql).all(q) : this.db.query<FactRow, []>(sql).all();
    return this.withSources(rows);
  }

  /** Every named node: block id, folded key, label (recall matches input words against them). */
  nodes(): { id: number; key: string; label: string }[] {
    return this.db
      .query<{ block_id: number; key: string; label: string }, []>("SELECT block_id, key, label FROM l3_nodes")
      .all()
      .map((r) => ({ id: r.block_id, key: r.key, label: r.label }));
  }

  /** What was done to a fact, oldest first. */
  logOf(id: number): FactLogEntry[] {
    return this.db
      .query<{ ts: number; fact_id: number; action: string; actor: string; detail: string }, [number]>(
        "SELECT ts, fact_id, action, actor, detail FROM l3_log WHERE fact_id = ? ORDER BY id",
      )
      .all(id)
      .map((r) => ({ ts: r.ts, factId: r.fact_id, action: r.action, actor: r.actor, detail: r.detail }));
  }

  count(): { facts: number; current: number; nodes: number } {
    const r = this.db
      .query<{ facts: number; current: number; nodes: number }, []>(
        `SELECT (SELECT count(*) FROM l3_facts) AS facts,
                (SELECT count(*) FROM l3_facts WHERE superseded_by IS NULL AND hidden_at IS NULL) AS current,
                (SELECT count(*) FROM l3_nodes) AS nodes`,
      )
      .get();
    return r ?? { facts: 0, current: 0, nodes: 0 };
  }

  /** Whether every one of `events` came from untrusted input (false for none: a person's correction). */
  private untrustedOnly(events: readonly number[]): boolean {
    if (events.length === 0) return false;
    const r = this.db
      .query<{ trusted: number }, [string]>(
        "SELECT count(*) AS trusted FROM events WHERE untrusted = 0 AND id IN (SELECT value FROM json_each(?))",
      )
      .get(JSON.stringify(events));
    return (r?.trusted ?? 0) === 0;
  }

  /** Whether a fact has a trusted source or is the person's own. */
  private trusted(fact: number): boolean {
    const r = this.db
      .query<{ ok: number }, [number, number]>(
        `SELECT (SELECT origin = 'person' FROM l3_facts WHERE id = ?) OR EXISTS (SELECT 1 FROM l3_sources s JOIN events e ON e.id = s.event_id
          WHERE s.fact_id = ? AND e.untrusted = 0) AS ok`,
      )
      .get(fact, fact);
    return r?.ok === 1;
  }

  private markSuperseded(old: number, by: number, now: number): void {
    this.db
      .query("UPDATE l3_facts SET superseded_by = ?, superseded_at = ? WHERE id = ? AND superseded_by IS NULL")
      .run(by, now, old);
    this.log(old, "supersede", "l3", `superseded by fact ${by}`, now);
  }

  private addSources(fact: number, events: readonly number[]): void {
    const q = this.db.query("INSERT OR IGNORE INTO l3_sources (fact_id, event_id) VALUES (?, ?)");
    for (const e of events) q.run(fact, e);
  }

  private log(fact: number, action: string, actor: string, detail: string, now: number): void {
    this.db
      .query("INSERT INTO l3_log (ts, fact_id, action, actor, detail) VALUES (?, ?, ?, ?, ?)")
      .run(now, fact, action, actor, detail);
  }

  private withSources(rows: readonly FactRow[]): Fact[] {
    if (rows.length === 0) return [];
    const src = this.db
      .query<
        { fact_id: number; event_id: number; conv: string; ts: number; untrusted: number; mark: string | null },
        [string]
      >(
        `SELECT s.fact_id, s.event_id, e.conv, e.ts, e.untrusted, e.mark FROM l3_sources s JOIN events e ON e.id = s.event_id
         WHERE s.fact_id IN (SELECT value FROM json_each(?)) ORDER BY s.event_id`,
      )
      .all(JSON.stringify(rows.map((r) => r.id)));
    const by = new Map<number, FactSource[]>();
    for (const s of src) {
      const list = by.get(s.fact_id) ?? [];
      list.push({ eventId: s.event_id, conv: s.conv, ts: s.ts, untrusted: s.untrusted === 1, mark: s.mark });
      by.set(s.fact_id, list);
    }
    return rows.map((r) => ({
      id: r.id,
      subject: { id: r.subject, label: r.s_label },
      predicate: r.predicate,
      object: { id: r.object, label: r.o_label },
      validFrom: r.valid_from,
      createdAt: r.created_at,
      origin: r.origin,
      version: r.version,
      supersededBy: r.superseded_by,
      supersededAt: r.superseded_at,
      hiddenAt: r.hidden_at,
      hiddenBy: r.hidden_by,
      sources: by.get(r.id) ?? [],
    }));
  }
}
