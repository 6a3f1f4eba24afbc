/**
 * [memory.scenes] of config.toml (src/memory/scenes.ts): how fast a scene that stops
 * recurring fades. Its part of `homed initconfig`'s template parses to exactly the defaults
 * (test/kernel/config.test.ts).
 */
import * as v from "valibot";
import type { Tokenizer } from "../../embed/tokenizer.ts";
import { Scenes } from "../../memory/scenes.ts";
import type { Store } from "../../store/store.ts";

export const ScenesConfig = v.strictObject({
  /** Days after which an idle scene's strength has halved; 0: scenes never fade. */
  half_life_days: v.optional(v.pipe(v.number("must be a number of days"), v.minValue(0), v.maxValue(3650)), 14),
});
export type ScenesConfig = v.InferOutput<typeof ScenesConfig>;

export const DAY_MS = 86_400_000;

export const SCENES_TEMPLATE = `[memory.scenes]
# Recurring situations (a weekly call, a group chat, a daily routine) are found from the turns
# themselves; memories of the one you are in rank first, and a scene can carry a persona and the
# tools its turns may use (set in the web UI's Scenes page). Each recurrence adds 1 to a scene's
# strength; it halves after this many days without one (0: never).
half_life_days = 14
`;

/** The kernel's scenes over its store, fading by `[memory.scenes]` as it is now (a reload changes it in place). */
export function kernelScenes(store: Store, tokenizer: Tokenizer, memory: { scenes: ScenesConfig }): Scenes {
  return new Scenes(store.scenes, (text) => tokenizer.words(text), {
    halfLifeMs: () => memory.scenes.half_life_days * DAY_MS,
  });
}
