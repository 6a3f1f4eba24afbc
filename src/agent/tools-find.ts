/**
 * `tools_find`: the model asks for a tool it was not offered. A turn is offered a few tools, not
 * all of them (src/agent/tool-offer.ts); `{query}` ranks every tool the turn may use by the same
 * index that chose those (src/memory/tool-index.ts) and answers with the best ones' names and
 * descriptions. Those are offered, with their full specs, on every later model call of the turn.
 * Risk class `read`: it reads the tool registry and changes nothing. Its results describe tools,
 * not the person's world, so they are not indexed for memory.
 */
import * as v from "valibot";
import { kernelTool } from "./kernel-tool.ts";
import type { RunToolResult, ToolDefinition } from "../protocol/agent.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import type { LocalTool, LocalToolContext } from "./tools.ts";
import { SKILL, SKILL_OFFER_PREFIX } from "./skill-tools.ts";

export const TOOLS_FIND = "tools_find";

/** Tools a call returns unless it asks for another number: enough for a task and its neighbours. */
const DEFAULT_K = 5;
/** A description in a result is cut here: the full one comes with the spec on the next call. */
const DESCRIPTION_CHARS = 300;

const ToolsFindArgs = v.strictObject({
  query: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(300),
    v.description('What you want to do, in a few words ("screenshot of a web page", "add a calendar event").'),
  ),
  k: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10), v.description("Tools to return."))),
});

export const TOOLS_FIND_TOOL: ToolDefinition = kernelTool({
  name: TOOLS_FIND,
  description:
    "Find a tool you were not offered: each turn offers only the tools it seems to need, and more exist (web, browser, files, notes, calendar, schedule, shell, media, music, feeds...). " +
    "Returns the best matching tools' names and descriptions; from your next step on you can call them.",
  args: ToolsFindArgs,
  risk: "read",
  own: "the daemon's list of the tools it has",
  core: true,
});

export interface ToolsFindDeps {
  /** Tools matching `query` best first, at most `k`, among `among` when given (the turn's narrowed set). */
  rank(query: string, k: number, among: ReadonlySet<string> | null): string[];
  /** A registered tool's description, or undefined. */
  describe(name: string): string | undefined;
  /** Every tool's name (what is listed when nothing matches). */
  names(): string[];
  /** Usable Agent Skills matching `query` best first, at most `k` (absent: no skills). */
  rankSkills?(query: string, k: number, among: ReadonlySet<string> | null): string[];
  /** A usable skill's description as the model may read it (describedSkill), or undefined. */
  describeSkill?(name: string): string | undefined;
}

/** Skills a call returns besides the tools, at most. */
const SKILLS_K = 3;

const fail = (content: string): RunToolResult => ({ content: `error: ${content}`, isError: true });
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
const cut = (text: string, n: number) => (text.length > n ? `${text.slice(0, n)}…` : text);

export function toolsFindTool(d: ToolsFindDeps): LocalTool {
  return {
    remember: false,
    run(raw: unknown, ctx: LocalToolContext): RunToolResult {
      const p = v.safeParse(ToolsFindArgs, raw);
      if (!p.success) return fail(`invalid arguments for ${TOOLS_FIND}: ${describeIssues(p.issues)}`);
      const { query, k } = p.output;
      const found = d.rank(query, k ?? DEFAULT_K, ctx.allowed).filter((n) => n !== TOOLS_FIND);
      // Skills are found by the same words; they ride along in `skill`'s description from the next step on.
      const skills =
        !ctx.allowed || ctx.allowed.has(SKILL) ? (d.rankSkills?.(query, SKILLS_K, ctx.skills ?? null) ?? []) : [];
      if (skills.length) ctx.offer?.([SKILL, ...skills.map((n) => `${SKILL_OFFER_PREFIX}${n}`)]);
      const skillLines = skills.length
        ? `\n${skills.length} skills match; load one with ${SKILL} {"name": ...}:\n${skills
            .map((n) => `- ${n}: ${cut(oneLine(d.describeSkill?.(n) ?? ""), DESCRIPTION_CHARS)}`)
            .join("\n")}`
        : "";
      if (found.length === 0 && skills.length)
        return { content: `No tool matches "${query}".${skillLines}`, isError: false };
      if (found.length === 0) {
        const all = d.names().filter((n) => n !== TOOLS_FIND && (!ctx.allowed || ctx.allowed.has(n)));
        return {
          content: `No tool matches "${query}". The tools you may use: ${all.join(", ") || "none"}.`,
          isError: false,
        };
      }
      ctx.offer?.(found);
      const lines = found.map((n) => `- ${n}: ${cut(oneLine(d.describe(n) ?? ""), DESCRIPTION_CHARS)}`);
      return {
        content: `${found.length} tools match "${query}", best first; you can call them from your next step:\n${lines.join("\n")}${skillLines}`,
        isError: false,
      };
    },
  };
}
