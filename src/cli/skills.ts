/**
 * `homed skills list|add|remove|enable|disable|trust|untrust`: Agent Skills of a data dir. They
 * are folders and one state file (DATA/skills.json), so every command works on the data dir
 * itself, with or without a daemon running: a running daemon sees the change on its next turn
 * (it looks again when the folders' mtimes move). `add` shows what it would copy and asks on a
 * terminal; elsewhere it needs -yes.
 */
import { rmSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { HomedError } from "../protocol/errors.ts";
import type { SkillView } from "../protocol/skills.ts";
import { loadConfig } from "../kernel/config/config.ts";
import { ensureDataDir } from "../kernel/data-dir.ts";
import type { DataPaths } from "../kernel/data-paths.ts";
import { type FoundSkill, SkillCatalog } from "../skills/skill-catalog.ts";
import {
  cloneSkillRepo,
  findCandidates,
  installSkill,
  isGitUrl,
  removeSkill,
  setSkill,
  checkNotInstalled,
  type SkillCandidate,
} from "../skills/skill-install.ts";

export const SKILLS_USAGE =
  "skills takes: list | add DIR|GIT-URL | remove NAME | enable NAME | disable NAME | trust NAME | untrust NAME";

const COMMANDS = ["list", "add", "remove", "enable", "disable", "trust", "untrust"];

export interface SkillsFlags {
  json: boolean;
  yes: boolean;
}

export async function runSkills(paths: DataPaths, rest: string[], flags: SkillsFlags): Promise<number> {
  const [command, arg, ...more] = rest;
  const one = (what: string) => {
    if (!arg || more.length) throw new HomedError("usage", `skills ${command} takes one ${what}`);
    return arg;
  };
  if (!command || !COMMANDS.includes(command)) throw new HomedError("usage", SKILLS_USAGE);
  // Every command but list writes into the data dir: root is refused on another user's (data-dir.ts).
  if (command !== "list") ensureDataDir(paths);
  const config = loadConfig({ file: paths.config, env: process.env });
  const catalog = new SkillCatalog({ dataDir: paths.dir, paths: () => config.skills.paths });
  switch (command) {
    case "list": {
      if (arg) throw new HomedError("usage", "skills list takes no argument");
      const list = catalog.list().map(view);
      process.stdout.write(flags.json ? `${JSON.stringify(list, null, 2)}\n` : `${formatSkills(list, paths.dir)}\n`);
      const problem = catalog.state.read().problem;
      if (problem)
        process.stderr.write(`homed: ${problem}; skills of DATA/skills count as untrusted until it is fixed\n`);
      return 0;
    }
    case "add":
      return await add(catalog, one("folder or git URL"), flags);
    case "remove": {
      const dir = removeSkill(catalog, one("skill name"));
      process.stdout.write(`removed ${dir}\n`);
      return 0;
    }
    case "enable":
    case "disable": {
      const s = setSkill(catalog, one("skill name"), { enabled: command === "enable" });
      process.stdout.write(`${s.name}: ${s.enabled ? "enabled" : "disabled"}\n`);
      return 0;
    }
    case "trust":
    case "untrust": {
      const s = setSkill(catalog, one("skill name"), { trusted: command === "trust" });
      process.stdout.write(
        `${s.name}: ${s.trusted ? "trusted: its text no longer marks the conversation" : "untrusted: its text marks the conversation as untrusted"}\n`,
      );
      return 0;
    }
    default:
      throw new HomedError("usage", SKILLS_USAGE);
  }
}

function view({ body: _body, ...s }: FoundSkill): SkillView {
  return s;
}

async function add(catalog: SkillCatalog, source: string, flags: SkillsFlags): Promise<number> {
  let root = source;
  let cleanup: string | null = null;
  let isDir = false;
  try {
    isDir = statSync(source).isDirectory();
  } catch {}
  if (!isDir) {
    if (!isGitUrl(source)) throw new HomedError("not_found", `${source} is neither a folder nor a git URL`);
    process.stderr.write(`homed: cloning ${source}\n`);
    const clone = await cloneSkillRepo(source);
    root = clone.dir;
    cleanup = clone.cleanup;
  }
  try {
    const found = findCandidates(root);
    for (const b of found.bad) process.stderr.write(`homed: not a valid skill: ${b.dir}: ${b.problem}\n`);
    if (found.ok.length === 0)
      throw new HomedError("not_found", `no valid skill (a folder with a SKILL.md) in ${source}`, { source });
    for (const c of found.ok) checkNotInstalled(catalog, c);
    process.stdout.write(describe(found.ok, catalog.ownRoot, source));
    if (!flags.yes) {
      if (!process.stdin.isTTY)
        throw new HomedError("usage", "not asked on a terminal: pass -yes to add these skills without asking");
      // readline, closed once answered: a stream reader left on a terminal's stdin keeps the process alive.
      const rl = createInterface({ input: process.stdin, output: process.stdout });
      // Ctrl-D (readline aborts the question) is a no, like an empty answer.
      const asked = rl.question("Add? [y/N] ").catch(() => "");
      const answer = (await asked.finally(() => rl.close())).trim().toLowerCase();
      if (answer !== "y" && answer !== "yes") {
        process.stdout.write("nothing added\n");
        return 1;
      }
    }
    for (const c of found.ok) {
      const dest = installSkill(catalog, c, isDir ? resolve(source) : source);
      process.stdout.write(`added ${c.name} to ${dest} (untrusted until: homed skills trust ${c.name})\n`);
    }
    return 0;
  } finally {
    if (cleanup) rmSync(cleanup, { recursive: true, force: true });
  }
}

/** What an add would copy: each skill, its files with their sizes, what is left out. */
function describe(list: readonly SkillCandidate[], into: string, source: string): string {
  const lines = [`From ${source}, into ${into}:`];
  for (const c of list) {
    lines.push(`  ${c.name} — ${oneLine(c.description, 100)}`);
    for (const f of c.files) lines.push(`    ${f.path}  ${sizeOf(f.size)}`);
    for (const s of c.skipped) lines.push(`    left out: ${s}`);
    lines.push(`    ${c.files.length} files, ${sizeOf(c.bytes)}`);
  }
  lines.push("Their instructions will be offered to the model, marked untrusted until you trust them.");
  return `${lines.join("\n")}\n`;
}

const oneLine = (s: string, n: number) => {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};

function sizeOf(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** One line a skill: name, where, trusted, enabled, and why it is skipped. */
export function formatSkills(list: readonly SkillView[], dataDir: string): string {
  if (list.length === 0) return `no skills (put skill folders in ${dataDir}/skills, or homed skills add DIR|GIT-URL)`;
  const where = (s: SkillView) =>
    (s.where === "data" ? "DATA/skills" : s.root) + (s.installedFrom ? ` (from ${s.installedFrom})` : "");
  const yes = (b: boolean) => (b ? "yes" : "no");
  const rows = list.map((s) => [
    s.name,
    where(s),
    yes(s.trusted),
    s.problem ? "-" : yes(s.enabled),
    s.problem ?? oneLine(s.description, 70),
  ]);
  const head = ["NAME", "SOURCE", "TRUSTED", "ENABLED", "PROBLEM / DESCRIPTION"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const fmt = (r: string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] as number)))
      .join("  ")
      .trimEnd();
  const valid = list.filter((s) => !s.problem).length;
  return [fmt(head), ...rows.map(fmt), `${valid} valid, ${list.length - valid} invalid`].join("\n");
}
