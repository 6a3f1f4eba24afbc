/**
 * The scenes tables (migration 9) as rows: candidates and scenes with their fingerprint,
 * strength, settings and member turns. src/memory/scenes.ts decides; this file only reads and
 * writes. Settings and features are JSON, checked with valibot when read back.
 */
import type { Database } from "bun:sqlite";
import * as v from "valibot";
import { SceneSettings } from "../protocol/scenes.ts";
import type { Fingerprint } from "./scene-fingerprint.ts";
import { addRange, type SceneRanges } from "./scene-ranges.ts";

export { SceneSettings };

const Features = v.object({
  channel: v.string(),
  partner: v.string(),
  tools: v.array(v.string()),
  topic: v.array(v.string()),
  hour: v.nullable(v.number()),
  /** How often each topic term came up among the scene's turns. */
  counts: v.optional(v.record(v.string(), v.number()), {}),
  /** A topic term's word as written (rows from before it was kept have none). */
  words: v.optional(v.record(v.string(), v.string()), {}),
});

export interface SceneRow {
  id: number;
  status: "candidate" | "scene";
  key: string;
  parentKey: string;
  features: Fingerprint;
  counts: Record<string, number>;
  /** Strength as of lastSeen (it decays from then). */
  strength: number;
  createdAt: number;
  lastSeen: number;
  settings: SceneSettings;
}

interface Raw {
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

function parseJson<T>(schema: v.GenericSchema<unknown, T>, text: string, fallback: T): T {
  try {
    const r = v.safeParse(schema, JSON.parse(text));
    return r.success ? r.output : fallback;
  } catch {
    return fallback;
  }
}

/** The JSON columns of a row, parsed and checked. */
function parsedColumns(r: Raw): Pick<SceneRow, "features" | "counts" | "settings"> {
  const f = parseJson(Features, r.features, {
    channel: "",
    partner: "",
    tools: [],
    topic: [],
    hour: null,
    counts: {},
    words: {},
  });
  const { counts, ...features } = f;
  return {
    features,
    counts: counts ?? {},
    settings: parseJson(SceneSettings, r.settings, { persona: "", tools: null }),
  };
}

/** Candidates kept at most: older one-offs are dropped (they never recurred). */
const MAX_CANDIDATES = 2000;

export class SceneRows {
  /** Member turns' events of the scenes asked about (memberRanges). */
  private readonly ranges = new Map<number, SceneRanges>();
  /**
   * Parsed JSON columns by row id, with the text they were parsed from: every turn compares
   * itself with up to MAX_CANDIDATES rows, and parsing each one's features (a term-count record)
   * with valibot every time cost more than the comparison. A row whose text changed is parsed again.
   */
  private readonly parsed = new Map<
    number,
    { features: string; settings: string; cols: ReturnType<typeof parsedColumns> }
  >();

  constructor(private readonly db: Database) {}

  private fromRaw(r: Raw): SceneRow {
    let p = this.parsed.get(r.id);
    if (!p || p.features !== r.features || p.settings !== r.settings) {
      p = { features: r.features, settings: r.settings, cols: parsedColumns(r) };
      if (this.parsed.size > MAX_CANDIDATES * 2) this.parsed.clear();
      this.parsed.set(r.id, p);
    }
    return {
      id: r.id,
      status: r.status === "scene" ? "scene" : "candidate",
      key: r.key,
      parentKey: r.parent_key,
      ...p.cols,
      strength: r.strength,
      createdAt: r.created_at,
      lastSeen: r.last_seen,
    };
  }

  /** Scenes and candidates a turn under `key` (or none, "") may match. */
  comparable(key: string): SceneRow[] {
    return this.db
      .query<Raw, [string, string]>("SELECT * FROM scenes WHERE key = ? OR (key = '' AND parent_key = ?)")
      .all(key || "\u0000", key)
      .map((r) => this.fromRaw(r));
  }

