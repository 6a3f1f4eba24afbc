/**
 * context/get (src/protocol/channel.ts): what the last model call of a conversation was sent, and
 * what memory knows of each message, as the memory page shows it.
 */
import type { SentContext } from "../../agent/agent.ts";
import { ChannelMethod, ContextParams, type ContextView } from "../../protocol/channel.ts";
import { parseParams } from "../../protocol/parse-params.ts";
import { estimateTokens } from "../../memory/tokens.ts";
import type { KernelServices } from "../kernel-services.ts";
import type { ChannelMethodGroup } from "./channel-group.ts";

/** The context method: any channel plugin may call it. */
export function contextMethods(k: KernelServices): ChannelMethodGroup {
  return {
    [ChannelMethod.ContextGet]: (params): ContextView => {
      const c = k.agent.lastContext(parseParams(ContextParams, params).conv);
      return c ? contextView(c) : null;
    },
  };
}

/**
 * A sent context as the wire shows it: each message with its layer and what memory says of it. A
 * message memory has no item for is placed by its role (system, input, or this turn's own).
 */
export function contextView(c: SentContext): NonNullable<ContextView> {
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
}
