/**
 * Every method a plugin may call on the kernel, and where it is answered:
 *
 * | methods | answered by |
 * |---|---|
 * | plugin/hello, facility/ready, plugin/ready, plugins/list, plugins/restart, plugin/keep-running | the supervisor's plugin RPC (src/kernel/plugin-rpc.ts; restarting another plugin: built-in plugins only), before this table |
 * | kernel/status, config/get, records/append, records/list | this file |
 * | blocks/put, blocks/get | block-methods.ts |
 * | tools/register, tools/unregister, stages/register (AgentMethod) | `Agent.pluginMethods` (src/agent/agent.ts) |
 * | chat/send, chat/cancel, conversations/*, context/get, llm/* (ChannelMethod) | channel-methods.ts |
 * | skills/* (SkillMethod) | skill-methods.ts (built-in plugins only) |
 *
 * The control socket's methods are all in control.ts.
 */
import {
  ConfigGetParams,
  PluginMethod,
  RecordsAppendParams,
  RecordsListParams,
  WebListeningParams,
  WebLoginRedeemParams,
} from "../protocol/plugin.ts";
import { HomedError } from "../protocol/errors.ts";
import { parseParams } from "../protocol/parse-params.ts";
import type { Agent } from "../agent/agent.ts";
import { blockMethods } from "./block-methods.ts";
import { channelMethods } from "./channel-methods.ts";
import { skillMethods } from "./skill-methods.ts";
import type { KernelServices } from "./kernel-services.ts";

/** A kernel method a plugin calls; `plugin` is the caller's name as the supervisor knows it. */
export type PluginMethodTable = Record<string, (params: unknown, plugin: string) => unknown>;

/**
 * The kernel's own methods for plugins: status, the configuration sections they may read, and
 * the plugin's own records in the log (a plugin reads and writes only its own: the name is the
 * caller's, as the supervisor knows it, never a parameter).
 */
/** The login methods serve the built-in web plugin alone: no other plugin may mint a way in. */
function builtinWeb(k: KernelServices, plugin: string): void {
  if (plugin !== "web" || !k.plugins.isBuiltin(plugin))
    throw new HomedError("forbidden", "web login links are the built-in web plugin's alone");
}

function kernelMethods(k: KernelServices): PluginMethodTable {
  return {
    [PluginMethod.KernelStatus]: () => k.status(),
    [PluginMethod.RecordsAppend]: (params, plugin) => {
      const p = parseParams(RecordsAppendParams, params);
      return k.store.appendPluginRecord(plugin, p.type, p.data ?? null);
    },
    [PluginMethod.RecordsList]: (params, plugin) => {
      const p = parseParams(RecordsListParams, params);
      return k.store.pluginRecords(plugin, p.after, p.limit);
    },
    [PluginMethod.WebListening]: (params, plugin) => {
      builtinWeb(k, plugin);
      const p = parseParams(WebListeningParams, params);
      k.webLogin.listening(p.origin, p.loginRequired);
      return { ok: true };
    },
    [PluginMethod.WebLoginRedeem]: (params, plugin) => {
      builtinWeb(k, plugin);
      return { ok: k.webLogin.redeem(parseParams(WebLoginRedeemParams, params).code) };
    },
    [PluginMethod.ConfigGet]: (params, plugin) => {
      const { section } = parseParams(ConfigGetParams, params);
      if (section === "web") {
        if (!k.plugins.isBuiltin(plugin))
          throw new HomedError("forbidden", `the web section is reserved to built-in plugins`);
        return { ...k.config.web, token: k.webToken, token_set: k.config.web.token !== "" };
      }
      if (section === "channels" && !k.plugins.isBuiltin(plugin))
        throw new HomedError("forbidden", `the channels section is reserved to built-in plugins`);
      if (section === "mcp") {
        // The servers' headers carry resolved secrets and their env the owner's passthrough values.
        if (!k.plugins.isBuiltin(plugin))
          throw new HomedError("forbidden", `the mcp section is reserved to built-in plugins`);
        // Passthrough names are resolved here: the mcp plugin itself never holds the daemon's environment.
        // So are header secrets: config.toml names them, DATA/secrets.json holds them.
        const secrets = k.config.mcp.servers.some((s) => Object.keys(s.header_secrets).length > 0)
          ? k.secretValues()
          : {};
        const servers = k.config.mcp.servers.map(({ env_passthrough, header_secrets, ...s }) => {
          const headers = { ...s.headers };
          const missing: string[] = [];
          for (const [header, name] of Object.entries(header_secrets)) {
            const value = secrets[name];
            if (value === undefined) missing.push(name);
            else headers[header] = value;
          }
          return { ...s, headers, missing_secrets: missing, env: { ...k.passThrough(env_passthrough), ...s.env } };
        });
        return { servers };
      }
      if (section === "channels") {
        if (!k.plugins.isBuiltin(plugin))
          throw new HomedError("forbidden", `the channels section is reserved to built-in plugins`);
        return k.config.channels;
      }
      if (section === "tools") {
        // The fetch plugin's search key: config.toml names it, DATA/secrets.json holds it. Only
        // the built-in fetch plugin gets it, and only that one value, never the file.
        // So is the media plugin's speech API key, to the built-in media plugin alone.
        const { fetch, media } = k.config.tools;
        if (plugin === "media" && k.plugins.isBuiltin(plugin) && media.speech_key_secret !== "") {
          const speech_key = k.secretValues()[media.speech_key_secret] ?? "";
          return { ...k.config.tools, media: { ...media, speech_key } };
        }
        if (plugin !== "fetch" || !k.plugins.isBuiltin(plugin) || fetch.search_key_secret === "") return k.config.tools;
        const search_key = k.secretValues()[fetch.search_key_secret] ?? "";
        return { ...k.config.tools, fetch: { ...fetch, search_key } };
      }
      return k.config[section];
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
