/**
 * Installing and removing skills of DATA/skills. `homed skills add DIR|GIT-URL` finds the skills
 * a folder (or a shallow git clone) holds — the folder itself when it has a SKILL.md, else each
 * sub-folder with one (and each of its `skills/` folder) — shows what it would copy, and copies
 * each into DATA/skills/<name> under a temporary name renamed at the end, so a daemon looking
 * meanwhile sees the whole skill or none. What is installed is recorded in DATA/skills.json as
 * installed from where, untrusted: its text carries the untrusted mark until the owner trusts it.
 * Links are not copied (a skill's link could point anywhere on this machine), nor `.git`.
 */
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { HomedError } from "../protocol/errors.ts";
import type { SkillCatalog } from "./skill-catalog.ts";
import { readSkill } from "./skill-catalog.ts";
import { SKILL_FILE } from "./skill-md.ts";

/** What one add may copy: a skill is instructions and a few scripts, not a data set. */
export const MAX_INSTALL_FILES = 2000;
export const MAX_INSTALL_BYTES = 50 * 1024 * 1024;
/** A clone that takes longer than this is stopped. */
const CLONE_TIMEOUT_MS = 120_000;

export interface SkillCandidate {
  name: string;
  description: string;
  /** The folder it is copied from. */
  dir: string;
  files: { path: string; size: number }[];
  /** Entries left out, and why (links, special files). */
  skipped: string[];
  bytes: number;
}

export interface FoundCandidates {
  ok: SkillCandidate[];
  /** Folders with a SKILL.md that is not a valid skill, with the reason. */
  bad: { dir: string; problem: string }[];
}

/** Whether `source` names a git repository rather than a folder here. */
export function isGitUrl(source: string): boolean {
  return /^(https?|ssh|git|file):\/\//.test(source) || /^[\w.-]+@[\w.-]+:/.test(source);
}

/**
 * Clone `url` (depth 1) into a new temporary folder; the caller removes `cleanup` when done.
 * The clone is named after the repository, so a repository that is one skill keeps its name.
 */
export async function cloneSkillRepo(url: string): Promise<{ dir: string; cleanup: string }> {
  const git = Bun.which("git");
  if (!git) throw new HomedError("unavailable", "git is not installed (Debian package git); give a folder instead");
  const cleanup = mkdtempSync(join(tmpdir(), "homed-skill-"));
  const name =
    basename(url.replace(/[#?].*$/, "").replace(/\/+$/, ""))
      .replace(/\.git$/, "")
      .replace(/[^A-Za-z0-9._-]/g, "") || "repo";
  const dir = join(cleanup, name);
  const proc = Bun.spawn([git, "clone", "--depth", "1", "--quiet", "--", url, dir], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
    // Never a prompt for a password in the middle of a command: a private repository is a clear error.
    env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
    timeout: CLONE_TIMEOUT_MS,
  });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) {
    rmSync(cleanup, { recursive: true, force: true });
    const why = stderr.trim().split("\n").slice(-1)[0] || `git exited ${code}`;
    throw new HomedError("not_found", `git clone ${url} failed: ${why}`, { source: url });
  }
  return { dir, cleanup };
}

/** The skills `root` holds: itself when it has a SKILL.md, else its sub-folders (and skills/*) that do. */
export function findCandidates(root: string): FoundCandidates {
  const dirs: string[] = [];
  if (existsSync(join(root, SKILL_FILE))) dirs.push(root);
  else
    for (const parent of [root, join(root, "skills")])
      for (const n of subFolders(parent)) if (existsSync(join(parent, n, SKILL_FILE))) dirs.push(join(parent, n));
  const out: FoundCandidates = { ok: [], bad: [] };
  const names = new Set<string>();
  for (const dir of dirs) {
    // The folder it is copied into is named after the skill, so a source folder's own name does not count.
    const read = readSkill(dir, null);
    if (!read.ok) {
      out.bad.push({ dir, problem: read.problem });
      continue;
    }
    if (names.has(read.name)) {
      out.bad.push({ dir, problem: `a second skill named ${read.name}` });
      continue;
    }
    names.add(read.name);
    out.ok.push({ name: read.name, description: read.description, dir, ...filesOf(dir) });
  }
  return out;
}

function subFolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith("."))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** Every regular file under `dir` (not .git, no links), with sizes, within the install caps. */
function filesOf(dir: string): Pick<SkillCandidate, "files" | "skipped" | "bytes"> {
  const files: { path: string; size: number }[] = [];
  const skipped: string[] = [];
  let bytes = 0;
  const walk = (sub: string) => {
    for (const e of readdirSync(join(dir, sub), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const rel = sub ? `${sub}/${e.name}` : e.name;
      if (e.name === ".git") continue;
      if (e.isSymbolicLink()) skipped.push(`${rel} (a link)`);
      else if (e.isDirectory()) walk(rel);
      else if (e.isFile()) {
        const size = lstatSync(join(dir, rel)).size;
        files.push({ path: rel, size });
        bytes += size;
        if (files.length > MAX_INSTALL_FILES)
          throw new HomedError("invalid_params", `${dir} holds more than ${MAX_INSTALL_FILES} files: not a skill`);
        if (bytes > MAX_INSTALL_BYTES)
          throw new HomedError("invalid_params", `${dir} holds more than ${MAX_INSTALL_BYTES >> 20} MiB: not a skill`);
      } else skipped.push(`${rel} (not a file)`);
    }
  };
  walk("");
  return { files, skipped, bytes };
}

/** Refused when a skill of that name is in DATA/skills already (remove it first). */
export function checkNotInstalled(catalog: SkillCatalog, c: SkillCandidate): void {
  const dest = join(catalog.ownRoot, c.name);
  if (existsSync(dest))
    throw new HomedError("conflict", `${dest} exists: remove it first (homed skills remove ${c.name})`, {
      name: c.name,
    });
}

/** Copy `c` into DATA/skills/<name> and record it as installed from `from`, untrusted. */
export function installSkill(catalog: SkillCatalog, c: SkillCandidate, from: string): string {
  checkNotInstalled(catalog, c);
  mkdirSync(catalog.ownRoot, { recursive: true, mode: 0o700 });
  const dest = join(catalog.ownRoot, c.name);
  // A dot folder is not a skill (skipped when listing) until it is renamed whole.
  const tmp = mkdtempSync(join(catalog.ownRoot, `.adding-${c.name}-`));
  try {
    for (const f of c.files) {
      const to = join(tmp, f.path);
      mkdirSync(resolve(to, ".."), { recursive: true, mode: 0o700 });
      copyFileSync(join(c.dir, f.path), to);
    }
    catalog.state.update((s) => {
      s.installed[c.name] = { from, at: new Date().toISOString(), trusted: false };
      s.disabled = s.disabled.filter((n) => n !== c.name);
    });
    renameSync(tmp, dest);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(dest)) catalog.state.update((s) => void delete s.installed[c.name]);
    throw err;
  }
  return dest;
}

