/**
 * Every method a plugin may call on the kernel, and where it is answered:
 *
 * | methods | answered by |
 * |---|---|
 * | plugin/hello, facility/ready, plugin/ready, plugins/list, plugins/restart, plugin/keep-running | the supervisor's plugin RPC (src/kernel/plugins/rpc.ts; restarting another plugin: built-in plugins only), before this table |
 * | kernel/status, kernel/metrics (built-in plugins only), config/get, records/append, records/list, login/listening, login/redeem | this file |
 * | blocks/put, blocks/get | blocks.ts |
 * | tools/register, tools/unregister, stages/register (AgentMethod) | `Agent.pluginMethods` (src/agent/agent.ts) |
 * | chat/send, chat/cancel, conversations/*, context/get, llm/* (ChannelMethod) | channel.ts |
 * | skills/* (SkillMethod) | skills.ts (built-in plugins only) |
 *
 * The control socket's methods are all in control.ts.
 */
import {
  ConfigGetParams,
  PluginMethod,
  RecordsAppendParams,
  RecordsListParams,
  LoginListeningParams,
  LoginRedeemParams,
  LOGIN_FACILITY,
} from "../../protocol/plugin.ts";
import { HomedError } from "../../protocol/errors.ts";
import { parseParams } from "../../protocol/parse-params.ts";
import type { Agent } from "../../agent/agent.ts";
import { blockMethods } from "./blocks.ts";
import { channelMethods } from "./channel.ts";
import { skillMethods } from "./skills.ts";
import type { KernelServices } from "../kernel-services.ts";
import { pluginSectionFor, sectionReadDeps } from "../config/sections.ts";

/** A kernel method a plugin calls; `plugin` is the caller's name as the supervisor knows it. */
export type PluginMethodTable = Record<string, (params: unknown, plugin: string) => unknown>;

/**
 * The kernel's own methods for plugins: status, the configuration sections they may read, and
 * the plugin's own records in the log (a plugin reads and writes only its own: the name is the
 * caller's, as the supervisor knows it, never a parameter).
 */
/** The login methods serve the built-in plugin that logs people in alone: no other plugin may mint a way in. */
function loginPlugin(k: KernelServices, plugin: string): void {
  if (k.plugins.provider(LOGIN_FACILITY) !== plugin || !k.plugins.isBuiltin(plugin))
    throw new HomedError("forbidden", `login links are the built-in plugin's that provides ${LOGIN_FACILITY}`);
}

function kernelMethods(k: KernelServices): PluginMethodTable {
  return {
    [PluginMethod.KernelStatus]: () => k.status(),
    // Not in METHOD_FACILITIES: an external plugin is refused it before this runs (src/kernel/plugins/rpc.ts).
    [PluginMethod.KernelMetrics]: () => ({ text: k.metrics() }),
    [PluginMethod.RecordsAppend]: (params, plugin) => {
      const p = parseParams(RecordsAppendParams, params);
      return k.store.appendPluginRecord(plugin, p.type, p.data ?? null);
    },
    [PluginMethod.RecordsList]: (params, plugin) => {
      const p = parseParams(RecordsListParams, params);
      return k.store.pluginRecords(plugin, p.after, p.limit);
    },
    [PluginMethod.LoginListening]: (params, plugin) => {
      loginPlugin(k, plugin);
      const p = parseParams(LoginListeningParams, params);
      k.webLogin.listening(p.origin, p.loginRequired);
      return { ok: true };
    },
    [PluginMethod.LoginRedeem]: (params, plugin) => {
      loginPlugin(k, plugin);
      return { ok: k.webLogin.redeem(parseParams(LoginRedeemParams, params).code) };
    },
    [PluginMethod.ConfigGet]: (params, plugin) => {
      const { section } = parseParams(ConfigGetParams, params);
      if (section === "approval" || section === "agent") return k.config[section];
      // A plugin's section, or a table of them ("tools"): config-sections.ts says who may read what.
      const value = pluginSectionFor(plugin, section, k.config, sectionReadDeps(k));
      if (value === undefined) throw new HomedError("not_found", `config.toml has no section ${section} for plugins`);
      return value;
    },
  };
}

/** One table of every group above; a method two groups both claim is a bug, refused at start. */
export function pluginMethods(k: KernelServices, agent: Pick<Agent, "pluginMethods">): PluginMethodTable {
  const table: PluginMethodTable = {};
  const builtinOnly = (plugin: string, what: string) => {
    if (!k.plugins.isBuiltin(plugin))
      throw new HomedError("forbidden", `${what} is reserved to built-in plugins; ${plugin} is not one`);
  };
  const skills = skillMethods(k.skills, builtinOnly);
  for (const group of [kernelMethods(k), agent.pluginMethods, channelMethods(k), blockMethods(k), skills]) {
    for (const [method, fn] of Object.entries(group)) {
      if (method in table) throw new Error(`kernel method ${method} is answered twice`);
      table[method] = fn;
    }
  }
  return table;
}
