/**
 * conversations/* (src/protocol/channel.ts): any channel plugin may list the conversations and
 * read one. Renaming, choosing the model, forgetting and clearing the untrusted mark change what
 * the person sees of their memory, or what a turn may do: built-in plugins only.
 */
import {
  ChannelMethod,
  ClearMarkParams,
  ConvParams,
  ConversationModelParams,
  ForgetParams,
  RenameParams,
} from "../../protocol/channel.ts";
import { HomedError } from "../../protocol/errors.ts";
import { parseParams } from "../../protocol/parse-params.ts";
import type { KernelServices } from "../kernel-services.ts";
import { conversationTranscript } from "../transcript.ts";
import type { BuiltinOnly, ChannelMethodGroup } from "./channel-group.ts";

/** The conversation methods: reading for any channel plugin, changing for built-in ones. */
export function conversationMethods(k: KernelServices, builtinOnly: BuiltinOnly): ChannelMethodGroup {
  return {
    [ChannelMethod.ConversationsList]: () => k.store.listConversations(),
    [ChannelMethod.ConversationsMessages]: (params) => {
      const p = parseParams(ConvParams, params);
      return conversationTranscript(k, p.conv, p.limit);
    },
    [ChannelMethod.ConversationsRename]: (params, plugin) => {
      builtinOnly(plugin, "renaming a conversation");
      const p = parseParams(RenameParams, params);
      k.store.renameConversation(p.conv, p.title);
      return { ok: true };
    },
    // The configured model (or "") clears the choice, so the conversation follows the settings again.
    [ChannelMethod.ConversationsModel]: async (params, plugin) => {
      builtinOnly(plugin, "choosing a conversation's model");
      const p = parseParams(ConversationModelParams, params);
      const m = await k.models.list();
      const model = p.model === "" || p.model === m.configured ? null : p.model;
      if (model !== null && !m.provider.includes(model))
        throw new HomedError("not_found", `the provider does not offer the model ${model}`, { model });
      k.store.setConversationModel(p.conv, p.channel, model);
      return { model };
    },
    [ChannelMethod.ConversationsForget]: (params, plugin) => {
      builtinOnly(plugin, "forgetting a conversation");
      const p = parseParams(ForgetParams, params);
      const r = k.store.forgetConversation(p.conv);
      k.agent.forgetContext(p.conv);
      return { forgotten: r.events };
    },
    [ChannelMethod.ConversationsClearMark]: (params, plugin) => {
      builtinOnly(plugin, "clearing a conversation's untrusted mark");
      const p = parseParams(ClearMarkParams, params);
      const clearedUpto = k.store.clearMark(p.conv, p.by);
      return { clearedUpto };
    },
  };
}
