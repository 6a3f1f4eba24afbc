/**
 * skills/list, skills/read, skills/set, skills/remove and skills/folders (src/protocol/skills.ts)
 * for built-in plugins: the web UI's Skills page, and the shell and code plugins, which show the
 * usable skills' folders read-only in their sandbox. A skill's state lives in DATA/skills.json
 * (src/skills/skill-state.ts), so the page and `homed skills` change the same thing.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HomedError } from "../../protocol/errors.ts";
import { parseParams } from "../../protocol/parse-params.ts";
import {
  SkillMethod,
  SkillNameParams,
  SkillSetParams,
  type SkillFolders,
  type SkillReadResult,
  type SkillView,
} from "../../protocol/skills.ts";
import type { FoundSkill, SkillCatalog } from "../../skills/skill-catalog.ts";
import { removeSkill, setSkill } from "../../skills/skill-install.ts";
import { SKILL_FILE } from "../../skills/skill-md.ts";

const view = ({ body: _body, ...s }: FoundSkill): SkillView => s;

export function skillMethods(
  skills: SkillCatalog,
  builtinOnly: (plugin: string, what: string) => void,
): Record<string, (params: unknown, plugin: string) => unknown> {
  return {
    [SkillMethod.List]: (_params, plugin): SkillView[] => {
      builtinOnly(plugin, "listing skills");
      return skills.list().map(view);
    },
    [SkillMethod.Read]: (params, plugin): SkillReadResult => {
      builtinOnly(plugin, "reading a skill");
      const { name } = parseParams(SkillNameParams, params);
      const s = skills.find(name);
      if (!s) throw new HomedError("not_found", `there is no skill ${name}`, { name });
      let text: string;
      try {
        text = readFileSync(join(s.dir, SKILL_FILE), "utf8");
      } catch (err) {
        text = `(${SKILL_FILE} cannot be read: ${(err as Error).message})`;
      }
      return { skill: view(s), text };
    },
    [SkillMethod.Set]: (params, plugin): SkillView => {
      builtinOnly(plugin, "changing a skill");
      const p = parseParams(SkillSetParams, params);
      return view(setSkill(skills, p.name, { enabled: p.enabled, trusted: p.trusted }));
    },
    [SkillMethod.Remove]: (params, plugin) => {
      builtinOnly(plugin, "removing a skill");
      return { removed: removeSkill(skills, parseParams(SkillNameParams, params).name) };
    },
    [SkillMethod.Folders]: (_params, plugin): SkillFolders => {
      builtinOnly(plugin, "listing skill folders");
      return skills.usable().map((s) => ({ name: s.name, dir: s.dir }));
    },
  };
}
