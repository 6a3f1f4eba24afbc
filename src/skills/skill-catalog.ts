/**
 * The skills homed can offer: every folder of DATA/skills, then of each `[skills] paths` folder
 * (the places people already keep them: ~/.agents/skills, ~/.claude/skills,
 * ~/.config/opencode/skills; off until the owner names them), each a skill with its SKILL.md.
 * A folder without one, or with one that does not parse or check, is listed with the reason and
 * skipped; so is a second skill of a name already found (DATA/skills first, then the paths in
 * their order). Nothing about a bad skill is fatal.
 *
 * The daemon asks on every turn; the folders are read again only when a stamp of them moved —
 * each root's mtime (a skill added or removed), each skill's SKILL.md mtime and size, the state
 * file's, and the configured paths — a few stat calls per skill (bench: skills.scan_ms).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { SkillView } from "../protocol/skills.ts";
import { MAX_SKILL_MD_BYTES, parseSkillMd, SKILL_FILE } from "./skill-md.ts";
import { SkillStateFile } from "./skill-state.ts";

/** DATA/skills: the owner's own skills and those `homed skills add` installed. */
export const SKILLS_DIR = "skills";
/** Folders looked at in one root: a home folder pointed at by mistake is not walked whole. */
const MAX_FOLDERS_PER_ROOT = 1000;

export interface SkillCatalogOptions {
  dataDir: string;
  /** `[skills] paths`, read at each look (a reload changes them). */
  paths: () => readonly string[];
  /** What `~` stands for; the user's home by default. */
  home?: string;
}

/** A skill found, with the text it was read from when it is usable. */
export interface FoundSkill extends SkillView {
  /** SKILL.md's Markdown after the front matter ("" when malformed). */
  body: string;
}

/** `~` and `~/…` are the home folder; a relative path is relative to the data dir. */
export function expandSkillPath(path: string, home: string, dataDir: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(dataDir, path);
}

export class SkillCatalog {
  readonly state: SkillStateFile;
  readonly ownRoot: string;
  private readonly home: string;
  private cached: { stamp: string; skills: FoundSkill[] } | null = null;
  /** Counts changes of what was found: what is derived from it (the offer's index) is made again when it moves. */
  generation = 0;

  constructor(private readonly o: SkillCatalogOptions) {
    this.state = new SkillStateFile(o.dataDir);
    this.ownRoot = join(resolve(o.dataDir), SKILLS_DIR);
    this.home = o.home ?? homedir();
  }

  /** The folders looked in, DATA/skills first; a path named twice is looked in once. */
  roots(): { root: string; where: "data" | "path" }[] {
    const out: { root: string; where: "data" | "path" }[] = [{ root: this.ownRoot, where: "data" }];
    const seen = new Set([this.ownRoot]);
    for (const p of this.o.paths()) {
      const root = expandSkillPath(p, this.home, this.o.dataDir);
      if (seen.has(root)) continue;
      seen.add(root);
      out.push({ root, where: "path" });
    }
    return out;
  }

  /** Every skill folder found, usable or not, DATA/skills first. */
  list(): FoundSkill[] {
    const roots = this.roots();
    const stamp = this.stampOf(roots, this.cached?.skills ?? []);
    if (this.cached?.stamp === stamp) return this.cached.skills;
    const skills = this.scan(roots);
    // The stamp is taken again over what this scan found (new folders' SKILL.md included).
    this.cached = { stamp: this.stampOf(roots, skills), skills };
    this.generation++;
    return skills;
  }

  /** The skills that can be offered and loaded: well-formed, not shadowed, enabled. */
  usable(): FoundSkill[] {
    return this.list().filter((s) => s.problem === null && s.enabled);
  }

  /** A skill by name: the one that counts (usable or not), else the first listed of that name. */
  find(name: string): FoundSkill | undefined {
    const all = this.list().filter((s) => s.name === name);
    return all.find((s) => s.problem === null) ?? all[0];
  }

  private stampOf(roots: readonly { root: string }[], skills: readonly FoundSkill[]): string {
    const parts = [this.state.stamp()];
    for (const { root } of roots) parts.push(`${root}=${mtimeOf(root)}`);
    for (const s of skills) parts.push(`${s.dir}=${stampOfFile(join(s.dir, SKILL_FILE))}`);
    return parts.join("\n");
  }

  private scan(roots: readonly { root: string; where: "data" | "path" }[]): FoundSkill[] {
    const { state, problem: stateProblem } = this.state.read();
    const disabled = new Set(state.disabled);
    const out: FoundSkill[] = [];
    const taken = new Map<string, string>();
    for (const { root, where } of roots) {
      for (const folder of skillFolders(root)) {
        const dir = join(root, folder);
        const installed = where === "data" ? (state.installed[folder] ?? null) : null;
        // The owner's own folders are trusted; an installed skill is not until the owner says so,
        // and neither is any skill of DATA/skills while the file that says which were installed is unreadable.
        const trusted = where === "path" || (stateProblem === null && (installed === null || installed.trusted));
        const base = {
          dir,
          where,
          root,
          installedFrom: installed?.from ?? null,
          trusted,
        };
        const read = readSkill(dir, folder);
        const name = read.ok ? read.name : folder;
        let problem = read.ok ? null : read.problem;
        const first = taken.get(name);
        if (problem === null && first !== undefined)
          problem = `shadowed by ${first} (a skill of the same name found first)`;
        if (problem === null) taken.set(name, dir);
        out.push({
          ...base,
          name,
          description: read.ok ? read.description : "",
          body: read.ok && problem === null ? read.body : "",
          enabled: !disabled.has(name),
          problem,
        });
      }
    }
    return out;
  }
}

/** The sub-folders of `root` (symlinks to folders too), hidden ones left out, sorted. */
function skillFolders(root: string): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  return names
    .filter((n) => !n.startsWith("."))
    .sort()
    .slice(0, MAX_FOLDERS_PER_ROOT)
    .filter((n) => {
      try {
        return statSync(join(root, n)).isDirectory();
      } catch {
        return false;
      }
    });
}

type ReadSkill = { ok: true; name: string; description: string; body: string } | { ok: false; problem: string };

/** A skill folder's SKILL.md, read and checked. */
export function readSkill(dir: string, folder: string | null): ReadSkill {
  const file = join(dir, SKILL_FILE);
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) return { ok: false, problem: `${SKILL_FILE} is not a file` };
    size = st.size;
  } catch {
    return { ok: false, problem: `no ${SKILL_FILE} in the folder` };
  }
  if (size > MAX_SKILL_MD_BYTES)
    return { ok: false, problem: `${SKILL_FILE} is ${size} bytes (at most ${MAX_SKILL_MD_BYTES})` };
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    return { ok: false, problem: `cannot read ${SKILL_FILE}: ${(err as Error).message}` };
  }
  return parseSkillMd(text, folder);
}

function mtimeOf(path: string): string {
  try {
    return String(statSync(path).mtimeMs);
  } catch {
    return "-";
  }
}

function stampOfFile(path: string): string {
  try {
    const st = statSync(path);
    return `${st.mtimeMs}:${st.size}`;
  } catch {
    return "-";
  }
}
