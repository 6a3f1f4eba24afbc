/**
 * `agent_spawn`: the model hands a sub-task to a child agent — a turn of its own, in its own
 * conversation (`<parent conv>/agent:<id>`, listed like any other so a person can read what the
 * child did), that starts from the task alone (none of the parent's history, no quotes from
 * other conversations), may offer and call only the tools it was given (always a subset of the
 * parent's own), has its own model-call budget ([tools.agent] max_iterations), and whose final
 * answer is this tool's result.
 *
 * Risk class `exec`: it runs a turn that may use tools. Those calls pass the same gate as the
 * parent's; the child asks the parent's person on the parent's channel (where nobody can be
 * asked, ask means deny there too), inherits the parent's trust and origin, and stops when the
 * parent's turn is stopped. Nesting is bounded by [tools.agent] max_depth: a child at the limit
 * is not offered agent_spawn, and a call past it is refused.
 */
import * as v from "valibot";
import { kernelTool } from "./kernel-tool.ts";
import { capMark, type RunToolResult, type ToolDefinition } from "../protocol/agent.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import type { LocalTool, LocalToolContext } from "./tools.ts";
import type { TurnInput, TurnResult, TurnSink } from "./turn.ts";

export const AGENT_SPAWN = "agent_spawn";

/** The longest conversation id a channel may name (src/protocol/channel.ts ConvId). */
const MAX_CONV_CHARS = 200;

/** Tool names or globs one call may give. */
const MAX_TOOL_PATTERNS = 100;

const AgentSpawnArgs = v.strictObject({
  task: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(20_000),
    v.description(
      "The sub-task, as a message to the sub-agent. It sees nothing else of this conversation: include what it needs to know.",
    ),
  ),
  tools: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
      v.maxLength(MAX_TOOL_PATTERNS),
      v.description(
        'Tools the sub-agent may use: names or globs ("files_*", "*"), only among the tools you have. Default: none.',
      ),
    ),
  ),
});

export const AGENT_SPAWN_TOOL: ToolDefinition = kernelTool({
  name: AGENT_SPAWN,
  description:
    "Hand a sub-task to a sub-agent: a separate turn with a fresh context (only `task`, none of this conversation) and only the `tools` you give it, " +
    "limited in model calls. Returns the sub-agent's final answer. Use it for self-contained work whose intermediate steps need not fill this conversation.",
  args: AgentSpawnArgs,
  risk: "exec",
  own: "a sub-agent's answer; marked on its result when the sub-agent read outside text",
  examples: ["have a helper look into this separately", "research this on the side and report back"],
});

export interface AgentSpawnDeps {
  /** Run a turn (Agent.run): the child's. */
  run(input: TurnInput, sink: TurnSink, signal: AbortSignal): Promise<TurnResult>;
  /** Every registered tool's name now. */
  toolNames(): string[];
  /** [tools.agent], read at each call. */
  limits(): { maxDepth: number; maxIterations: number };
}

const fail = (content: string): RunToolResult => ({ content: `error: ${content}`, isError: true });

function globMatcher(pattern: string): (name: string) => boolean {
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
  );
  return (name) => re.test(name);
}

/** The child's tools: what the patterns match among the parent's own, agent_spawn only below the depth limit. */
export function childTools(
  patterns: readonly string[],
  parent: readonly string[],
  childMayNest: boolean,
): { tools: Set<string>; unmatched: string[] } {
  const tools = new Set<string>();
  const unmatched: string[] = [];
  for (const p of patterns) {
    const matches = parent.filter(globMatcher(p));
    if (matches.length === 0) unmatched.push(p);
    for (const m of matches) tools.add(m);
  }
  if (!childMayNest) tools.delete(AGENT_SPAWN);
  return { tools, unmatched };
}

export function agentSpawnTool(d: AgentSpawnDeps): LocalTool {
  return {
    remember: true,
    async run(raw: unknown, ctx: LocalToolContext): Promise<RunToolResult> {
      const p = v.safeParse(AgentSpawnArgs, raw);
      if (!p.success) return fail(`invalid arguments for ${AGENT_SPAWN}: ${describeIssues(p.issues)}`);
      const { maxDepth, maxIterations } = d.limits();
      if (ctx.depth >= maxDepth)
        return fail(
          `sub-agents may nest ${maxDepth} deep ([tools.agent] max_depth) and this turn is at depth ${ctx.depth}; do the task here`,
        );
      const depth = ctx.depth + 1;
      const parent = ctx.allowed ? [...ctx.allowed] : d.toolNames();
      const { tools, unmatched } = childTools(p.output.tools ?? [], parent, depth < maxDepth);
      if (unmatched.length)
        return fail(
          `${unmatched.join(", ")} match${unmatched.length === 1 ? "es" : ""} none of the tools you may give (${parent.sort().join(", ") || "none"})`,
        );
      // Conversation ids the channels accept are at most 200 characters: a long parent id is cut.
      const suffix = `/agent:${crypto.randomUUID().slice(0, 8)}`;
      const conv = `${ctx.conv.slice(0, MAX_CONV_CHARS - suffix.length)}${suffix}`;
      const signal = ctx.signal ?? new AbortController().signal;
      ctx.notice?.(`sub-agent ${conv} started with tools: ${[...tools].sort().join(", ") || "none"}`);
      const sink: TurnSink = {
        event: (e) => {
          if (e.type === "tool-call") ctx.notice?.(`sub-agent ${conv} calls ${e.name}`);
        },
        // The same person, on the same channel, as the parent; nobody when the parent has nobody.
        ...(ctx.ask ? { ask: ctx.ask } : {}),
      };
      const r = await d.run(
        {
          conv,
          channel: "agent",
          text: p.output.task,
          untrusted: ctx.untrusted,
          mark: ctx.tainted ?? null,
          origin: ctx.origin,
          subAgent: { tools, maxIterations, depth },
        },
        sink,
        signal,
      );
      // The child's answer was written with untrusted text in view: it carries that mark to the parent.
      const mark = r.mark ? { mark: capMark(`sub-agent ${conv} read ${r.mark}`) } : {};
      if (r.stopReason === "done") return { content: r.text, isError: false, ...mark };
      const note = `[the sub-agent (${conv}) stopped: ${r.stopReason}${r.error ? `, ${r.error}` : ""}]`;
      return {
        content: r.text ? `${r.text}\n\n${note}` : note,
        isError: r.stopReason === "error" || r.stopReason === "cancelled",
        ...mark,
      };
    },
  };
}
