/**
 * Which of homed's tools a model call is offered. Every tool's spec is sent with every call and
 * the person pays for it as input: all of a default install's ~60 cost ~37 kB (~9k tokens) even
 * for "hello". So a turn is offered:
 *   - the core: what nearly any turn may need and costs little, the tools whose definitions say
 *     `core` (memory_search, tools_find to ask for any other tool, reading a file);
 *   - the tools the input calls for, with the conversation's last few messages at half weight,
 *     ranked by memory's index over each tool's name and description (src/memory/tool-index.ts);
 *   - every tool whose call is in what the model is sent (used earlier in the conversation or in
 *     this turn), and what tools_find returned during the turn.
 * The tool definitions come first in what the provider caches, so a conversation keeps its offer
 * from turn to turn (nextOffer), grown only by what tools_find brought. It is chosen again when
 * there is no cached prefix to keep: the conversation is still too short for a provider to cache
 * it, memory planned the context again, or the conversation was quiet longer than a provider
 * keeps its cache. Ranked afresh on every turn, ordinary chat was
 * offered a different six tools each time (words of their descriptions matched) and no request
 * began as the previous one did (cost.prefix_reuse_pct 3.2 %); tools whose family the input
 * named ("my schedule", "the music") joining the kept offer still changed it on 6 of 30 turns
 * of real chat (70.5 %, docs/BENCHMARKS.md). The model that needs another tool asks tools_find,
 * as it would for one the offer never had.
 * What the turn may call does not change: a call to a tool it was not offered passes the same
 * gate as any other (src/agent/tool-executor.ts), and a scene's or a sub-agent's list still
 * narrows what can be offered. A narrowed list that is short is offered whole, as it always was.
 * A client's own tools (/v1) are the client's and always sent (src/agent/turn-steps.ts callModel).
 * Without memory (no index) every tool is offered.
 * Agent Skills ride along the same way (docs/skills.md): the few that fit are held in the offer
 * as `skill:<name>` beside `skill`, so they are kept and chosen again exactly when the tools are,
 * and `skill`'s description lists them (src/agent/turn-steps.ts callModel).
 */
import type { ChatMessage, ToolSpec } from "../llm/types.ts";
import type { WeightedText } from "../memory/tool-index.ts";
import type { RegisteredTool } from "./tools.ts";
import { SKILL, SKILL_OFFER_PREFIX } from "./skill-tools.ts";

/**
 * The tools offered on every call the turn may make them: those whose definitions say `core`,
 * the kernel's own or a built-in plugin's (ToolDefinition.core).
 */
export function coreTools(tools: readonly RegisteredTool[], isBuiltin: (plugin: string) => boolean): string[] {
  return tools.filter((t) => t.def.core && (t.local || isBuiltin(t.plugin))).map((t) => t.def.name);
}
/**
 * Ranked tools offered beside the core: a task's tool and its neighbours (browser_open beside
 * browser_screenshot) fit, and the core and these stay within a dozen specs.
 */
export const RANKED_TOOLS = 6;
/**
 * Skills whose names and descriptions ride along in `skill`'s description (src/agent/skill-tools.ts):
 * the few that best fit, like the ranked tools. The offer holds them as `skill:<name>` beside
 * `skill` itself, so a conversation keeps them as it keeps its tools.
 */
export const RANKED_SKILLS = 3;
/** A scene's or sub-agent's list this short is offered whole. */
export const OFFER_WHOLE = 12;
/** The conversation's last messages (the person's and the model's words) that rank beside the input. */
const RECENT_MESSAGES = 4;
/** Their weight beside the input's: the turn is about the input, the messages before only steer. */
const RECENT_WEIGHT = 0.5;

/** Tools best matching the texts, at most `limit`, among `among` when given. */
export type RankTools = (texts: readonly WeightedText[], limit: number, among: ReadonlySet<string> | null) => string[];
/**
 * A conversation quiet this long has lost its cached prefix (OpenAI keeps one 5–10 minutes of
 * inactivity, Anthropic 5 minutes by default): its next turn's offer is chosen afresh.
 */
