/**
 * settings/get, settings/set, settings/allow-tool and settings/reload (src/protocol/settings.ts).
 * The settings say what turns may do without asking: built-in plugins only.
 */
import { parseParams } from "../../protocol/parse-params.ts";
import { AllowToolParams, SettingsMethod, SettingsPatch } from "../../protocol/settings.ts";
import type { KernelServices } from "../kernel-services.ts";
import type { BuiltinOnly, ChannelMethodGroup } from "./channel-group.ts";

/** "Always" for a tool: it joins `approval_allow` (DATA/settings.json) unless it is there already. */
export function allowToolAlways(k: Pick<KernelServices, "settings">, tool: string) {
  const allow = k.settings.view().approval_allow;
  return k.settings.set({ approval_allow: allow.includes(tool) ? allow : [...allow, tool] });
}

/** The settings methods: built-in plugins only. */
export function settingsMethods(k: KernelServices, builtinOnly: BuiltinOnly): ChannelMethodGroup {
  return {
    [SettingsMethod.Get]: (_params, plugin) => {
      builtinOnly(plugin, "reading the settings");
      return k.settings.view();
    },
    [SettingsMethod.Set]: (params, plugin) => {
      builtinOnly(plugin, "changing the settings");
      return k.settings.set(parseParams(SettingsPatch, params));
    },
    [SettingsMethod.AllowTool]: (params, plugin) => {
      builtinOnly(plugin, "changing the approval rules");
      return allowToolAlways(k, parseParams(AllowToolParams, params).tool);
    },
    [SettingsMethod.Reload]: (_params, plugin) => {
      builtinOnly(plugin, "reloading the configuration");
      return k.settings.reload(`asked by ${plugin}`);
    },
  };
}
