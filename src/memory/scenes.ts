/**
 * Scenes: recurring situations — a weekly call, a group chat, a daily routine —
 * found from the turns themselves, with the original's numbers (src/memory/scene-fingerprint.ts).
 *
 * Two entry points side by side. A channel declares a key (`chan:qq/peer:group_1`): that key's
 * scene has only the features the key gives and becomes a scene on its second turn. And every
 * turn is clustered by its full fingerprint: the first occurrence is a candidate, the second
 * occurrence of the same fingerprint makes a scene (minSceneEvidence = 2), a later turn joins the
 * scene it matches best at ≥ 0.5. Turns under a declared key cluster among themselves, over the
 * features the key does not fix, so narrower scenes grow inside a declared one.
 *
 * Each recurrence adds 1 to a scene's strength, which halves every `halfLifeMs` it stays idle
 * (the clock is injected; tests move it). Before a turn runs, `forTurn` says which scenes it is
 * in (similarity ≥ 0.35, tools unknown yet): their memories rank first in recall, and their
 * settings — a persona, the tools allowed — apply to the turn. An untrusted turn's scene
 * memories are only those of its own conversation, as its recall scope is.
 */
import {
  declaredFingerprint,
  type Fingerprint,
  JOIN_THRESHOLD,
  MIN_SCENE_EVIDENCE,
  merge,
  RECALL_THRESHOLD,
  SAME_FINGERPRINT,
  type SceneShape,
  similarity,
  TOPIC_TERMS,
  topicWords,
} from "./scene-fingerprint.ts";
import { type SceneRow, SceneRows, type SceneSettings } from "./scene-rows.ts";
import { inRanges } from "./scene-ranges.ts";
import type { SceneStore } from "../store/scene-store.ts";

export interface SceneTurn {
  conv: string;
  channel: string;
  /** The key the channel declared ("" or undefined: none). */
  scene?: string;
  text: string;
  untrusted: boolean;
}

/** A scene a turn is in, before it runs. */
export interface ActiveScene {
  id: number;
  similarity: number;
}

export interface TurnScenes {
  scenes: ActiveScene[];
  /** Persona texts of the scenes whose settings apply (the declared one, then the best clustered one). */
  persona: string[];
  /** The tools the turn may use (the intersection of the scenes' lists); null: no scene narrows them. */
  tools: ReadonlySet<string> | null;
  /** The Agent Skills the turn may be offered and load (the intersection); null: not narrowed. */
  skills: ReadonlySet<string> | null;
  /** Whether an event of `conv` is a memory of one of the active scenes (how well that scene matches, else 0). */
  memoryOf(id: number, conv: string): number;
}

export interface SceneView {
  id: number;
  /** The declared key; "" for a clustered scene. */
  key: string;
  /** The declared scene a clustered one grew inside ("" when none). */
  parentKey: string;
  channel: string;
  partner: string;
  tools: string[];
  topic: string[];
  hour: number | null;
  /** Strength now, after decay since it last recurred. */
  strength: number;
  members: number;
  createdAt: number;
  lastSeen: number;
  settings: SceneSettings;
}

export interface ScenesOptions {
  /** The configured half-life, read at each use (a reload changes it). */
  halfLifeMs: () => number;
  now?: () => number;
  /** Local hour of a time (tests pin it); default: the daemon's local time. */
  hourOf?: (ms: number) => number;
}

export class Scenes {
  readonly rows: SceneRows;
  private readonly now: () => number;
  private readonly hourOf: (ms: number) => number;

  constructor(
    store: SceneStore,
    /** The words of a text as index terms with their surface forms (the tokenizer memory uses). */
    private readonly words: (text: string) => readonly { term: string; surface: string }[],
    private readonly opts: ScenesOptions,
  ) {
    this.rows = new SceneRows(store);
    this.now = opts.now ?? Date.now;
    this.hourOf = opts.hourOf ?? ((ms) => new Date(ms).getHours());
  }