export const CACHE_LIFETIME_MS = 5 * 60_000;
/**
 * Providers cache no prompt shorter than this (OpenAI: 1,024 tokens; Anthropic: 1,024 for most
 * models): below it a new offer costs nothing, and a conversation's first turns ("hi", then the
 * task) are each offered what they call for.
 */
export const MIN_CACHED_TOKENS = 1024;

/** A conversation's offer as its last turn left it. */
export interface KeptOffer {
  offer: Set<string>;
  /** When the turn that chose or kept it began (ms). */
  at: number;
}

/**
 * The tools offered from the turn's start, or null when every tool the turn may use is (no index
 * to rank with, or a narrowed list short enough to send whole).
 */
export function firstOffer(
  core: readonly string[],
  input: string,
  messages: readonly ChatMessage[],
  allowed: ReadonlySet<string> | null,
  rank: RankTools | undefined,
  rankSkills?: RankSkills,
): Set<string> | null {
  if (!rank || (allowed && allowed.size <= OFFER_WHOLE)) return null;
  const recent = messages
    .filter((m) => (m.role === "user" || m.role === "assistant") && m.content)
    .slice(-RECENT_MESSAGES)
    .map((m) => m.content)
    .join("\n");
  const texts = [
    { text: input, weight: 1 },
    { text: recent, weight: RECENT_WEIGHT },
  ];
  const offer = new Set([...core, ...rank(texts, RANKED_TOOLS, allowed)]);
  // Skills ride along only where the turn may load them.
  const skills = rankSkills && (!allowed || allowed.has(SKILL)) ? rankSkills(texts, RANKED_SKILLS) : [];
  if (skills.length) offer.add(SKILL);
  for (const name of skills) offer.add(`${SKILL_OFFER_PREFIX}${name}`);
  return offer;
}

/** Skills best matching the texts, at most `limit`. */
export type RankSkills = (texts: readonly WeightedText[], limit: number) => string[];

/** The skills an offer carries, by name; null when the offer is every tool (then every usable skill is listed). */
export function offeredSkills(offer: ReadonlySet<string> | null): string[] | null {
  if (!offer) return null;
  return [...offer].filter((n) => n.startsWith(SKILL_OFFER_PREFIX)).map((n) => n.slice(SKILL_OFFER_PREFIX.length));
}

/**
 * The offer of a conversation's turn: the one its previous turn left (`kept`, with what tools_find
 * added), unless there is no cached prefix to keep — what the turn carries over from the last
 * request (`prefixTokens`: its tools, the system prompt, the history) is below MIN_CACHED_TOKENS, the context was
 * planned again (`replanned`), or the conversation was quiet past CACHE_LIFETIME_MS — or there is
 * none yet: then the first offer for this input. Null when every tool the turn may use is.
 */
export function nextOffer(
  core: readonly string[],
  kept: KeptOffer | undefined,
  now: number,
  prefixTokens: number,
  replanned: boolean,
  input: string,
  messages: readonly ChatMessage[],
  allowed: ReadonlySet<string> | null,
  rank: RankTools | undefined,
  rankSkills?: RankSkills,
): Set<string> | null {
  if (!rank || (allowed && allowed.size <= OFFER_WHOLE)) return null;
  if (kept && !replanned && prefixTokens >= MIN_CACHED_TOKENS && now - kept.at < CACHE_LIFETIME_MS) return kept.offer;
  return firstOffer(core, input, messages, allowed, rank, rankSkills);
}

/** The specs a model call is offered: those of `specs` in `offered` or called in `messages` (all when offered is null). */
export function offeredSpecs(
  specs: readonly ToolSpec[],
  offered: ReadonlySet<string> | null,
  messages: readonly ChatMessage[],
): ToolSpec[] {
  if (!offered) return [...specs];
  const called = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") for (const c of m.toolCalls ?? []) called.add(c.name);
    else if (m.role === "tool") called.add(m.name);
  }
  return specs.filter((t) => offered.has(t.name) || called.has(t.name));
}
