/**
 * The kernel methods channel plugins call (src/protocol/channel.ts). A turn started by a plugin
 * streams its events back to that plugin as `chat/event` notifications and asks approval as a
 * `chat/approve` request; `chat/cancel` (or the plugin's exit) cancels it. Changing the model
 * provider is reserved to built-in plugins: an installed third-party plugin may chat, but not
 * redirect the agent to another model or key.
 */
import * as v from "valibot";
import { HomedError } from "../protocol/errors.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import { LlmSetParams } from "../protocol/control.ts";
import { readEventBody } from "../protocol/event-bodies.ts";
import { ChannelCancelParams, ChannelChatParams, ChannelMethod, ContextParams, ConvParams, type ContextView, type TranscriptItem } from "../protocol/channel.ts";
import { estimateTokens } from "../memory/tokens.ts";
import type { StoredEvent } from "../store/store.ts";
import type { TurnSink } from "../agent/turn.ts";
import { testModel } from "./control.ts";
import type { Kernel } from "./kernel.ts";

function parse<S extends v.GenericSchema>(schema: S, params: unknown): v.InferOutput<S> {
  const r = v.safeParse(schema, params);
  if (!r.success) throw new HomedError("invalid_params", describeIssues(r.issues));
  return r.output;
}

/** Events as a person reads the conversation: the final reply, not every model draft. */
export function transcript(events: readonly StoredEvent[]): TranscriptItem[] {
  const out: TranscriptItem[] = [];
  for (const e of events) {
    const read = readEventBody(e.kind, e.body);
    const base = { id: e.id, ts: e.ts, untrusted: e.untrusted };
    if (read?.kind === "user-message") out.push({ ...base, kind: "user", text: read.body.text });
    else if (read?.kind === "model-output") {
      const b = read.body;
      if (b.toolCalls.length && !b.discarded && b.text) out.push({ ...base, kind: "assistant", text: b.text });
    } else if (read?.kind === "tool-call") out.push({ ...base, kind: "tool-call", text: read.body.arguments, name: read.body.name, callId: read.body.callId });
    else if (read?.kind === "tool-result") {
      const b = read.body;
      out.push({ ...base, kind: "tool-result", text: b.content, name: b.name, status: b.status, callId: b.callId });
    } else if (read?.kind === "agent-reply") out.push({ ...base, kind: "assistant", text: read.body.text, status: read.body.stopReason ?? "" });
  }
  return out;
}

export function channelMethods(kernel: Kernel): Record<string, (params: unknown, plugin: string) => unknown> {
  const running = new Map<string, AbortController>();
  const key = (plugin: string, stream: string) => `${plugin}\u0000${stream}`;
  const builtinOnly = (plugin: string, what: string) => {
    if (!kernel.supervisor.isBuiltin(plugin)) throw new HomedError("invalid_params", `${what} is reserved to built-in plugins; ${plugin} is not one`);
  };
  return {
    [ChannelMethod.ChatSend]: async (params, plugin) => {
      const p = parse(ChannelChatParams, params);
      const proc = kernel.supervisor.process(plugin);
      if (!proc) throw new HomedError("invalid_params", `${plugin} is not running`);
      const ac = new AbortController();
      const k = key(plugin, p.stream);
      running.set(k, ac);
      const forget = proc.rpc.onClose(() => ac.abort());
      const sink: TurnSink = {
        event: (event) => proc.rpc.notify(ChannelMethod.ChatEvent, { stream: p.stream, event }),
        ask: p.interactive
          ? async (q) => {
              const raw = await proc.rpc.request(ChannelMethod.ChatApprove, { stream: p.stream, ...q }, { timeoutMs: kernel.config.approval.timeout_ms });
              return typeof raw === "object" && raw !== null && (raw as { approved?: unknown }).approved === true;
            }
          : undefined,
      };
      try {
        const result = await kernel.agent.run({ conv: p.conv, channel: p.channel, text: p.text, untrusted: p.untrusted }, sink, ac.signal);
        return { ...result, conversation: kernel.store.conversationUsage(p.conv) };
      } finally {
        running.delete(k);
        forget();
      }
    },
    [ChannelMethod.ChatCancel]: (params, plugin) => {
      const ac = running.get(key(plugin, parse(ChannelCancelParams, params).stream));
      ac?.abort();
      return { cancelled: ac !== undefined };
    },
    [ChannelMethod.ConversationsList]: () => kernel.store.listConversations(),
    [ChannelMethod.ConversationsMessages]: (params) => {
      const p = parse(ConvParams, params);
      return transcript(kernel.store.recentConversationEvents(p.conv, p.limit));
    },
    [ChannelMethod.ContextGet]: (params): ContextView => {
      const c = kernel.agent.lastContext(parse(ContextParams, params).conv);
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
          score: c.items[i]?.score ?? null,
          pinned: c.items[i]?.pinned ?? false,
          tokens: estimateTokens(m.content),
          ...(m.role === "assistant" && m.toolCalls ? { toolCalls: m.toolCalls } : {}),
          ...(m.role === "tool" ? { name: m.name } : {}),
        })),
      };
    },
    [ChannelMethod.LlmGet]: () => kernel.llm.view(),
    [ChannelMethod.LlmSet]: (params, plugin) => {
      builtinOnly(plugin, "changing the model provider");
      return kernel.llm.set(parse(LlmSetParams, params));
    },
    [ChannelMethod.LlmTest]: (_params, plugin) => {
      builtinOnly(plugin, "testing the model provider");
      return testModel(kernel);
    },
  };
}
