/**
 * `skill` and `skill_file`: the model loads an Agent Skill it was told of (`skill`'s own
 * description names every usable one with what it is for, up to a limit, and tools_find finds
 * the rest; src/agent/tool-offer.ts carries both tools while there is a skill to load) and
 * reads the files beside it. Both are kernel tools (LocalTool, like tools_find) of risk class
 * `read`: they read the skill's folder and change nothing. They pass the same gate as every
 * tool, so approval rules and a scene's tool list apply to them.
 *
 * A skill's scripts are not run here: the body names its folder, and the model runs them with
 * shell_run or code_run, asked about like any other command (the sandbox shows each usable
 * skill's folder read-only at /skills/<name>, plugins/shell/skill-binds.ts).
 *
 * A skill's text is instructions from whoever wrote it. One from the owner's folders is the
 * owner's; one `homed skills add` installed from elsewhere carries the untrusted mark (its
 * result marks the conversation, as a page does) until the owner trusts it.
 */
import * as v from "valibot";
import { kernelTool } from "./kernel-tool.ts";
import { closeSync, openSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import type { RunToolResult, ToolDefinition } from "../protocol/agent.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import { SANDBOX_SKILLS } from "../protocol/skills.ts";
import type { FoundSkill } from "../skills/skill-catalog.ts";
import type { LocalTool, LocalToolContext } from "./tools.ts";

export const SKILL = "skill";
export const SKILL_FILE_TOOL = "skill_file";
/** A skill's files listed with its body, at most; the rest are counted. */
const LISTED_FILES = 60;
/** How deep the listing looks (scripts/, references/, assets/ and one level under them). */
const LIST_DEPTH = 3;

const SkillArgs = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(64), v.description("The skill's name, as listed.")),
});

const SkillFileArgs = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(64), v.description("The skill's name.")),
  path: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(1000),
    v.description('A file inside the skill\'s folder, relative to it ("references/forms.md").'),
  ),
});

/** `skill`'s description without the skills that ride along (turn-steps.ts adds them per offer). */
export const SKILL_TOOL_DESCRIPTION =
  "Load an Agent Skill: instructions, with scripts and references, for a kind of task. " +
  "When a skill below fits the task, load it before you act and follow it. " +
  "Returns its instructions and folder; read its files with skill_file, run its scripts with shell_run or code_run.";

export const SKILL_TOOL: ToolDefinition = kernelTool({
  name: SKILL,
  description: SKILL_TOOL_DESCRIPTION,
  args: SkillArgs,
  risk: "read",
  own: "the owner's skill's instructions; an installed skill the owner has not trusted marks its result",
});

export const SKILL_FILE_TOOL_DEF: ToolDefinition = kernelTool({
  name: SKILL_FILE_TOOL,
  description:
    "Read a file of a skill's folder (a reference, a template, a script's source), relative to the folder: " +
    '{"name": "pdf-forms", "path": "references/fields.md"}. Text files only.',
  args: SkillFileArgs,
  risk: "read",
  own: "a file of the owner's skill; an installed skill the owner has not trusted marks its result",
});

export interface SkillToolDeps {
  /** A usable skill (well-formed, enabled) by name, or undefined. */
  find(name: string): FoundSkill | undefined;
  /** The usable skills' names (what an unknown name is answered with). */
  names(): string[];
  /** The most of a file skill_file returns, in bytes ([tools.files] max_read_kb). */
  maxReadBytes(): number;
  /** Whether shell_run and code_run run unconfined ([tools.sandbox] mode = "none"): then the folder is its own path. */
  unconfined(): boolean;
}

const fail = (content: string): RunToolResult => ({ content: `error: ${content}`, isError: true });

/** Where an installed skill's text came from, for the mark it puts on the conversation; null for the owner's own. */
export function skillMark(s: Pick<FoundSkill, "name" | "trusted" | "installedFrom">): string | null {
  return s.trusted ? null : `skill ${s.name} installed from ${s.installedFrom ?? "elsewhere"}`;
}