  /** The fingerprint of a turn: its channel and partner (from the key), tools, top terms, hour. */
  fingerprint(t: Pick<SceneTurn, "channel" | "scene" | "text">, tools: readonly string[], at: number): Fingerprint {
    const key = t.scene ? declaredFingerprint(t.scene) : null;
    const freq = new Map<string, number>();
    const surface = new Map<string, string>();
    for (const w of this.words(t.text)) {
      freq.set(w.term, (freq.get(w.term) ?? 0) + 1);
      if (!surface.has(w.term)) surface.set(w.term, w.surface);
    }
    const topic = [...freq.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOPIC_TERMS)
      .map(([w]) => w);
    return {
      channel: key?.channel || t.channel,
      partner: key?.partner ?? "",
      tools: [...new Set(tools)].sort(),
      topic,
      words: Object.fromEntries(topic.map((w) => [w, surface.get(w) ?? w])),
      hour: this.hourOf(at),
    };
  }

  /** Strength now: halved for every half-life since the scene last recurred. */
  strengthNow(row: Pick<SceneRow, "strength" | "lastSeen">, now = this.now()): number {
    const half = this.opts.halfLifeMs();
    if (half <= 0) return row.strength;
    return row.strength * 0.5 ** (Math.max(0, now - row.lastSeen) / half);
  }

  /** The scenes a turn is in before it runs, with the settings that apply to it. */
  forTurn(t: SceneTurn): TurnScenes {
    const fp = this.fingerprint(t, [], this.now());
    const key = t.scene ?? "";
    const scenes: ActiveScene[] = [];
    const persona: string[] = [];
    let tools: Set<string> | null = null;
    let skills: Set<string> | null = null;
    const narrow = (s: SceneSettings) => {
      if (s.persona) persona.push(s.persona);
      if (s.tools) tools = new Set(tools ? s.tools.filter((x) => tools?.has(x)) : s.tools);
      if (s.skills) skills = new Set(skills ? s.skills.filter((x) => skills?.has(x)) : s.skills);
    };
    let best: { row: SceneRow; sim: number } | null = null;
    for (const row of this.rows.comparable(key)) {
      const declared = row.key !== "";
      // The owner's settings on a declared key apply from its first turn on.
      if (declared) narrow(row.settings);
      if (row.status !== "scene") continue;
      const sim = similarity(fp, row.features, this.shapeOf(row), "pre");
      if (sim >= RECALL_THRESHOLD) scenes.push({ id: row.id, similarity: sim });
      if (!declared && sim >= JOIN_THRESHOLD && (!best || sim > best.sim)) best = { row, sim };
    }
    if (best) narrow(best.row.settings);
    const memories = scenes.map((s) => ({ sim: s.similarity, ranges: this.rows.memberRanges(s.id) }));
    return {
      scenes: scenes.sort((a, b) => b.similarity - a.similarity),
      persona,
      tools,
      skills,
      memoryOf(id, conv) {
        // An untrusted turn's scene memories are its own conversation's, as its recall scope is.
        if (t.untrusted && conv !== t.conv) return 0;
        let s = 0;
        for (const m of memories) if (m.sim > s && inRanges(m.ranges, conv, id)) s = m.sim;
        return s;
      },
    };
  }

  /**
   * A turn ended: it joins or makes scenes. `firstEvent`..`lastEvent` are its events in `conv`.
   * Returns the ids of the scenes it is a member of (candidates not included).
   */
  observe(t: SceneTurn & { turn: string; tools: readonly string[]; firstEvent: number; lastEvent: number }): number[] {
    const now = this.now();
    const fp = this.fingerprint(t, t.tools, now);
    const member = { turn: t.turn, conv: t.conv, ts: now, firstEvent: t.firstEvent, lastEvent: t.lastEvent };
    const joined: { id: number; status: SceneRow["status"] }[] = [];
    const key = t.scene ?? "";
    const pool = this.rows.comparable(key);
    if (key) {
      const row = pool.find((r) => r.key === key);
      if (!row) this.make({ key, parentKey: "", fp: declaredFingerprint(key), counts: {}, now }, member);
      else joined.push(this.recur(row, null, now, member));
    }
    // Clustering by the full fingerprint, among the scenes of the same key (or of none).
    const clustered = pool.filter((r) => r.key === "");
    const shape: SceneShape = key ? "inside" : "free";
    const bestOf = (rows: SceneRow[]) => {
      let best: { row: SceneRow; sim: number } | null = null;
      for (const row of rows) {
        const sim = similarity(fp, row.features, shape);
        if (!best || sim > best.sim) best = { row, sim };
      }
      return best;
    };
    const scene = bestOf(clustered.filter((r) => r.status === "scene"));
    const candidate = bestOf(clustered.filter((r) => r.status === "candidate"));
    if (scene && scene.sim >= JOIN_THRESHOLD) joined.push(this.recur(scene.row, fp, now, member));
    else if (candidate && candidate.sim >= SAME_FINGERPRINT) joined.push(this.recur(candidate.row, fp, now, member));
    else this.make({ key: "", parentKey: key, fp, counts: countsOf(fp.topic), now }, member);
    return joined.filter((j) => j.status === "scene").map((j) => j.id);
  }

