/**
 * `homed tools list [-json]`: every built-in tool with its plugin and risk class, read from the
 * manifests the build made (plugins/<name>/tools.ts) and the kernel's own tools — no daemon
 * needed. MCP servers' tools are not built in and not listed.
 */
import { BUILTIN_PLUGINS } from "../generated/builtin-plugins.ts";
import { MEMORY_SEARCH_TOOL } from "../agent/memory-tool.ts";
import { AGENT_SPAWN_TOOL } from "../agent/agent-spawn.ts";
import { TOOLS_FIND_TOOL } from "../agent/tools-find.ts";
import { SKILL_FILE_TOOL_DEF, SKILL_TOOL } from "../agent/skill-tools.ts";
import type { RiskClass } from "../protocol/agent.ts";

export interface BuiltinTool {
  name: string;
  /** The plugin that serves it, or "kernel". */
  plugin: string;
  risk: RiskClass;
  description: string;
}

export function builtinTools(): BuiltinTool[] {
  const out: BuiltinTool[] = [
    MEMORY_SEARCH_TOOL,
    AGENT_SPAWN_TOOL,
    TOOLS_FIND_TOOL,
    SKILL_TOOL,
    SKILL_FILE_TOOL_DEF,
  ].map((t) => ({
    name: t.name,
    plugin: "kernel",
    risk: t.risk,
    description: t.description,
  }));
  for (const m of BUILTIN_PLUGINS)
    for (const t of m.tools) out.push({ name: t.name, plugin: m.name, risk: t.risk, description: t.description });
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** One line a tool: name, plugin, risk, and the first sentence of its description. */
export function formatTools(tools: readonly BuiltinTool[]): string {
  const w = (f: (t: BuiltinTool) => string) => Math.max(...tools.map((t) => f(t).length), 4);
  const nw = w((t) => t.name);
  const pw = w((t) => t.plugin);
  const first = (d: string) => {
    const m = /^(.*?[.!?])(\s|$)/.exec(d);
    const s = m?.[1] ?? d;
    return s.length > 90 ? `${s.slice(0, 89)}…` : s;
  };
  const rows = tools.map(
    (t) => `${t.name.padEnd(nw)}  ${t.plugin.padEnd(pw)}  ${t.risk.padEnd(7)}  ${first(t.description)}`,
  );
  return [`${"TOOL".padEnd(nw)}  ${"PLUGIN".padEnd(pw)}  RISK     WHAT`, ...rows, `${tools.length} tools`].join("\n");
}
