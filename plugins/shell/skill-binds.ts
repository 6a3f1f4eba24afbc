/**
 * The usable Agent Skills' folders, shown read-only in the sandbox at /skills/<name> so a skill's
 * scripts run where its instructions say (src/agent/skill-tools.ts tells the model the path).
 * Asked of the kernel on every run: a skill added, disabled or removed since is seen at once. Only
 * the folders are shown, read-only; the rest of the data dir and the home folder stay absent.
 * A kernel that does not answer (an older one) shows none: the command still runs.
 */
import { SANDBOX_SKILLS, SKILL_NAME_RE, SkillFolders, SkillMethod } from "../../src/protocol/skills.ts";
import type { Plugin } from "../sdk/index.ts";

export { SANDBOX_SKILLS };

export async function skillBinds(plugin: Plugin): Promise<{ host: string; at: string }[]> {
  try {
    const folders = await plugin.call(SkillMethod.Folders, {}, SkillFolders);
    // A name is checked by the kernel's catalog; it is checked again here because it becomes a path.
    return folders
      .filter((f) => SKILL_NAME_RE.test(f.name))
      .map((f) => ({ host: f.dir, at: `${SANDBOX_SKILLS}/${f.name}` }));
  } catch (err) {
    plugin.log.warn("skill folders not shown in the sandbox", { err: (err as Error).message });
    return [];
  }
}
