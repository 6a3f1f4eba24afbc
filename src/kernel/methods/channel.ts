/**
 * The kernel methods channel plugins call (src/protocol/channel.ts). A turn started by a plugin
 * streams its events back to that plugin as `chat/event` notifications and asks approval as a
 * `chat/approve` request; `chat/cancel` (or the plugin's exit) cancels it. Changing the model
 * provider is reserved to built-in plugins: an installed third-party plugin may chat, but not
 * redirect the agent to another model or key.
 */
import { HomedError } from "../../protocol/errors.ts";
import { parseParams } from "../../protocol/parse-params.ts";
import { LlmSetParams } from "../../protocol/control.ts";
import { AllowToolParams, SettingsMethod, SettingsPatch } from "../../protocol/settings.ts";
import { eventOf } from "../../protocol/event-bodies.ts";
import {
  ChannelCancelParams,
  ChannelChatParams,
  ChannelMethod,
  ContextParams,
  ConvParams,
  ConversationModelParams,
  ClearMarkParams,
  ForgetParams,
  RenameParams,
  MemorySearchParams,
  MemoryAddParams,
  type MemoryHit,
  type ContextView,
} from "../../protocol/channel.ts";
import { estimateTokens } from "../../memory/tokens.ts";
import { snippetOf } from "../../memory/memory-search.ts";
import { AnswerParams, type AnswerResult, UnwatchParams, WatchParams } from "../../protocol/turn-stream.ts";
import { runChatTurn } from "../chat-turn.ts";
import { conversationTranscript } from "../transcript.ts";
import { checkHistoryImages, resolveAttachments } from "../attachments.ts";
import { sceneMethods } from "./scenes.ts";
import { l3Methods } from "./l3.ts";
import { checkModel } from "../check-model.ts";
import type { KernelServices } from "../kernel-services.ts";

/** What a search result shows of an event's text. */
const SNIPPET_CHARS = 300;

/** "Always" for a tool: it joins `approval_allow` (DATA/settings.json) unless it is there already. */
export function allowToolAlways(k: KernelServices, tool: string) {
  const allow = k.settings.view().approval_allow;
  return k.settings.set({ approval_allow: allow.includes(tool) ? allow : [...allow, tool] });
}

