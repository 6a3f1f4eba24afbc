/** The daemon's status as `homed status`, waiter and the web UI's plugins page show it. */
import type { Agent } from "../agent/agent.ts";
import type { Memory } from "../memory/memory.ts";
import type { StatusResult } from "../protocol/control.ts";
import { declaresOutput, outputIsOwn } from "../protocol/agent.ts";
import type { Store } from "../store/store.ts";
import { VERSION } from "../version.ts";
import { lastBackup } from "./backup.ts";
import { channelStatus, type ControlClients } from "./channel-status.ts";
import type { Config } from "./config/config.ts";
import { type SettingsSection, valueAt } from "./config/sections.ts";
import type { DataPaths } from "./data-paths.ts";
import type { LlmSettings } from "./config/llm-settings.ts";
import type { Supervisor } from "./plugins/supervisor.ts";
import type { SkillCatalog } from "../skills/skill-catalog.ts";

export interface StatusSources {
  startedAt: Date;
  paths: DataPaths;
  config: Config;
  /** The plugins' sections of config.toml: a channel's `enabled = false` shows as off. */
  sections: readonly SettingsSection[];
  store: Store;
  supervisor: Supervisor;
  llm: LlmSettings;
  agent: Agent;
  memory: Memory;
  clients: ControlClients;
  /** The stable graph's counts (L3). */
  l3: () => { facts: number; current: number; nodes: number };
  skills: Pick<SkillCatalog, "list">;
}

export function kernelStatus(k: StatusSources): StatusResult {
  const plugins = k.supervisor.list();
  return {
    version: VERSION,
    pid: process.pid,
    startedAt: k.startedAt.toISOString(),
    uptimeMs: Date.now() - k.startedAt.getTime(),
    dataDir: k.paths.dir,
    listen: k.config.listen,
    arch: process.arch,
    store: {
      path: k.paths.db,
      schemaVersion: k.store.schemaVersion,
      events: k.store.eventCount(),
      sizeBytes: k.store.sizeBytes(),
    },
    plugins,
    failClosed: k.supervisor.failClosed(),
    llm: k.llm.view(),
    tools: k.agent.tools.list().map((t) => ({
      name: t.def.name,
      plugin: t.plugin,
      risk: t.def.risk,
      approval: t.def.approval,
      // Untrusted unless it says why not: "undeclared" is treated as untrusted, and is a tool's oversight.
      output: outputIsOwn(t.def)
        ? ("own" as const)
        : declaresOutput(t.def)
          ? ("untrusted" as const)
          : ("undeclared" as const),
    })),
    memory: {
      embedder: k.memory.dense?.embedder.id ?? null,
      vectorsMade: k.memory.dense?.made ?? 0,
      imageVectorsMade: k.memory.dense?.imagesMade ?? 0,
      audioVectorsMade: k.memory.dense?.audioMade ?? 0,
      pending: k.memory.dense?.pending ?? 0,
      l3: k.l3(),
    },
    skills: skillCounts(k.skills.list()),
    stages: k.agent.stages
      .all()
      .map((h) => ({ stage: h.stage, plugin: h.plugin, priority: h.priority, deadlineMs: h.deadlineMs })),
    channels: channelStatus({
      plugins,
      clients: k.clients.counts(),
      activity: k.store.channelActivity(),
      off: channelsOff(k.config, k.sections),
    }),
    usage: k.store.totalUsage(),
    backup: lastBackup(k.paths.dir) ?? undefined,
  };
}

/** Skill folders found: usable ones (valid and enabled), disabled ones, and those skipped with a reason. */
function skillCounts(list: readonly { problem: string | null; enabled: boolean }[]) {
  const valid = list.filter((s) => s.problem === null);
  return { valid: valid.length, disabled: valid.filter((s) => !s.enabled).length, invalid: list.length - valid.length };
}

/** Channels ([channels.<name>] sections) whose `enabled` is false, with the reason to show. */
function channelsOff(config: Config, sections: readonly SettingsSection[]): Map<string, string> {
  const off = new Map<string, string>();
  for (const s of sections) {
    const [area, name, ...rest] = s.section.split(".");
    if (area !== "channels" || !name || rest.length > 0) continue;
    if (valueAt(config, `${s.section}.enabled`) === false) off.set(name, `${s.section}.enabled = false in config.toml`);
  }
  return off;
}
