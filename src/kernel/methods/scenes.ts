/**
 * scenes/list, scenes/get, scenes/set (src/protocol/scenes.ts) for channel plugins. Scenes say
 * who the person talks to, about what and when, and their settings change what turns may do:
 * built-in plugins only (the web UI), as memory search is.
 */
import { HomedError } from "../../protocol/errors.ts";
import { parseParams } from "../../protocol/parse-params.ts";
import {
  SceneGetParams,
  SceneMethod,
  SceneSetParams,
  type SceneDetail,
  type SceneView,
} from "../../protocol/scenes.ts";
import type { KernelServices } from "../kernel-services.ts";

export function sceneMethods(
  k: Pick<KernelServices, "agent">,
  builtinOnly: (plugin: string, what: string) => void,
): Record<string, (params: unknown, plugin: string) => unknown> {
  const scenes = () => {
    const s = k.agent.scenes;
    if (!s) throw new HomedError("unavailable", "scenes are not kept by this daemon");
    return s;
  };
  return {
    [SceneMethod.List]: (_params, plugin): SceneView[] => {
      builtinOnly(plugin, "listing scenes");
      return scenes().list();
    },
    [SceneMethod.Get]: (params, plugin): SceneDetail => {
      builtinOnly(plugin, "reading a scene");
      const { id } = parseParams(SceneGetParams, params);
      const s = scenes().get(id);
      if (!s) throw new HomedError("not_found", `there is no scene ${id}`, { id });
      return s;
    },
    [SceneMethod.Set]: (params, plugin): SceneView => {
      builtinOnly(plugin, "changing a scene's settings");
      const p = parseParams(SceneSetParams, params);
      const target = "id" in p ? { id: p.id } : { key: p.key };
      const s = scenes().set(target, p.settings);
      if (!s) throw new HomedError("not_found", `there is no scene ${"id" in p ? p.id : p.key}`);
      return s;
    },
  };
}
