/**
 * /api/skills: the Skills page — the Agent Skills found (where, trusted, enabled, why one is
 * skipped), one skill's SKILL.md, enable/disable/trust, and removing a skill of DATA/skills.
 * Everything goes through the kernel's skills/* methods (src/kernel/methods/skills.ts), which
 * change the same DATA/skills.json as `homed skills`.
 */
import * as v from "valibot";
import type { Hono } from "hono";
import { SkillMethod, SkillReadResult, SkillRemoveResult, SkillView } from "../../src/protocol/skills.ts";
import type { Plugin } from "../sdk/index.ts";
import { readJson } from "./http-util.ts";

/** A skill's name, or a malformed skill's folder name: what the list shows. */
const Name = v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]{1,200}$/, "a skill name is letters, digits, . _ -"));
const SetBody = v.strictObject({ enabled: v.optional(v.boolean()), trusted: v.optional(v.boolean()) });

export function skillRoutes(api: Hono, plugin: Plugin): void {
  api.get("/skills", async (c) => c.json(await plugin.call(SkillMethod.List, {}, v.array(SkillView))));
  api.get("/skills/:name", async (c) => {
    const name = v.parse(Name, c.req.param("name"));
    return c.json(await plugin.call(SkillMethod.Read, { name }, SkillReadResult));
  });
  api.post("/skills/:name", async (c) => {
    const name = v.parse(Name, c.req.param("name"));
    const change = await readJson(c, SetBody);
    return c.json(await plugin.call(SkillMethod.Set, { name, ...change }, SkillView));
  });
  api.post("/skills/:name/remove", async (c) => {
    const name = v.parse(Name, c.req.param("name"));
    return c.json(await plugin.call(SkillMethod.Remove, { name }, SkillRemoveResult));
  });
}
