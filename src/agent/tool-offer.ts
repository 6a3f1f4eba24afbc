/**
 * Which of homed's tools a model call carries with their full schemas, and how every other one
 * stays within reach. Every tool's spec costs the person input on every call (a default
 * install's ~60 cost ~37 kB, ~9k tokens, even for "hello"), and the tools block is the start of
 * what a provider caches: a block that changes from turn to turn (the tools one prompt's words
 * called for) makes every later request start afresh, and a block chosen by one prompt leaves
 * the tools the next prompt needs out. So the block stands still:
 *   - the standing offer: the core (tools whose definitions say `core`: memory_search, tools_find,
 *     reading a file), the tools the person called most in the last HABIT_DAYS days (their habits,
 *     counted from the log, not one prompt's words; counted again each day), and `skill` with
 *     `skill_file` while there is a skill to load;
 *   - every other tool the turn may use is named, with a line of what it does, at the end of the
 *     system prompt (toolCatalog, sorted by name; a tool's description may hold no more than
 *     OpenAI's 1,024 characters), within CATALOG_SHARE of the model's window (a small window
 *     gets the names alone, or only how many there are); tools_find gives a tool's schema; a
 *     call by its name runs as if it had been offered (src/agent/tool-executor.ts asks the same
 *     of it).
 * The block changes when a tool is installed or removed, or when the habits move (at most once
 * a day). Nothing a turn adds goes into it: what tools_find returns and the memory note travel
 * in the messages, after the cached prefix.
 * A scene's or a sub-agent's list narrows what is offered and callable; a narrowed list that is
 * short is offered whole. A client's own tools (/v1) are the client's and always sent
 * (src/agent/turn-steps.ts callModel).
 */
import type { ToolSpec } from "../llm/types.ts";
import { estimateTokens } from "../memory/tokens.ts";
import type { RegisteredTool } from "./tools.ts";
import { SKILL, SKILL_FILE_TOOL } from "./skill-tools.ts";

/** Tools the person called most, offered with the core. */
export const HABIT_TOOLS = 6;
/** How far back the habits are counted. */
export const HABIT_DAYS = 28;
/** A scene's or sub-agent's list this short is offered whole. */
export const OFFER_WHOLE = 12;
/** What a catalog line says of a tool, at most: the name says the rest, tools_find gives it whole. */
const GLOSS_CHARS = 40;

/**
 * The tools offered on every call the turn may make them: those whose definitions say `core`,
 * the kernel's own or a built-in plugin's (ToolDefinition.core).
 */
export function coreTools(tools: readonly RegisteredTool[], isBuiltin: (plugin: string) => boolean): string[] {
  return tools.filter((t) => t.def.core && (t.local || isBuiltin(t.plugin))).map((t) => t.def.name);
}

/**
 * The standing offer: the core, the HABIT_TOOLS tools called most (`use`: calls by tool name in
 * the last HABIT_DAYS days; ties by name, so the same counts give the same set), and the skill
 * tools when `skills` (a skill can be loaded). Only registered tools.
 */
export function standingOffer(
  tools: readonly RegisteredTool[],
  use: ReadonlyMap<string, number>,
  isBuiltin: (plugin: string) => boolean,
  skills: boolean,
): Set<string> {
  const core = new Set(coreTools(tools, isBuiltin));
  const registered = new Set(tools.map((t) => t.def.name));
  const habitual = [...use]
    .filter(
      ([name, n]) => n > 0 && registered.has(name) && !core.has(name) && name !== SKILL && name !== SKILL_FILE_TOOL,
    )
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, HABIT_TOOLS)
    .map(([name]) => name);
  const offer = new Set([...core, ...habitual]);
  if (skills) for (const name of [SKILL, SKILL_FILE_TOOL]) if (registered.has(name)) offer.add(name);
  return offer;
}

/**
 * What a turn is offered: the standing offer within the turn's list (`allowed`), or null (every
 * tool the turn may use) when that list is short enough to send whole.
 */
export function turnOffer(standing: ReadonlySet<string>, allowed: ReadonlySet<string> | null): Set<string> | null {
  if (allowed && allowed.size <= OFFER_WHOLE) return null;
  return new Set([...standing].filter((n) => !allowed || allowed.has(n)));
}

/** The specs a model call carries: those of `specs` in `offered` (all when offered is null). */
export function offeredSpecs(specs: readonly ToolSpec[], offered: ReadonlySet<string> | null): ToolSpec[] {
  return offered ? specs.filter((t) => offered.has(t.name)) : [...specs];
}

/**
 * What a description says first, on one line: its first sentence up to its first clause (a
 * colon, a semicolon, a parenthesis, ", and …"), cut at a word within GLOSS_CHARS.
 */
export function gloss(description: string): string {
  const line = description.replace(/\s+/g, " ").trim();
  const end = line.search(/[.!?。](\s|$)/);
  let first = end >= 0 ? line.slice(0, end) : line;
  const clause = first.search(/[:;]| \(| —|, (?:and|or|with|then)\b/);
  if (clause >= 6) first = first.slice(0, clause);
  if (first.length <= GLOSS_CHARS) return first;
  const cut = first.slice(0, GLOSS_CHARS);
  const space = cut.lastIndexOf(" ");
  return `${(space > GLOSS_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[,;:]$/, "")}…`;
}

/**
 * The share of the model's window the catalog may take: a small model's few thousand tokens are
 * the conversation's before they are the tools'.
 */
export const CATALOG_SHARE = 0.08;

/**
 * The tools a call does not carry, as the system prompt names them, within `budgetTokens`: one
 * line each (`name: what it does`), sorted by name; where that does not fit, their names alone;
 * where neither fits, how many there are (tools_find lists them). "" for none.
 */
export function toolCatalog(specs: readonly ToolSpec[], budgetTokens = Number.POSITIVE_INFINITY): string {
  if (specs.length === 0) return "";
  const sorted = [...specs].sort((a, b) => a.name.localeCompare(b.name));
  const lines = sorted.map((t) => `${t.name}: ${gloss(t.description)}`).join("\n");
  if (estimateTokens(lines) <= budgetTokens) return lines;
  const names = sorted.map((t) => t.name).join(", ");
  if (estimateTokens(names) <= budgetTokens) return names;
  return `${sorted.length} more; ask tools_find for the one you need.`;
}
