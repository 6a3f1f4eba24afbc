/**
 * What a configuration reload changes without a restart: [llm], [agent] but its tool timeout,
 * [approval], memory's recall_untrusted and [memory.scenes] half-life, [mcp] (the mcp plugin restarts to reconnect, or
 * starts when its first server is configured) and [channels.qq] (the qq plugin starts when it is
 * turned on, restarts with new settings; turning it off needs a restart), and the private
 * addresses fetch_url and the browser may reach (the fetch plugin reads them on each call; a
 * running browser plugin restarts). Every other changed path is reported as needing a restart
 * and left as it was.
 */
import type { Agent } from "../agent/agent.ts";
import { approvalOf, type Config } from "./config.ts";
import type { Logger } from "./log.ts";
import type { Supervisor } from "./supervisor.ts";
import { changedPaths } from "./ui-settings.ts";

/** What fetch_url and the browser may reach beyond the public internet. */
const ADDRESS_PATHS = [
  "tools.fetch.allow_private",
  "tools.fetch.allow_hosts",
  "tools.browser.allow_private",
  "tools.browser.allow_hosts",
];

export interface LiveChangeDeps {
  agent: Pick<Agent, "setApproval">;
  supervisor: Pick<Supervisor, "list" | "enable" | "restart">;
  log: Logger;
}

/** Apply to `current` (in place) what of `next` can change live; name the rest. */
export function applyLiveChanges(
  current: Config,
  next: Config,
  deps: LiveChangeDeps,
): { applied: string[]; restartNeeded: string[] } {
  const log = deps.log;
  const changed = changedPaths(current, next);
  const live = (p: string) =>
    p.startsWith("llm.") ||
    p.startsWith("approval.") ||
    p.startsWith("trust.") ||
    p.startsWith("mcp.") ||
    (p.startsWith("channels.qq.") && next.channels.qq.enabled) ||
    (p.startsWith("agent.") && p !== "agent.tool_timeout_ms") ||
    p === "memory.recall_untrusted" ||
    p === "skills.paths" ||
    p === "memory.scenes.half_life_days" ||
    ADDRESS_PATHS.includes(p);
  const applied = changed.filter(live);
  const restartNeeded = changed.filter((p) => !live(p));
  const c = current;
  Object.assign(c.llm, next.llm);
  c.agent.system_prompt = next.agent.system_prompt;
  c.agent.max_iterations = next.agent.max_iterations;
  Object.assign(c.approval, next.approval);
  c.trust.tools = next.trust.tools;
  deps.agent.setApproval(approvalOf(c));
  c.memory.recall_untrusted = next.memory.recall_untrusted;
  // The skills' folders are looked at on each turn: the next one sees the new list.
  c.skills.paths = next.skills.paths;
  c.memory.scenes.half_life_days = next.memory.scenes.half_life_days;
  for (const tool of ["fetch", "browser"] as const) {
    if (!applied.some((p) => p.startsWith(`tools.${tool}.`))) continue;
    c.tools[tool].allow_private = next.tools[tool].allow_private;
    c.tools[tool].allow_hosts = next.tools[tool].allow_hosts;
    // The browser reads them when it starts: a running one starts again; an idle one will read them.
    const running = deps.supervisor.list().find((p) => p.name === tool);
    if (tool === "browser" && (running?.state === "ready" || running?.state === "starting")) {
      try {
        deps.supervisor.restart(tool);
      } catch (err) {
        log.warn("browser plugin not restarted", { err: (err as Error).message });
      }
    }
  }
  if (applied.some((p) => p.startsWith("mcp."))) {
    c.mcp.servers = next.mcp.servers;
    const mcp = deps.supervisor.list().find((p) => p.name === "mcp");
    const off = c.plugins.disabled.includes("mcp");
    try {
      // No servers before: the plugin was never started; the first one configured starts it.
      if (mcp?.state === "disabled" && !off && c.mcp.servers.length > 0) deps.supervisor.enable("mcp");
      else if (mcp?.state !== "disabled") deps.supervisor.restart("mcp");
    } catch (err) {
      log.warn("mcp plugin not restarted", { err: (err as Error).message });
      for (const p of applied.filter((x) => x.startsWith("mcp."))) restartNeeded.push(p);
    }
  }
  if (applied.some((p) => p.startsWith("channels.qq."))) {
    c.channels.qq = next.channels.qq;
    const qq = deps.supervisor.list().find((p) => p.name === "qq");
    try {
      if (qq?.state === "disabled" && !c.plugins.disabled.includes("qq")) deps.supervisor.enable("qq");
      else if (qq?.state !== "disabled") deps.supervisor.restart("qq");
    } catch (err) {
      log.warn("qq plugin not restarted", { err: (err as Error).message });
      for (const p of applied.filter((x) => x.startsWith("channels.qq."))) restartNeeded.push(p);
    }
  }
  return { applied, restartNeeded };
}
