/** /api/scenes: the scenes page's view of recurring situations, and the owner's settings for one. */
import * as v from "valibot";
import type { Hono } from "hono";
import { SceneDetail, SceneMethod, SceneSettings, SceneView } from "../../src/protocol/scenes.ts";
import type { Plugin } from "../sdk/index.ts";
import { readJson } from "./http-util.ts";

const SceneId = v.pipe(
  v.string(),
  v.regex(/^[1-9][0-9]{0,15}$/, "a scene id is a positive integer"),
  v.transform(Number),
);

export function sceneRoutes(api: Hono, plugin: Plugin): void {
  api.get("/scenes", async (c) => c.json(await plugin.call(SceneMethod.List, {}, v.array(SceneView))));
  api.get("/scenes/:id", async (c) => {
    const id = v.parse(SceneId, c.req.param("id"));
    return c.json(await plugin.call(SceneMethod.Get, { id }, SceneDetail));
  });
  api.post("/scenes/:id", async (c) => {
    const id = v.parse(SceneId, c.req.param("id"));
    const settings = await readJson(c, SceneSettings);
    return c.json(await plugin.call(SceneMethod.Set, { id, settings }, SceneView));
  });
}
