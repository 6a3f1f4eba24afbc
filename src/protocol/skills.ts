/**
 * Agent Skills as the kernel serves them to built-in plugins (the web UI's Skills page) and as
 * `homed skills list -json` prints them: `skills/list`, `skills/read` (one skill's SKILL.md),
 * `skills/set` (enable, disable, trust), `skills/remove` (a skill of DATA/skills). docs/skills.md
 * says what a skill is and where homed finds them.
 */
import * as v from "valibot";

export const SkillMethod = {
  List: "skills/list",
  Read: "skills/read",
  Set: "skills/set",
  Remove: "skills/remove",
  /** The usable skills' folders, for the shell and code sandbox to show read-only at /skills/<name>. */
  Folders: "skills/folders",
} as const;

/**
 * A skill's name as the public format has it: 1-64 lowercase letters, digits and single hyphens,
 * neither first nor last. It is also the name of its folder.
 */
export const SKILL_NAME_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_SKILL_NAME = 64;
export const MAX_SKILL_DESCRIPTION = 1024;

export const SkillName = v.pipe(
  v.string(),
  v.maxLength(MAX_SKILL_NAME, `a skill name is at most ${MAX_SKILL_NAME} characters`),
  v.regex(SKILL_NAME_RE, "a skill name is lowercase letters, digits and single hyphens"),
);

/** One skill folder found, valid or not. */
export const SkillView = v.object({
  /** The front matter's name; a malformed skill's folder name. */
  name: v.string(),
  /** "" when malformed. */
  description: v.string(),
  /** The skill's folder (absolute). */
  dir: v.string(),
  /** "data": DATA/skills; "path": a folder of `[skills] paths`. */
  where: v.picklist(["data", "path"]),
  /** The folder it was found in (DATA/skills or the configured path, `~` expanded). */
  root: v.string(),
  /** What `homed skills add` copied it from; null for a skill the owner put there. */
  installedFrom: v.nullable(v.string()),
  /** Its text is the owner's own: false for an installed skill until the owner trusts it. */
  trusted: v.boolean(),
  enabled: v.boolean(),
  /** Why it is skipped (malformed, or shadowed by a skill of the same name); null when it is usable. */
  problem: v.nullable(v.string()),
});
export type SkillView = v.InferOutput<typeof SkillView>;

export const SkillNameParams = v.strictObject({ name: v.pipe(v.string(), v.minLength(1), v.maxLength(200)) });

export const SkillReadResult = v.object({ skill: SkillView, text: v.string() });
export type SkillReadResult = v.InferOutput<typeof SkillReadResult>;

/** Change what is given; a skill of a configured path cannot be untrusted (it is the owner's). */
export const SkillSetParams = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  enabled: v.optional(v.boolean()),
  trusted: v.optional(v.boolean()),
});
export type SkillSetParams = v.InferOutput<typeof SkillSetParams>;

export const SkillRemoveResult = v.object({ removed: v.string() });

/** Where the shell and code sandbox shows each usable skill's folder, read-only: /skills/<name>. */
export const SANDBOX_SKILLS = "/skills";

export const SkillFolders = v.array(v.object({ name: v.string(), dir: v.string() }));
export type SkillFolders = v.InferOutput<typeof SkillFolders>;
