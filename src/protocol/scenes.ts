/**
 * Scenes as the kernel serves them to built-in plugins (src/memory/scenes.ts):
 * `scenes/list` (every scene, strongest first), `scenes/get` (one, with its newest member turns),
 * `scenes/set` (the owner's settings: a persona, the tools and skills its turns may use — a
 * scene only narrows what the approval policy allows, never widens it).
 */
import * as v from "valibot";
import { SceneKey } from "./channel.ts";
import { SkillName } from "./skills.ts";

export const SceneMethod = {
  List: "scenes/list",
  Get: "scenes/get",
  Set: "scenes/set",
} as const;

const ToolName = v.pipe(v.string(), v.regex(/^[a-zA-Z0-9_-]{1,64}$/, "a tool name is 1-64 letters, digits, _ or -"));

/** What the owner sets on a scene. */
export const SceneSettings = v.strictObject({
  /** Added to the system prompt of the scene's turns ("" for none). */
  persona: v.optional(v.pipe(v.string(), v.maxLength(4000, "a persona is at most 4000 characters")), ""),
  /** The only tools its turns may use (still under the approval policy); null: not narrowed. */
  tools: v.optional(v.nullable(v.pipe(v.array(ToolName), v.maxLength(200))), null),
  /** The only Agent Skills offered to and loadable by its turns; absent or null: not narrowed. */
  skills: v.optional(v.nullable(v.pipe(v.array(SkillName), v.maxLength(200)))),
});
export type SceneSettings = v.InferOutput<typeof SceneSettings>;

const SceneId = v.pipe(v.number(), v.integer(), v.minValue(1));

export const SceneGetParams = v.strictObject({ id: SceneId });

/** By id, or by a declared key (which may have had no turn yet: its settings wait for it). */
export const SceneSetParams = v.union([
  v.strictObject({ id: SceneId, settings: SceneSettings }),
  v.strictObject({ key: SceneKey, settings: SceneSettings }),
]);

export const SceneView = v.object({
  id: v.number(),
  /** The declared key; "" for a scene found by clustering. */
  key: v.string(),
  /** The declared scene a clustered one grew inside ("" when none). */
  parentKey: v.string(),
  channel: v.string(),
  partner: v.string(),
  tools: v.array(v.string()),
  topic: v.array(v.string()),
  /** Hour of the day it happens at (local time), null when unknown (a declared scene). */
  hour: v.nullable(v.number()),
  /** Now, after decay by the configured half-life. */
  strength: v.number(),
  /** Member turns. */
  members: v.number(),
  createdAt: v.number(),
  lastSeen: v.number(),
  settings: SceneSettings,
});
export type SceneView = v.InferOutput<typeof SceneView>;

export const SceneDetail = v.object({
  ...SceneView.entries,
  /** The newest member turns (at most 50). */
  recent: v.array(v.object({ turn: v.string(), conv: v.string(), ts: v.number() })),
});
export type SceneDetail = v.InferOutput<typeof SceneDetail>;