function markOf(s: FoundSkill): { mark: string } | Record<string, never> {
  const mark = skillMark(s);
  return mark ? { mark } : {};
}

/** The usable skill `name` the calling turn may load (a scene may narrow them), or the refusal. */
function usableFor(d: SkillToolDeps, name: string, ctx: LocalToolContext): FoundSkill | RunToolResult {
  const only = ctx.skills ?? null;
  const s = d.find(name);
  if (s && (!only || only.has(name))) return s;
  const names = d.names().filter((n) => !only || only.has(n));
  if (s)
    return fail(
      `skill "${name}" is not one this conversation's scene allows; the skills it may use: ${names.join(", ") || "none"}`,
    );
  return fail(`there is no usable skill "${name}"; the skills: ${names.join(", ") || "none"}`);
}

export function skillTool(d: SkillToolDeps): LocalTool {
  return {
    // A skill's body is its author's text, loaded again whenever it is needed: not a memory of the person's.
    remember: false,
    run(raw: unknown, ctx: LocalToolContext): RunToolResult {
      const p = v.safeParse(SkillArgs, raw);
      if (!p.success) return fail(`invalid arguments for ${SKILL}: ${describeIssues(p.issues)}`);
      const s = usableFor(d, p.output.name, ctx);
      if ("isError" in s) return s;
      const files = listFiles(s.dir);
      const inSandbox = d.unconfined() ? s.dir : `${SANDBOX_SKILLS}/${s.name}`;
      const lines = [
        `<skill name="${s.name}">`,
        `Folder: ${s.dir}. Paths in these instructions are relative to it.`,
        `Read its files with ${SKILL_FILE_TOOL} {"name": "${s.name}", "path": "<relative path>"}. In shell_run and code_run the folder is ${inSandbox} (read-only there; write in the working directory), e.g. bash ${inSandbox}/scripts/<script>.`,
        files.listed.length
          ? `Files: ${files.listed.join(", ")}${files.more ? ` and ${files.more} more` : ""}.`
          : "It has no other files.",
        "",
        s.body,
        "</skill>",
      ];
      return { content: lines.join("\n"), isError: false, ...markOf(s) };
    },
  };
}

export function skillFileTool(d: SkillToolDeps): LocalTool {
  return {
    remember: false,
    run(raw: unknown, ctx: LocalToolContext): RunToolResult {
      const p = v.safeParse(SkillFileArgs, raw);
      if (!p.success) return fail(`invalid arguments for ${SKILL_FILE_TOOL}: ${describeIssues(p.issues)}`);
      const s = usableFor(d, p.output.name, ctx);
      if ("isError" in s) return s;
      const path = p.output.path;
      const outside = confined(s.dir, path);
      if (typeof outside === "string") return fail(outside);
      const { real, size } = outside;
      const max = d.maxReadBytes();
      const fd = openSync(real, "r");
      let bytes: Buffer;
      try {
        bytes = Buffer.alloc(Math.min(size, max));
        const n = readSync(fd, bytes, 0, bytes.length, 0);
        bytes = bytes.subarray(0, n);
      } finally {
        closeSync(fd);
      }
      if (bytes.includes(0))
        return fail(`${path} is not a text file; use it from shell_run at ${SANDBOX_SKILLS}/${s.name}/${path}`);
      const cut = size > max ? `\n[cut at ${max} of ${size} bytes]` : "";
      return {
        content: `${s.name}/${path} (${size} bytes):\n${bytes.toString("utf8")}${cut}`,
        isError: false,
        ...markOf(s),
      };
    },
  };
}

/**
 * The real path and size of `path` inside the skill folder `dir`, or why it is refused: only a
 * relative path without `..`, whose real path (symlinks followed) is a regular file inside the
 * folder's real path — a link that leads out of the folder is refused like `../`.
 */
