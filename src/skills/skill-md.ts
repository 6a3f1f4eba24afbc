/**
 * A SKILL.md as the public Agent Skills format writes it: YAML front matter between `---` lines
 * with `name` and `description`, then Markdown instructions. The front matter is read with Bun's
 * own YAML parser (part of the runtime the binary already carries, no dependency; an alias yields
 * the same object rather than a copy, so a small document cannot expand into a large one) and the
 * two fields are then checked as the format says; other fields (license, allowed-tools, metadata…)
 * are ignored. A malformed file is a reason a person can act on, never a throw.
 */
import { MAX_SKILL_DESCRIPTION, MAX_SKILL_NAME, SKILL_NAME_RE } from "../protocol/skills.ts";

/** The file every skill folder holds. */
export const SKILL_FILE = "SKILL.md";
/**
 * A SKILL.md larger than this is not read: the format asks for a body of a few hundred lines
 * (longer material goes to references/), and the whole body is what `skill` hands the model.
 */
export const MAX_SKILL_MD_BYTES = 256 * 1024;
/** The front matter is a few short fields; more than this is not front matter. */
const MAX_FRONT_MATTER_CHARS = 16 * 1024;

export type ParsedSkill =
  | { ok: true; name: string; description: string; body: string }
  | { ok: false; problem: string };

const bad = (problem: string): ParsedSkill => ({ ok: false, problem });

/**
 * Parse `text` (a SKILL.md) found in the folder named `folder`; null when the folder's name does
 * not count (a skill being installed: it is copied into a folder of its own name).
 */
export function parseSkillMd(text: string, folder: string | null): ParsedSkill {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "---") return bad("SKILL.md does not start with YAML front matter (a line ---)");
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === "---");
  if (end === -1) return bad("SKILL.md's front matter has no closing --- line");
  const yaml = lines.slice(1, end).join("\n");
  if (yaml.length > MAX_FRONT_MATTER_CHARS) return bad(`front matter over ${MAX_FRONT_MATTER_CHARS} characters`);
  let meta: unknown;
  try {
    meta = Bun.YAML.parse(yaml);
  } catch (err) {
    // Many skills in the wild write `description: Do X: then Y` unquoted, which YAML refuses;
    // other agents read them, so a front matter of plain `key: value` lines is read as such.
    meta = plainFields(yaml);
    if (meta === null) return bad(`front matter is not valid YAML: ${firstLine((err as Error).message)}`);
  }
  if (typeof meta !== "object" || meta === null || Array.isArray(meta))
    return bad("front matter is not a mapping of fields");
  const fields = meta as Record<string, unknown>;
  const name = fields.name;
  if (name === undefined || name === null) return bad("front matter has no name");
  if (typeof name !== "string") return bad("name is not text");
  const problem = nameProblem(name);
  if (problem) return bad(problem);
  if (folder !== null && name !== folder) return bad(`name "${name}" differs from its folder's name "${folder}"`);
  const rawDescription = fields.description;
  if (rawDescription === undefined || rawDescription === null) return bad("front matter has no description");
  if (typeof rawDescription !== "string") return bad("description is not text");
  const description = rawDescription.trim();
  if (description.length === 0) return bad("description is empty");
  if (description.length > MAX_SKILL_DESCRIPTION)
    return bad(`description is ${description.length} characters (at most ${MAX_SKILL_DESCRIPTION})`);
  return {
    ok: true,
    name,
    description,
    body: lines
      .slice(end + 1)
      .join("\n")
      .trim(),
  };
}

/** Why `name` is not a skill name the format allows, or null. */
export function nameProblem(name: string): string | null {
  if (name.length === 0) return "name is empty";
  if (name.length > MAX_SKILL_NAME) return `name is ${name.length} characters (at most ${MAX_SKILL_NAME})`;
  if (!SKILL_NAME_RE.test(name))
    return `name "${name}" is not lowercase letters, digits and single hyphens (none first or last)`;
  return null;
}

/**
 * A front matter of top-level `key: value` lines (indented lines continue the value before them,
 * joined by a space, or by a newline after `|`), or null when it is anything else. The value is
 * the rest of the line as written, one pair of surrounding quotes removed.
 */
export function plainFields(yaml: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  let key: string | null = null;
  let literal = false;
  for (const line of yaml.split("\n")) {
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const field = /^([A-Za-z0-9_-]+):(?:\s+(.*))?$/.exec(line);
    if (field) {
      key = field[1] as string;
      const value = (field[2] ?? "").trim();
      literal = value === "|" || value === "|-";
      out[key] = literal || value === ">" || value === ">-" ? "" : unquote(value);
    } else if (key !== null && /^\s/.test(line)) {
      const prev = out[key] as string;
      out[key] = prev ? `${prev}${literal ? "\n" : " "}${line.trim()}` : line.trim();
    } else return null;
  }
  return out;
}

function unquote(v: string): string {
  const q = v[0];
  return (q === '"' || q === "'") && v.length >= 2 && v.endsWith(q) ? v.slice(1, -1) : v;
}

const firstLine = (s: string) => s.split("\n")[0]?.slice(0, 200) ?? "";