  private shapeOf(row: SceneRow): SceneShape {
    return row.key ? "declared" : row.parentKey ? "inside" : "free";
  }

  private make(
    s: { key: string; parentKey: string; fp: Fingerprint; counts: Record<string, number>; now: number },
    member: Parameters<SceneRows["addMember"]>[1],
  ): void {
    const id = this.rows.insert({
      status: "candidate",
      key: s.key,
      parentKey: s.parentKey,
      features: s.fp,
      counts: s.counts,
      strength: 1,
      createdAt: s.now,
      lastSeen: s.now,
      settings: { persona: "", tools: null },
    });
    this.rows.addMember(id, member);
  }

  /**
   * A recurrence: strength (decayed) + 1, a candidate seen MIN_SCENE_EVIDENCE times becomes a
   * scene. Returns the row's id and its status now.
   */
  private recur(
    row: SceneRow,
    fp: Fingerprint | null,
    now: number,
    member: Parameters<SceneRows["addMember"]>[1],
  ): { id: number; status: SceneRow["status"] } {
    const next: SceneRow = { ...row, strength: this.strengthNow(row, now) + 1, lastSeen: now };
    if (fp) {
      const counts = new Map(Object.entries(row.counts));
      next.features = merge(row.features, fp, counts);
      next.counts = Object.fromEntries(counts);
    }
    this.rows.addMember(row.id, member);
    if (row.status === "candidate" && this.rows.memberCount(row.id) >= MIN_SCENE_EVIDENCE) next.status = "scene";
    this.rows.update(next);
    return { id: row.id, status: next.status };
  }

  /** Every scene (not candidates), strongest first. */
  list(): SceneView[] {
    const now = this.now();
    return this.rows
      .scenes()
      .map((r) => this.view(r, now))
      .sort((a, b) => b.strength - a.strength || a.id - b.id);
  }

  /** One scene by id, with its newest member turns; null when there is no such scene. */
  get(id: number): (SceneView & { recent: { turn: string; conv: string; ts: number }[] }) | null {
    const row = this.rows.byId(id);
    if (row?.status !== "scene") return null;
    const recent = this.rows.recentMembers(id, 50);
    return { ...this.view(row, this.now()), recent };
  }

  /**
   * The owner's settings for a scene, by id, or by a declared key (made as a candidate when the
   * key has had no turn yet, so a group's persona can be set before it talks). null: no such id.
   */
  set(target: { id: number } | { key: string }, settings: SceneSettings): SceneView | null {
    let row = "id" in target ? this.rows.byId(target.id) : this.rows.byKey(target.key);
    if (!row && "key" in target) {
      const now = this.now();
      const id = this.rows.insert({
        status: "candidate",
        key: target.key,
        parentKey: "",
        features: declaredFingerprint(target.key),
        counts: {},
        strength: 0,
        createdAt: now,
        lastSeen: now,
        settings,
      });
      row = this.rows.byId(id);
    }
    if (!row) return null;
    const next = { ...row, settings };
    this.rows.update(next);
    return this.view(next, this.now());
  }

  private view(r: SceneRow, now: number): SceneView {
    const { words: _, ...features } = r.features;
    return {
      id: r.id,
      key: r.key,
      parentKey: r.parentKey,
      ...features,
      topic: topicWords(r.features),
      strength: Math.round(this.strengthNow(r, now) * 1000) / 1000,
      members: this.rows.memberCount(r.id),
      createdAt: r.createdAt,
      lastSeen: r.lastSeen,
      settings: r.settings,
    };
  }
}

function countsOf(topic: readonly string[]): Record<string, number> {
  return Object.fromEntries(topic.map((t) => [t, 1]));
}
