/**
 * What a configuration reload (SIGHUP, a Save in the web UI) changes without a restart.
 *
 * The kernel's own: [llm], [agent] but its tool timeout, [approval], [trust], memory's
 * recall_untrusted, [memory.scenes] half-life and [backup] (read when the next one is due).
 *
 * A plugin's section: what its settings' `reload` says (src/protocol/plugin-settings.ts).
 * `live`: the new section is in force at once and the running plugin is told (config/changed);
 * `plugin-restart`: the plugin restarts with it, or starts when the setting its manifest is
 * `enabled_by` was just filled; `daemon-restart`: it waits for homed's next start. A plugin whose
 * `enabled_by` switch was turned off keeps running until then (the change is named as needing a
 * restart).
 *
 * Every other changed path is reported as needing a restart and left as it was.
 */
import type { Agent } from "../../agent/agent.ts";
import { PluginMethod, type PluginStateName } from "../../protocol/plugin.ts";
import type { ConfigChangedParams } from "../../protocol/plugin-settings.ts";
import { approvalOf, type Config } from "./config.ts";
import { inSection, isEmptySetting, type SettingsSection, setValueAt, valueAt } from "./sections.ts";
import type { Logger } from "../log.ts";
import type { Supervisor } from "../plugins/supervisor.ts";
import { changedPaths } from "./ui-settings.ts";

/** States in which a plugin holds (or failed on) settings it read at start: a restart gives it the new ones. */
const HOLDS_SETTINGS: readonly PluginStateName[] = ["ready", "starting", "restarting", "stopped", "failed"];

export interface LiveChangeDeps {
  agent: Pick<Agent, "setApproval">;
  supervisor: Pick<Supervisor, "list" | "enable" | "restart" | "process">;
  log: Logger;
  /** The plugins' sections. */
  sections: readonly SettingsSection[];
  /** The dotted setting that must be non-empty for a plugin to start (its manifest's enabled_by). */
  enabledBy(plugin: string): string | undefined;
  /** A section as config/get answers its owner now (secrets resolved for a built-in one). */
  read(plugin: string, section: string): unknown;
}

/** The kernel's own settings a reload applies in place. */
function kernelLive(p: string): boolean {
  return (
    p.startsWith("llm.") ||
    p.startsWith("approval.") ||
    p.startsWith("trust.") ||
    (p.startsWith("agent.") && p !== "agent.tool_timeout_ms") ||
    p === "memory.recall_untrusted" ||
    p === "skills.paths" ||
    p === "memory.scenes.half_life_days" ||
    p.startsWith("backup.")
  );
}

/** Apply to `current` (in place) what of `next` can change live; name the rest. */
export function applyLiveChanges(
  current: Config,
  next: Config,
  deps: LiveChangeDeps,
): { applied: string[]; restartNeeded: string[] } {
  const changed = changedPaths(current, next);
  const applied = changed.filter(kernelLive);
  const restartNeeded: string[] = [];
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
  Object.assign(c.backup, next.backup);

  const claimed = new Set<string>(applied);
  for (const s of deps.sections) {
    const paths = changed.filter((p) => inSection(p, s.section));
    if (paths.length === 0) continue;
    for (const p of paths) claimed.add(p);
    const outcome = applySection(c, next, s, paths, deps);
    (outcome === "applied" ? applied : restartNeeded).push(...paths);
  }
  restartNeeded.push(...changed.filter((p) => !claimed.has(p)));
  return { applied, restartNeeded };
}

/** Put one plugin's changed section in force as its settings say; "restart" when only homed's restart can. */
function applySection(
  c: Config,
  next: Config,
  s: SettingsSection,
  changed: string[],
  deps: LiveChangeDeps,
): "applied" | "restart" {
  const policy = s.settings.reload;
  if (policy === "daemon-restart") return "restart";
  const by = deps.enabledBy(s.plugin);
  const off = c.plugins.disabled.includes(s.plugin);
  // A switch turned off: the plugin keeps running with what it has until homed starts again.
  if (by && !off && valueAt(next, by) === false) return "restart";
  const info = deps.supervisor.list().find((p) => p.name === s.plugin);
  // Installed since homed started: it runs, with its settings, from the next start.
  if (!info) return "restart";
  setValueAt(c, s.section, valueAt(next, s.section));
  if (off) return "applied";
  try {
    if (info.state === "disabled") {
      // Disabled only because what it serves was not configured: the first setting starts it.
      if (by && !isEmptySetting(valueAt(c, by))) deps.supervisor.enable(s.plugin);
      return "applied";
    }
    if (policy === "plugin-restart") {
      if (HOLDS_SETTINGS.includes(info.state)) deps.supervisor.restart(s.plugin);
      return "applied";
    }
    // Still starting: it may have read the old section and not yet listen for changes.
    if (info.state === "starting") {
      deps.supervisor.restart(s.plugin);
      return "applied";
    }
    const proc = deps.supervisor.process(s.plugin);
    if (info.state === "ready" && proc) {
      const params: ConfigChangedParams = {
        section: s.section,
        value: deps.read(s.plugin, s.section),
        changed,
      };
      proc.rpc.notify(PluginMethod.ConfigChanged, params);
    }
    return "applied";
  } catch (err) {
    deps.log.warn("plugin not given its new settings", { plugin: s.plugin, err: (err as Error).message });
    return "restart";
  }
}