/** The channel methods a plugin may call; `plugin` is the caller, as the supervisor knows it. */
export function channelMethods(k: KernelServices): Record<string, (params: unknown, plugin: string) => unknown> {
  const running = new Map<string, AbortController>();
  // What each plugin follows (chat/watch), so chat/unwatch can stop it.
  const watching = new Map<string, () => void>();
  const key = (plugin: string, stream: string) => `${plugin}\u0000${stream}`;
  const builtinOnly = (plugin: string, what: string) => {
    if (!k.plugins.isBuiltin(plugin))
      throw new HomedError("forbidden", `${what} is reserved to built-in plugins; ${plugin} is not one`);
  };
  return {
    [ChannelMethod.ChatSend]: async (params, plugin) => {
      const p = parseParams(ChannelChatParams, params);
      if (!p.text && !p.toolResults?.length && !p.attachments?.length)
        throw new HomedError("invalid_params", "message is empty");
      if (p.attachments?.length || p.history?.some((m) => m.role === "user" && m.images?.length))
        builtinOnly(plugin, "sending attachments");
      if (p.history) checkHistoryImages(k, p.history);
      const peer = k.plugins.peer(plugin);
      if (!peer) throw new HomedError("unavailable", `${plugin} is not running`);
      const ac = new AbortController();
      const id = key(plugin, p.stream);
      running.set(id, ac);
      try {
        return await runChatTurn(
          k,
          {
            peer,
            name: plugin,
            stream: p.stream,
            eventMethod: ChannelMethod.ChatEvent,
            // A job's turn has nobody to ask, whatever the plugin said of `interactive`.
            askable: p.interactive && p.origin === "foreground",
            endsOnly: p.follow === "ends",
          },
          p.conv,
          // Typed by their bytes and read by the media plugin before the turn: the model reads them with the words.
          async () => ({
            conv: p.conv,
            channel: p.channel,
            text: p.text,
            ...(p.attachments?.length ? { attachments: await resolveAttachments(k, p.attachments) } : {}),
            untrusted: p.untrusted,
            ...(p.mark ? { mark: p.mark } : {}),
            scene: p.scene,
            history: p.history,
            toolResults: p.toolResults,
            clientTools: p.clientTools,
            model: p.model,
            origin: p.origin,
          }),
          ac,
        );
      } finally {
        running.delete(id);
      }
    },
    // A plugin follows its own turns by their stream id, and any conversation's live turn when
    // it is built in (the web UI shows every channel's conversations).
    [ChannelMethod.ChatWatch]: async (params, plugin) => {
      const p = parseParams(WatchParams, params);
      const peer = k.plugins.peer(plugin);
      if (!peer) throw new HomedError("unavailable", `${plugin} is not running`);
      let which: { conv: string } | { origin: string; stream: string };
      if (p.stream !== undefined) which = { origin: plugin, stream: p.stream };
      else if (p.conv !== undefined) {
        builtinOnly(plugin, "following another channel's turn");
        which = { conv: p.conv };
      } else throw new HomedError("invalid_params", "chat/watch names a conv or a stream");
      const f = k.streams.follow(which, p.from, (seq, event) =>
        peer.notify(ChannelMethod.ChatEvent, { stream: p.watch, seq, event }),
      );
      let unwatched = () => {};
      const gone = new Promise<null>((resolve) => (unwatched = () => resolve(null)));
      const forget = peer.onClose(() => f.stop());
      watching.set(key(plugin, p.watch), () => {
        f.stop();
        unwatched();
      });
      try {
        return await Promise.race([f.ended, gone]);
      } finally {
        watching.delete(key(plugin, p.watch));
        f.stop();
        forget();
      }
    },
    [ChannelMethod.ChatUnwatch]: (params, plugin) => {
      const stop = watching.get(key(plugin, parseParams(UnwatchParams, params).watch));
      stop?.();
      return { stopped: stop !== undefined };
    },
    [ChannelMethod.ChatAnswer]: (params, plugin): AnswerResult => {
      const p = parseParams(AnswerParams, params);
      return { answered: k.streams.answer(p.conv, p.callId, p.approved, { plugin }, p.scope) };
    },
    [ChannelMethod.ChatCancel]: (params, plugin) => {
      const ac = running.get(key(plugin, parseParams(ChannelCancelParams, params).stream));
      ac?.abort();
      return { cancelled: ac !== undefined };
    },
    [ChannelMethod.ConversationsList]: () => k.store.listConversations(),
    [ChannelMethod.ConversationsMessages]: (params) => {
      const p = parseParams(ConvParams, params);
      return conversationTranscript(k, p.conv, p.limit);
    },
    // Renaming and forgetting change what the person sees of their memory: built-in plugins only.
    [ChannelMethod.ConversationsRename]: (params, plugin) => {
      builtinOnly(plugin, "renaming a conversation");
      const p = parseParams(RenameParams, params);
      k.store.renameConversation(p.conv, p.title);
      return { ok: true };
    },
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
    [ChannelMethod.ContextGet]: (params): ContextView => {
      const c = k.agent.lastContext(parseParams(ContextParams, params).conv);
      if (!c) return null;
      return {
        turn: c.turn,
        at: c.at,
        tools: [...c.tools],
        messages: c.messages.map((m, i) => ({
          role: m.role,
          content: m.content,
          layer: c.items[i]?.layer ?? (m.role === "system" ? "system" : m.role === "user" ? "input" : "this turn"),
          recalled: c.items[i]?.recalled ?? false,
          filled: c.items[i]?.filled ?? false,
          reason: c.items[i]?.reason ?? null,
          score: c.items[i]?.score ?? null,
          pinned: c.items[i]?.pinned ?? false,
          tokens: estimateTokens(m.content),
          ...(m.role === "assistant" && m.toolCalls ? { toolCalls: m.toolCalls } : {}),
          ...(m.role === "tool" ? { name: m.name } : {}),
        })),
        brought: c.brought.map((f) => ({ ...f, blocks: f.blocks ?? [] })),
      };
    },
    // A person's whole memory: the built-in web UI may search it, an installed plugin may not.
    [ChannelMethod.MemorySearch]: (params, plugin): MemoryHit[] => {
      builtinOnly(plugin, "searching memory");
      const p = parseParams(MemorySearchParams, params);
      return k.agent
        .searchMemory(p.query, p.k)
        .map((f) => ({ ...f, text: snippetOf(f.text, p.query, SNIPPET_CHARS), blocks: f.blocks ?? [] }));
    },
    [ChannelMethod.MemoryAdd]: (params, plugin) => {
      builtinOnly(plugin, "adding to memory");
      const p = parseParams(MemoryAddParams, params);
      const conv = `${plugin}:${p.key}`;
      const r = k.store.append({
        conv,
        actor: plugin,
        untrusted: p.untrusted,
        ...eventOf("plugin-text", { key: p.key, text: p.text }),
      });
      k.memory.add(r.id);
      return { id: r.id, conv };
    },
    ...sceneMethods(k, builtinOnly),
    ...l3Methods(k, builtinOnly),
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
