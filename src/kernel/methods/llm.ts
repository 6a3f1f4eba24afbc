/**
 * llm/get, llm/set, llm/models and llm/test (src/protocol/channel.ts). Any channel plugin may see
 * which provider and models are in use; changing or testing the provider is reserved to built-in
 * plugins: an installed third-party plugin may chat, but not redirect the agent to another model
 * or key.
 */
import { ChannelMethod } from "../../protocol/channel.ts";
import { LlmSetParams } from "../../protocol/control.ts";
import { parseParams } from "../../protocol/parse-params.ts";
import { checkModel } from "../check-model.ts";
import type { KernelServices } from "../kernel-services.ts";
import type { BuiltinOnly, ChannelMethodGroup } from "./channel-group.ts";

/** The model provider's methods: reading for any channel plugin, changing and testing for built-in ones. */
export function llmMethods(k: KernelServices, builtinOnly: BuiltinOnly): ChannelMethodGroup {
  return {
    [ChannelMethod.LlmGet]: () => k.llm.view(),
    [ChannelMethod.LlmSet]: (params, plugin) => {
      builtinOnly(plugin, "changing the model provider");
      return k.llm.set(parseParams(LlmSetParams, params));
    },
    // Model ids only: neither the key nor the URL leaves the kernel.
    [ChannelMethod.LlmModels]: () => k.models.list(),
    // With settings: those, not saved (the settings page's Test before Save); without: the configured ones.
    [ChannelMethod.LlmTest]: (params, plugin) => {
      builtinOnly(plugin, "testing the model provider");
      const p = params === undefined || params === null ? {} : parseParams(LlmSetParams, params);
      return checkModel(k.llm, Object.keys(p).length ? k.llm.candidate(p) : k.llm.model());
    },
  };
}
