/**
 * `tools_find`: the schema of a tool a call does not carry. A model call carries a few tools
 * with their full specs (src/agent/tool-offer.ts) and names every other one at the end of the
 * system prompt (`name: what it does`); `{query}` — words, or a tool's exact name — ranks every
 * tool the turn may use by memory's tool index (src/memory/tool-index.ts) and answers with the
 * best ones' descriptions and argument schemas, so the model calls one by its name on its next
 * step. The tools block itself does not change: what this returns travels in the messages.
 * Risk class `read`: it reads the tool registry and changes nothing. Its results describe tools,
 * not the person's world, so they are not indexed for memory.
 */
import * as v from "valibot";
import { kernelTool } from "./kernel-tool.ts";
import type { RunToolResult, ToolDefinition } from "../protocol/agent.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import type { LocalTool, LocalToolContext } from "./tools.ts";
import { SKILL } from "./skill-tools.ts";

export const TOOLS_FIND = "tools_find";

/** Tools a call returns unless it asks for another number: enough for a task and its neighbours. */
const DEFAULT_K = 5;
/** A description in a result is cut here. */
const DESCRIPTION_CHARS = 600;

const ToolsFindArgs = v.strictObject({
  query: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(300),
    v.description(
      'What you want to do, in a few words ("screenshot of a web page", "add a calendar event"), or a tool\'s name.',
    ),
  ),
  k: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10), v.description("Tools to return."))),
});

export const TOOLS_FIND_TOOL: ToolDefinition = kernelTool({
  name: TOOLS_FIND,
  description:
    "Get the arguments of a tool you were not given: more tools exist than are sent with their schemas, each named in the system prompt with what it does. " +
    "Call tools_find with a tool's name, or with what you want to do; it answers with the best matching tools' descriptions and arguments, and from your next step you call the one you need by its name.",
  args: ToolsFindArgs,
  risk: "read",
  own: "the daemon's list of the tools it has",
  core: true,
});

export interface ToolsFindDeps {
  /** Tools matching `query` best first, at most `k`, among `among` when given (the turn's narrowed set). */
  rank(query: string, k: number, among: ReadonlySet<string> | null): string[];
  /** A registered tool's description and argument schema, or undefined. */
  describe(name: string): { description: string; parameters: Record<string, unknown> } | undefined;
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
      const may = (n: string) => n !== TOOLS_FIND && (!ctx.allowed || ctx.allowed.has(n));
      // A tool asked for by its exact name comes first, whatever the words rank.
      const named = d.names().find((n) => n === query.trim() && may(n));
      const ranked = d.rank(query, k ?? DEFAULT_K, ctx.allowed).filter((n) => may(n) && n !== named);
      const found = [...(named ? [named] : []), ...ranked].slice(0, k ?? DEFAULT_K);
      const skills =
        !ctx.allowed || ctx.allowed.has(SKILL) ? (d.rankSkills?.(query, SKILLS_K, ctx.skills ?? null) ?? []) : [];
      const skillLines = skills.length
        ? `\n${skills.length} skills match; load one with ${SKILL} {"name": ...}:\n${skills
            .map((n) => `- ${n}: ${cut(oneLine(d.describeSkill?.(n) ?? ""), DESCRIPTION_CHARS)}`)
            .join("\n")}`
        : "";
      if (found.length === 0 && skills.length)
        return { content: `No tool matches "${query}".${skillLines}`, isError: false };
      if (found.length === 0) {
        const all = d.names().filter(may);
        return {
          content: `No tool matches "${query}". The tools you may use: ${all.join(", ") || "none"}.`,
          isError: false,
        };
      }
      const lines = found.map((n) => {
        const t = d.describe(n);
        const args = JSON.stringify(t?.parameters ?? {});
        return `- ${n}: ${cut(oneLine(t?.description ?? ""), DESCRIPTION_CHARS)}\n  arguments: ${args}`;
      });
      return {
        content: `${found.length} tools match "${query}", best first; call the one you need by its name:\n${lines.join("\n")}${skillLines}`,
        isError: false,
      };
    },
  };
}