/**
 * Remove a skill of DATA/skills (its folder and what skills.json says of it). A skill of a
 * configured path is the owner's own folder elsewhere: homed does not delete it (disable it).
 */
export function removeSkill(catalog: SkillCatalog, name: string): string {
  const all = catalog.list().filter((s) => s.name === name || basename(s.dir) === name);
  const own = all.find((s) => s.where === "data");
  if (!own) {
    const elsewhere = all[0];
    if (elsewhere)
      throw new HomedError(
        "forbidden",
        `${name} is in ${elsewhere.root}, a folder of [skills] paths: homed does not delete your folders; disable it instead (homed skills disable ${name})`,
        { name },
      );
    throw new HomedError("not_found", `there is no skill ${name} in ${catalog.ownRoot}`, { name });
  }
  catalog.state.update((s) => {
    delete s.installed[basename(own.dir)];
    s.disabled = s.disabled.filter((n) => n !== name);
  });
  rmSync(own.dir, { recursive: true, force: true });
  return own.dir;
}

/** Enable, disable, trust or untrust a skill; a skill of a configured path is always trusted. */
export function setSkill(catalog: SkillCatalog, name: string, change: { enabled?: boolean; trusted?: boolean }) {
  const skill = catalog.find(name);
  if (!skill) throw new HomedError("not_found", `there is no skill ${name}`, { name });
  if (change.trusted !== undefined && skill.where === "path")
    throw new HomedError(
      "invalid_params",
      `${name} is in ${skill.root}, one of your own folders ([skills] paths): it is trusted as your own`,
      { name },
    );
  catalog.state.update((s) => {
    if (change.enabled === false) s.disabled.push(skill.name);
    if (change.enabled === true) s.disabled = s.disabled.filter((n) => n !== skill.name);
    if (change.trusted !== undefined) {
      const folder = basename(skill.dir);
      const had = s.installed[folder];
      // A skill the owner put there is trusted already; untrusting it records it as if installed.
      if (had) had.trusted = change.trusted;
      else if (!change.trusted)
        s.installed[folder] = { from: "untrusted by the owner", at: new Date().toISOString(), trusted: false };
    }
  });
  const after = catalog.list().find((s) => s.dir === skill.dir);
  if (!after) throw new HomedError("not_found", `skill ${name} went away`, { name });
  return after;
}