  scenes(): SceneRow[] {
    return this.db
      .query<Raw, []>("SELECT * FROM scenes WHERE status = 'scene' ORDER BY id")
      .all()
      .map((r) => this.fromRaw(r));
  }

  byId(id: number): SceneRow | null {
    const r = this.db.query<Raw, [number]>("SELECT * FROM scenes WHERE id = ?").get(id);
    return r ? this.fromRaw(r) : null;
  }

  byKey(key: string): SceneRow | null {
    const r = this.db.query<Raw, [string]>("SELECT * FROM scenes WHERE key = ?").get(key);
    return r ? this.fromRaw(r) : null;
  }

  insert(row: Omit<SceneRow, "id">): number {
    const r = this.db
      .query<{ id: number }, [string, string, string, string, number, number, number, string]>(
        `INSERT INTO scenes (status, key, parent_key, features, strength, created_at, last_seen, settings)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      )
      .get(
        row.status,
        row.key,
        row.parentKey,
        JSON.stringify({ ...row.features, counts: row.counts }),
        row.strength,
        row.createdAt,
        row.lastSeen,
        JSON.stringify(row.settings),
      );
    const cut = this.db
      .query<{ id: number }, [number]>(
        "SELECT id FROM scenes WHERE status = 'candidate' AND key = '' ORDER BY id DESC LIMIT 1 OFFSET ?",
      )
      .get(MAX_CANDIDATES);
    if (cut) {
      const old = "SELECT id FROM scenes WHERE status = 'candidate' AND key = '' AND id <= ?";
      for (const gone of this.db.query<{ id: number }, [number]>(old).all(cut.id)) this.ranges.delete(gone.id);
      this.db.query(`DELETE FROM scene_members WHERE scene_id IN (${old})`).run(cut.id);
      this.db.query(`DELETE FROM scenes WHERE id IN (${old})`).run(cut.id);
    }
    return r?.id ?? 0;
  }

  update(row: SceneRow): void {
    const features = JSON.stringify({ ...row.features, counts: row.counts });
    const settings = JSON.stringify(row.settings);
    this.db
      .query("UPDATE scenes SET status = ?, features = ?, strength = ?, last_seen = ?, settings = ? WHERE id = ?")
      .run(row.status, features, row.strength, row.lastSeen, settings, row.id);
    // A turn that joins a scene changes its features: what was written is kept as a read would
    // parse it, so the next turn does not parse it again. Settings rarely change; when they do,
    // the next read parses them.
    const kept = this.parsed.get(row.id);
    if (kept?.settings !== settings) return;
    const { channel, partner, tools, topic, hour, words } = row.features;
    this.parsed.set(row.id, {
      features,
      settings,
      cols: {
        features: { channel, partner, tools, topic, hour, words: words ?? {} },
        counts: row.counts,
        settings: kept.cols.settings,
      },
    });
  }

  addMember(id: number, m: { turn: string; conv: string; ts: number; firstEvent: number; lastEvent: number }): void {
    const r = this.db
      .query(
        "INSERT OR IGNORE INTO scene_members (scene_id, turn, conv, ts, first_event, last_event) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(id, m.turn, m.conv, m.ts, m.firstEvent, m.lastEvent);
    const kept = this.ranges.get(id);
    if (kept && r.changes > 0) addRange(kept, m.conv, m.firstEvent, m.lastEvent);
  }

  /**
   * The events of `id`'s member turns, per conversation (read once, then kept as members join:
   * this process is the one that writes them).
   */
  memberRanges(id: number): SceneRanges {
    let kept = this.ranges.get(id);
    if (!kept) {
      kept = new Map();
      const rows = this.db
        .query<{ conv: string; first_event: number; last_event: number }, [number]>(
          "SELECT conv, first_event, last_event FROM scene_members WHERE scene_id = ? ORDER BY first_event",
        )
        .all(id);
      for (const m of rows) addRange(kept, m.conv, m.first_event, m.last_event);
      this.ranges.set(id, kept);
    }
    return kept;
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
