/**
 * The scenes tables (migration 9) as rows: candidates and scenes with their fingerprint,
 * strength, settings and member turns. src/memory/scenes.ts decides; src/store/scene-store.ts
 * reads and writes; this file turns stored rows into these and back. Settings and features are
 * JSON, checked with valibot when read back.
 */
import * as v from "valibot";
import { SceneSettings } from "../protocol/scenes.ts";
import type { Fingerprint } from "./scene-fingerprint.ts";
import { addRange, type SceneRanges } from "./scene-ranges.ts";
import type { SceneRecord, SceneStore } from "../store/scene-store.ts";

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

type Raw = SceneRecord;

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

  constructor(private readonly store: SceneStore) {}

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
    return this.store.comparable(key).map((r) => this.fromRaw(r));
  }

  scenes(): SceneRow[] {
    return this.store.scenes().map((r) => this.fromRaw(r));
  }

  byId(id: number): SceneRow | null {
    const r = this.store.byId(id);
    return r ? this.fromRaw(r) : null;
  }

  byKey(key: string): SceneRow | null {
    const r = this.store.byKey(key);
    return r ? this.fromRaw(r) : null;
  }

  insert(row: Omit<SceneRow, "id">): number {
    const { id, dropped } = this.store.insert(
      {
        status: row.status,
        key: row.key,
        parent_key: row.parentKey,
        features: JSON.stringify({ ...row.features, counts: row.counts }),
        strength: row.strength,
        created_at: row.createdAt,
        last_seen: row.lastSeen,
        settings: JSON.stringify(row.settings),
      },
      MAX_CANDIDATES,
    );
    for (const gone of dropped) this.ranges.delete(gone);
    return id;
  }

  update(row: SceneRow): void {
    const features = JSON.stringify({ ...row.features, counts: row.counts });
    const settings = JSON.stringify(row.settings);
    this.store.update({
      id: row.id,
      status: row.status,
      features,
      strength: row.strength,
      last_seen: row.lastSeen,
      settings,
    });
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
    const added = this.store.addMember(id, m);
    const kept = this.ranges.get(id);
    if (kept && added) addRange(kept, m.conv, m.firstEvent, m.lastEvent);
  }

  /**
   * The events of `id`'s member turns, per conversation (read once, then kept as members join:
   * this process is the one that writes them).
   */
  memberRanges(id: number): SceneRanges {
    let kept = this.ranges.get(id);
    if (!kept) {
      kept = new Map();
      for (const m of this.store.memberEvents(id)) addRange(kept, m.conv, m.first_event, m.last_event);
      this.ranges.set(id, kept);
    }
    return kept;
  }

  /** A scene's newest `limit` member turns, newest first. */
  recentMembers(id: number, limit: number): { turn: string; conv: string; ts: number }[] {
    return this.store.recentMembers(id, limit);
  }

  memberCount(id: number): number {
    return this.store.memberCount(id);
  }

  /** The newest event id of the log (a turn's events are those after it, in its conversation). */
  lastEventId(): number {
    return this.store.lastEventId();
  }
}