export function confined(dir: string, path: string): { real: string; size: number } | string {
  if (isAbsolute(path) || path.includes("\0")) return `${path}: give a path relative to the skill's folder`;
  if (path.split(/[\\/]/).includes(".."))
    return `${path}: ".." is not allowed; the skill's files are inside its folder`;
  let root: string;
  let real: string;
  try {
    root = realpathSync(dir);
    real = realpathSync(join(dir, path));
  } catch {
    return `${path}: no such file in the skill's folder`;
  }
  const rel = relative(root, real);
  if (rel === "" || rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel))
    return `${path}: leads out of the skill's folder`;
  const st = statSync(real);
  if (!st.isFile()) return `${path}: not a file`;
  return { real, size: st.size };
}

/** The skill's files besides SKILL.md, relative to its folder, with their sizes. */
function listFiles(dir: string): { listed: string[]; more: number } {
  const listed: string[] = [];
  let more = 0;
  const walk = (sub: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(join(dir, sub)).sort();
    } catch {
      return;
    }
    for (const n of names) {
      if (n.startsWith(".") || (sub === "" && n === "SKILL.md")) continue;
      const rel = sub ? `${sub}/${n}` : n;
      let st: ReturnType<typeof statSync>;
      try {
        st = statSync(join(dir, rel));
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (depth < LIST_DEPTH) walk(rel, depth + 1);
      } else if (listed.length < LISTED_FILES) listed.push(`${rel} (${st.size} B)`);
      else more++;
    }
  };
  walk("", 1);
  return { listed, more };
}

/**
 * The most a tool description may hold: OpenAI's API has refused longer ones ("string too long.
 * Expected a string with maximum length 1024"), and proxies in front of it still do. `skill`'s
 * description, with the skills it lists, stays within it.
 */
export const MAX_TOOL_DESCRIPTION = 1024;
/** A listed skill's description is never cut shorter than this; fewer skills are listed instead. */
const MIN_LISTED_CHARS = 60;

/**
 * `skill`'s description with the skills that ride along, in name order (the same set gives the
 * same text), within MAX_TOOL_DESCRIPTION: each description cut to an equal share of the room,
 * and when even that does not fit them all, the rest counted for tools_find to find.
 */
/**
 * What the model reads of a skill before loading it: its description when it is the owner's; for
 * one installed from elsewhere that the owner has not trusted, a line that says so. Its author's
 * description stays out of every request (it could hold instructions) until the skill is loaded,
 * and loading it marks the conversation. Which skills are offered still follows their
 * descriptions: ranking reads them, the model does not.
 */
export function describedSkill(s: Pick<FoundSkill, "description" | "trusted">): string {
  return s.trusted ? s.description : UNTRUSTED_SKILL_LINE;
}

/** How an untrusted skill is described to the model. */
export const UNTRUSTED_SKILL_LINE =
  "(installed from elsewhere, not trusted by the owner: its own description is shown when it is loaded, and loading it marks the conversation)";

export function skillToolDescription(skills: readonly Pick<FoundSkill, "name" | "description" | "trusted">[]): string {
  if (skills.length === 0)
    return `${SKILL_TOOL_DESCRIPTION} No skill is listed for this conversation now; tools_find finds skills too.`;
  const head = `${SKILL_TOOL_DESCRIPTION}\nSkills:`;
  const sorted = [...skills].sort((a, b) => a.name.localeCompare(b.name));
  const more = (n: number) => `\n- and ${n} more (tools_find finds them)`;
  const room = MAX_TOOL_DESCRIPTION - head.length - more(sorted.length).length;
  const names = sorted.reduce((n, s) => n + s.name.length + 5, 0);
  const share = Math.max(MIN_LISTED_CHARS, Math.floor((room - names) / sorted.length));
  const cut = (t: string) => {
    const one = t.replace(/\s+/g, " ").trim();
    return one.length > share ? `${one.slice(0, share - 1)}…` : one;
  };
  let text = head;
  for (const [i, s] of sorted.entries()) {
    const line = `\n- ${s.name}: ${cut(describedSkill(s))}`;
    const left = sorted.length - i - 1;
    if (text.length + line.length + (left ? more(left).length : 0) > MAX_TOOL_DESCRIPTION)
      return text + more(sorted.length - i);
    text += line;
  }
  return text;
}
