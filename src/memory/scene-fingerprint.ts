/**
 * The fingerprint of a turn and how alike two are (the original's numbers): channel
 * 1.0, conversation partner 1.0, tools used 0.8, topic 0.4, time of day 0.2. Pure functions, no
 * store: src/memory/scenes.ts keeps the scenes.
 *
 * Three kinds of scene are compared differently:
 * - a declared scene (a channel's key, `chan:qq/peer:group_1`) has only the features its key
 *   gives — channel and partner — and is compared over all five weights, so a turn of that key
 *   matches it at 2.0 / 3.4 ≈ 0.59, never at ~1.0 (it does not absorb the full fingerprint);
 * - a scene grown inside a declared one (same key, `parentKey`) is compared over the features
 *   the key does not fix — tools, topic, time — so narrower scenes can grow inside a group;
 * - a clustered scene of turns no channel declared is compared over all five.
 * Before a turn has run its tools are unknown: `known: "pre"` leaves the tools weight out of both
 * sides of the ratio (recall and settings are chosen then; joining happens after the turn).
 */

export const WEIGHTS = { channel: 1.0, partner: 1.0, tools: 0.8, topic: 0.4, time: 0.2 } as const;
/** A scene is made on the second occurrence of the same fingerprint. */
export const MIN_SCENE_EVIDENCE = 2;
/** A turn joins the scene it matches best at or above this. */
export const JOIN_THRESHOLD = 0.5;
/** A scene's memories are recalled for a turn that matches it at or above this. */
export const RECALL_THRESHOLD = 0.35;
/**
 * Two fingerprints are "the same" (the second occurrence that makes a scene) at or above this.
 * The original compares fingerprints; topic terms of two messages are never exactly equal, so
 * the same tools and a shared topic stand for "the same" here (not one of the original's numbers).
 */
export const SAME_FINGERPRINT = 0.8;
/** Topic terms a fingerprint keeps (a scene keeps the most frequent of its turns'). */
export const TOPIC_TERMS = 8;
/** Topic terms whose counts a scene keeps. */
const COUNTED_TERMS = 64;

export interface Fingerprint {
  channel: string;
  partner: string;
  /** Tool names used, sorted, distinct. */
  tools: string[];
  /** The input's top lexical terms. */
  topic: string[];
  /**
   * A word as the person wrote it for each topic term (index terms are stemmed: "fridai" is how
   * "Friday" is indexed), for people to read; comparisons use the terms.
   */
  words?: Record<string, string>;
  /** Hour of the day, 0–23 (local time); null when unknown. */
  hour: number | null;
}

/** How a scene compares: declared (key features only), inside a declared one, or clustered freely. */
export type SceneShape = "declared" | "inside" | "free";

/** channel and partner of a scene key `chan:<channel>/peer:<who>`; null when it is not one. */
export function parseSceneKey(key: string): { channel: string; partner: string } | null {
  const m = /^chan:([^/]+)\/peer:(.+)$/.exec(key);
  return m ? { channel: m[1] as string, partner: m[2] as string } : null;
}

/** The features a declared key gives, and nothing else. */
export function declaredFingerprint(key: string): Fingerprint {
  const k = parseSceneKey(key);
  return { channel: k?.channel ?? "", partner: k?.partner ?? "", tools: [], topic: [], hour: null };
}

function jaccard(a: readonly string[], b: readonly string[], bothEmpty: number): number {
  if (a.length === 0 && b.length === 0) return bothEmpty;
  const sb = new Set(b);
  let both = 0;
  for (const x of new Set(a)) if (sb.has(x)) both++;
  return both / (new Set(a).size + sb.size - both);
}

/** 1 at the same hour, falling to 0 six hours apart (either way round the clock). */
export function hourSimilarity(a: number | null, b: number | null): number {
  if (a === null || b === null) return 0;
  const d = Math.abs(a - b) % 24;
  return Math.max(0, 1 - Math.min(d, 24 - d) / 6);
}

/**
 * How alike a turn's fingerprint is to a scene's, 0–1. `known: "pre"`: the turn's tools are not
 * known yet (the weight of tools is left out). Using no tools twice counts as the same tools.
 */
export function similarity(
  turn: Fingerprint,
  scene: Fingerprint,
  shape: SceneShape,
  known: "full" | "pre" = "full",
): number {
  const tools = known === "full" ? WEIGHTS.tools : 0;
  const keyPart = WEIGHTS.channel * eq(turn.channel, scene.channel) + WEIGHTS.partner * eq(turn.partner, scene.partner);
  const rest =
    tools * jaccard(turn.tools, scene.tools, 1) +
    WEIGHTS.topic * jaccard(turn.topic, scene.topic, 0) +
    WEIGHTS.time * hourSimilarity(turn.hour, scene.hour);
  const restWeight = tools + WEIGHTS.topic + WEIGHTS.time;
  if (shape === "declared") return keyPart / (WEIGHTS.channel + WEIGHTS.partner + restWeight);
  // Undeclared turns have no partner: a feature neither side knows is left out, not counted as a miss.
  const keyWeight = WEIGHTS.channel + (turn.partner || scene.partner ? WEIGHTS.partner : 0);
  if (shape === "inside") return rest / restWeight;
  return (keyPart + rest) / (keyWeight + restWeight);
}

function eq(a: string, b: string): number {
  return a !== "" && a === b ? 1 : 0;
}

/**
 * A scene's fingerprint after `turn` joined it (`counts`, the scene's topic term counts, is
 * updated): the same channel and partner, the tools of both, its most frequent topic terms, the
 * hour it first happened at.
 */
export function merge(scene: Fingerprint, turn: Fingerprint, counts: Map<string, number>): Fingerprint {
  for (const t of scene.topic) counts.set(t, (counts.get(t) ?? 0) + 0);
  for (const t of turn.topic) counts.set(t, (counts.get(t) ?? 0) + 1);
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  // A busy scene sees thousands of words: only the most frequent are counted on.
  for (const [t] of ranked.slice(COUNTED_TERMS)) counts.delete(t);
  const topic = ranked.slice(0, TOPIC_TERMS).map(([t]) => t);
  const words: Record<string, string> = {};
  for (const t of topic) {
    const w = scene.words?.[t] ?? turn.words?.[t];
    if (w !== undefined) words[t] = w;
  }
  return {
    ...scene,
    tools: [...new Set([...scene.tools, ...turn.tools])].sort(),
    topic,
    words,
    hour: scene.hour ?? turn.hour,
  };
}

/** A fingerprint's topic as people read it: each term as a word it was written as. */
export function topicWords(fp: Pick<Fingerprint, "topic" | "words">): string[] {
  return fp.topic.map((t) => fp.words?.[t] ?? t);
}
