/**
 * Rebuild the model's message list from a conversation's events in the log. Until the memory
 * issue brings relevance pruning (L1/L2), older turns are dropped whole, oldest first, when the
 * history would not fit its token budget — never half a turn, since a tool result without the
 * call that asked for it is an error for every provider.
 */
import * as v from "valibot";
import type { ChatMessage, ToolCall } from "../llm/types.ts";
import type { StoredEvent } from "../store/store.ts";
import { MAX_TOOL_OUTPUT_CHARS } from "./tool-executor.ts";

/** A rough token estimate (4 characters a token) until real per-event counts exist. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const Turn = v.object({ turn: v.optional(v.nullable(v.string())) });
const UserBody = v.object({ turn: v.optional(v.nullable(v.string())), text: v.string() });
const ModelBody = v.object({
  turn: v.string(),
  text: v.string(),
  toolCalls: v.optional(v.array(v.object({ id: v.string(), name: v.string(), arguments: v.string() })), []),
  discarded: v.optional(v.boolean(), false),
  failed: v.optional(v.boolean(), false),
});
const ToolBody = v.object({ turn: v.optional(v.nullable(v.string())), callId: v.string(), name: v.string(), status: v.string(), content: v.string() });
const ReplyBody = v.object({ turn: v.string(), text: v.string(), fromModel: v.boolean() });

function parse<S extends v.GenericSchema>(schema: S, body: string): v.InferOutput<S> | null {
  try {
    const r = v.safeParse(schema, JSON.parse(body));
    return r.success ? r.output : null;
  } catch {
    return null;
  }
}

/** Messages of past turns (oldest first) that fit `budgetTokens`. Events of `excludeTurn` are skipped. */
export function historyMessages(events: readonly StoredEvent[], budgetTokens: number, excludeTurn?: string): ChatMessage[] {
  const turns = new Map<string, ChatMessage[]>();
  const order: string[] = [];
  const push = (turn: string, m: ChatMessage) => {
    if (!turns.has(turn)) {
      turns.set(turn, []);
      order.push(turn);
    }
    turns.get(turn)!.push(m);
  };
  const hasModel = new Set<string>();
  const answered = new Set<string>();
  for (const e of events) {
    const t = parse(Turn, e.body)?.turn;
    if (!t || t === excludeTurn) continue;
    if (e.kind === "user-message") {
      const b = parse(UserBody, e.body);
      if (b) push(t, { role: "user", content: b.text });
    } else if (e.kind === "model-output") {
      const b = parse(ModelBody, e.body);
      if (!b || b.discarded || b.failed) continue;
      hasModel.add(t);
      const calls: ToolCall[] = b.toolCalls;
      push(t, calls.length ? { role: "assistant", content: b.text, toolCalls: calls } : { role: "assistant", content: b.text });
    } else if (e.kind === "tool-result") {
      const b = parse(ToolBody, e.body);
      if (!b) continue;
      answered.add(b.callId);
      const content = b.content.length > MAX_TOOL_OUTPUT_CHARS ? b.content.slice(0, MAX_TOOL_OUTPUT_CHARS) : b.content;
      push(t, { role: "tool", toolCallId: b.callId, name: b.name, content, isError: b.status !== "ok" });
    } else if (e.kind === "agent-reply") {
      const b = parse(ReplyBody, e.body);
      if (b && !b.fromModel && !hasModel.has(t)) push(t, { role: "assistant", content: b.text });
    }
  }
  // A model output whose tool calls never got results (a crash mid-turn) cannot be replayed as is.
  for (const msgs of turns.values()) {
    for (const m of msgs) {
      if (m.role === "assistant" && m.toolCalls) m.toolCalls = m.toolCalls.filter((c) => answered.has(c.id));
      if (m.role === "assistant" && m.toolCalls?.length === 0) delete m.toolCalls;
    }
  }
  const kept: ChatMessage[][] = [];
  let used = 0;
  for (let i = order.length - 1; i >= 0; i--) {
    const msgs = turns.get(order[i] as string) as ChatMessage[];
    const cost = msgs.reduce((n, m) => n + estimateTokens(m.content) + (m.role === "assistant" && m.toolCalls ? m.toolCalls.reduce((k, c) => k + estimateTokens(c.arguments) + 8, 0) : 0) + 4, 0);
    if (used + cost > budgetTokens) break;
    used += cost;
    kept.unshift(msgs);
  }
  return kept.flat();
}
