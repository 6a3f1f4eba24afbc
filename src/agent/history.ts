/**
 * The model's message list, rebuilt from a conversation's events in the log. Until the memory
 * issue brings relevance pruning (L1/L2), older turns are dropped whole, oldest first, when the
 * history would not fit its token budget — never half a turn, since a tool result without the
 * call that asked for it is an error for every provider.
 *
 * `HistoryCache` keeps each recent conversation's turns parsed in memory and reads only the
 * events appended since its last look, so a turn's cost does not grow with the length of the
 * conversation's past (the log stays the source of truth; the cache can always be rebuilt).
 */
import * as v from "valibot";
import type { ChatMessage, ToolCall } from "../llm/types.ts";
import type { Store, StoredEvent } from "../store/store.ts";
import { MAX_TOOL_OUTPUT_CHARS } from "./tool-executor.ts";

/** A rough token estimate (4 characters a token) until real per-event counts exist. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const Turn = v.object({ turn: v.optional(v.nullable(v.string())) });
const UserBody = v.object({ text: v.string() });
const ModelBody = v.object({
  text: v.string(),
  toolCalls: v.optional(v.array(v.object({ id: v.string(), name: v.string(), arguments: v.string() })), []),
  discarded: v.optional(v.boolean(), false),
  failed: v.optional(v.boolean(), false),
});
const ToolBody = v.object({ callId: v.string(), name: v.string(), status: v.string(), content: v.string() });
const ReplyBody = v.object({ text: v.string(), fromModel: v.boolean() });

interface TurnRecord {
  raw: ChatMessage[];
  hasModel: boolean;
  reply: string | null;
  answered: Set<string>;
  /** Finished messages and their cost, computed once the turn stops changing. */
  final: { msgs: ChatMessage[]; cost: number } | null;
}

interface ConvRecord {
  lastId: number;
  order: string[];
  turns: Map<string, TurnRecord>;
}

function parseBody(body: string): Record<string, unknown> | null {
  try {
    const o: unknown = JSON.parse(body);
    return typeof o === "object" && o !== null ? (o as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function check<S extends v.GenericSchema>(schema: S, o: unknown): v.InferOutput<S> | null {
  const r = v.safeParse(schema, o);
  return r.success ? r.output : null;
}

function addEvent(c: ConvRecord, e: StoredEvent): void {
  const body = parseBody(e.body);
  const turnId = body ? check(Turn, body)?.turn : null;
  if (!body || !turnId) return;
  let t = c.turns.get(turnId);
  if (!t) {
    t = { raw: [], hasModel: false, reply: null, answered: new Set(), final: null };
    c.turns.set(turnId, t);
    c.order.push(turnId);
  }
  t.final = null;
  if (e.kind === "user-message") {
    const b = check(UserBody, body);
    if (b) t.raw.push({ role: "user", content: b.text });
  } else if (e.kind === "model-output") {
    const b = check(ModelBody, body);
    if (!b || b.discarded || b.failed) return;
    t.hasModel = true;
    const calls: ToolCall[] = b.toolCalls;
    t.raw.push(calls.length ? { role: "assistant", content: b.text, toolCalls: calls } : { role: "assistant", content: b.text });
  } else if (e.kind === "tool-result") {
    const b = check(ToolBody, body);
    if (!b) return;
    t.answered.add(b.callId);
    const content = b.content.length > MAX_TOOL_OUTPUT_CHARS ? b.content.slice(0, MAX_TOOL_OUTPUT_CHARS) : b.content;
    t.raw.push({ role: "tool", toolCallId: b.callId, name: b.name, content, isError: b.status !== "ok" });
  } else if (e.kind === "agent-reply") {
    const b = check(ReplyBody, body);
    if (b && !b.fromModel) t.reply = b.text;
  }
}

function finalize(t: TurnRecord): { msgs: ChatMessage[]; cost: number } {
  if (t.final) return t.final;
  const msgs: ChatMessage[] = [];
  for (const m of t.raw) {
    if (m.role === "assistant" && m.toolCalls) {
      // A model output whose calls never got results (a crash mid-turn) cannot be replayed as is.
      const calls = m.toolCalls.filter((c) => t.answered.has(c.id));
      msgs.push(calls.length ? { ...m, toolCalls: calls } : { role: "assistant", content: m.content });
    } else msgs.push(m);
  }
  if (!t.hasModel && t.reply !== null) msgs.push({ role: "assistant", content: t.reply });
  const cost = msgs.reduce((n, m) => n + estimateTokens(m.content) + (m.role === "assistant" && m.toolCalls ? m.toolCalls.reduce((k, c) => k + estimateTokens(c.arguments) + 8, 0) : 0) + 4, 0);
  t.final = { msgs, cost };
  return t.final;
}

/** Conversations kept parsed in memory; the least recently used beyond this are dropped. */
const MAX_CACHED_CONVERSATIONS = 32;

export class HistoryCache {
  private readonly convs = new Map<string, ConvRecord>();

  constructor(private readonly store: Store) {}

  /** Messages of past turns (oldest first) that fit `budgetTokens`, without `excludeTurn`. */
  messages(conv: string, budgetTokens: number, excludeTurn?: string): ChatMessage[] {
    let c = this.convs.get(conv);
    if (c) this.convs.delete(conv);
    c ??= { lastId: 0, order: [], turns: new Map() };
    this.convs.set(conv, c); // most recently used last
    if (this.convs.size > MAX_CACHED_CONVERSATIONS) this.convs.delete(this.convs.keys().next().value as string);
    for (const e of this.store.conversationEventsAfter(conv, c.lastId)) {
      addEvent(c, e);
      c.lastId = e.id;
    }
    const kept: ChatMessage[][] = [];
    let used = 0;
    for (let i = c.order.length - 1; i >= 0; i--) {
      const id = c.order[i] as string;
      if (id === excludeTurn) continue;
      const f = finalize(c.turns.get(id) as TurnRecord);
      if (used + f.cost > budgetTokens) break;
      used += f.cost;
      kept.push(f.msgs);
    }
    return kept.reverse().flat();
  }
}
