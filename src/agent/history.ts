/**
 * The model's message list (L1), rebuilt from a conversation's events in the log. The unit is a
 * turn — never half a turn, since a tool result without the call that asked for it is an error
 * for every provider.
 *
 * When the turns in L1 exceed the budget, they are pruned by relevance to the current input
 * (src/memory/prune.ts: the newest N pinned, N = min(configured, budget ÷ average), the rest by
 * score); what does not fit moves to L2 — a state in event_state, never a delete. Then cold
 * recall: L2 is peeked for the input, and the best turn that clears the bar and fits the room
 * left is removed from L2 and put back into L1, in chronological order.
 *
 * `HistoryCache` keeps each recent conversation's turns parsed in memory and reads only the
 * events appended since its last look, so a turn's cost does not grow with the conversation's
 * past (the log stays the source of truth; the cache can always be rebuilt).
 */
import type { ChatMessage, ToolCall } from "../llm/types.ts";
import type { Store, StoredEvent } from "../store/store.ts";
import type { Memory } from "../memory/memory.ts";
import { prune } from "../memory/prune.ts";
import { MAX_TOOL_OUTPUT_CHARS, readEventBody } from "../protocol/event-bodies.ts";

const CJK = /[\u3000-\u9fff\uac00-\ud7af\uf900-\ufaff]/g;

/**
 * A token estimate without the model's tokenizer: a CJK character is about one token, other
 * text about four characters a token.
 */
export function estimateTokens(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  return cjk + Math.ceil((text.length - cjk) / 4);
}

/** A cold turn comes back into context only if it matches the input at least this well. */
export const RECALL_MIN_SCORE = 0.2;

/** One message of the assembled context, as the memory page shows it. */
export interface ContextItem {
  layer: "L1" | "L2";
  /** It was in L2 and cold recall brought it back for this input. */
  recalled: boolean;
  /** Relevance to the input when the turn was scored (null: not scored, nothing was pruned). */
  score: number | null;
  pinned: boolean;
  turn: string;
}

export interface AssembledHistory {
  messages: ChatMessage[];
  items: ContextItem[];
  /**
   * Cold events that match the input but whose whole turn did not fit: their text (cut to the
   * room left), for the turn to show the model as recalled memory.
   */
  snippets: { role: string; text: string; score: number }[];
  /** Turns moved to L2 by this assembly, and turns recalled from it. */
  evicted: number;
  recalled: number;
}

interface TurnRecord {
  id: string;
  raw: ChatMessage[];
  hasModel: boolean;
  reply: string | null;
  answered: Set<string>;
  /** Event ids of the turn, and each event's text (for recall snippets). */
  events: number[];
  texts: Map<number, { role: string; text: string }>;
  layer: 1 | 2;
  /** Finished messages and their cost, computed once the turn stops changing. */
  final: { msgs: ChatMessage[]; cost: number } | null;
}

interface ConvRecord {
  lastId: number;
  order: string[];
  turns: Map<string, TurnRecord>;
}

function addEvent(c: ConvRecord, e: StoredEvent): void {
  const read = readEventBody(e.kind, e.body);
  const turnId = read && "turn" in read.body ? read.body.turn : null;
  if (!read || !turnId) return;
  let t = c.turns.get(turnId);
  if (!t) {
    t = { id: turnId, raw: [], hasModel: false, reply: null, answered: new Set(), events: [], texts: new Map(), layer: 1, final: null };
    c.turns.set(turnId, t);
    c.order.push(turnId);
  }
  t.final = null;
  t.events.push(e.id);
  if (e.layer === 2) t.layer = 2;
  if (read.kind === "user-message") {
    const b = read.body;
    t.raw.push({ role: "user", content: b.text });
    t.texts.set(e.id, { role: "user", text: b.text });
  } else if (read.kind === "model-output") {
    const b = read.body;
    if (b.discarded || b.failed) return;
    if (b.text) t.texts.set(e.id, { role: "assistant", text: b.text });
    t.hasModel = true;
    const calls: ToolCall[] = b.toolCalls;
    t.raw.push(calls.length ? { role: "assistant", content: b.text, toolCalls: calls } : { role: "assistant", content: b.text });
  } else if (read.kind === "tool-result") {
    const b = read.body;
    t.answered.add(b.callId);
    t.texts.set(e.id, { role: `tool ${b.name}`, text: b.content });
    const content = b.content.length > MAX_TOOL_OUTPUT_CHARS ? b.content.slice(0, MAX_TOOL_OUTPUT_CHARS) : b.content;
    t.raw.push({ role: "tool", toolCallId: b.callId, name: b.name, content, isError: b.status !== "ok" });
  } else if (read.kind === "agent-reply") {
    const b = read.body;
    if (!b.fromModel) t.reply = b.text;
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

  constructor(
    private readonly store: Store,
    private readonly memory: Memory | null = null,
    private readonly pinnedRecent = 10,
  ) {}

  private load(conv: string): ConvRecord {
    let c = this.convs.get(conv);
    if (c) this.convs.delete(conv);
    c ??= { lastId: 0, order: [], turns: new Map() };
    this.convs.set(conv, c); // most recently used last
    if (this.convs.size > MAX_CACHED_CONVERSATIONS) this.convs.delete(this.convs.keys().next().value as string);
    for (const e of this.store.conversationEventsAfter(conv, c.lastId)) {
      addEvent(c, e);
      c.lastId = e.id;
    }
    return c;
  }

  /** The context of past turns for `input`: pruned to the budget by relevance, with cold recall. */
  assemble(conv: string, budgetTokens: number, excludeTurn: string | undefined, input: string): AssembledHistory {
    const c = this.load(conv);
    const past = c.order.filter((id) => id !== excludeTurn).map((id) => c.turns.get(id) as TurnRecord);
    const l1 = past.filter((t) => t.layer === 1);
    const cost = (t: TurnRecord) => finalize(t).cost;
    const total = l1.reduce((n, t) => n + cost(t), 0);
    let kept = l1;
    let pinned = new Set<string>();
    let scores: Map<number, number> | null = null;
    let evicted = 0;
    const turnScore = (t: TurnRecord) => Math.max(0, ...t.events.map((id) => scores?.get(id) ?? 0));
    if (total > budgetTokens) {
      if (this.memory) scores = this.memory.score(conv, input, l1.flatMap((t) => t.events));
      const index = new Map(l1.map((t, i) => [i, t]));
      const r = prune(
        l1.map((t, i) => ({ id: i, tokens: cost(t) })),
        budgetTokens,
        this.pinnedRecent,
        (i) => turnScore(index.get(i) as TurnRecord),
      );
      kept = r.keep.map((i) => index.get(i) as TurnRecord);
      pinned = new Set([...r.pinned].map((i) => (index.get(i) as TurnRecord).id));
      const gone = r.evict.map((i) => index.get(i) as TurnRecord);
      for (const t of gone) t.layer = 2;
      this.memory?.setLayer(gone.flatMap((t) => t.events), 2);
      evicted = gone.length;
    }
    // Cold recall: one peek at L2 for this input (nothing moves). The best turns that clear the
    // bar and fit come back whole (removed from L2); turns too large for the room left still
    // lend their best-matching events, cut to fit.
    const recalled = new Set<string>();
    const snippets: AssembledHistory["snippets"] = [];
    const cold = past.filter((t) => t.layer === 2);
    if (this.memory && cold.length && input) {
      let room = budgetTokens - kept.reduce((n, t) => n + cost(t), 0);
      const byEvent = new Map<number, TurnRecord>();
      for (const t of cold) for (const id of t.events) byEvent.set(id, t);
      const candidates = this.memory.peekCold(conv, input, cold.flatMap((t) => t.events), 5).filter((c) => c.score >= RECALL_MIN_SCORE);
      for (const cand of candidates) {
        const t = byEvent.get(cand.id);
        if (!t || recalled.has(t.id) || cost(t) > room) continue;
        t.layer = 1;
        this.memory.setLayer(t.events, 1); // Remove from L2 once chosen: it is context again
        recalled.add(t.id);
        room -= cost(t);
        scores ??= new Map();
        scores.set(cand.id, cand.score);
      }
      const touched: number[] = [];
      for (const cand of candidates) {
        const t = byEvent.get(cand.id);
        const ev = t?.texts.get(cand.id);
        if (!t || !ev || recalled.has(t.id) || room < 24 || snippets.length === 3) continue;
        let text = ev.text;
        while (text.length > 0 && estimateTokens(text) + 8 > room) text = text.slice(0, Math.floor(text.length * 0.8));
        if (!text) continue;
        snippets.push({ role: ev.role, text: text.length < ev.text.length ? text + "…" : text, score: cand.score });
        room -= estimateTokens(text) + 8;
        touched.push(cand.id);
      }
      this.memory.touch(touched);
    }
    const chosen = new Set([...kept.map((t) => t.id), ...recalled]);
    const messages: ChatMessage[] = [];
    const items: ContextItem[] = [];
    for (const t of past) {
      if (!chosen.has(t.id)) continue;
      for (const m of finalize(t).msgs) {
        messages.push(m);
        items.push({ layer: "L1", recalled: recalled.has(t.id), score: scores ? turnScore(t) : null, pinned: pinned.has(t.id), turn: t.id });
      }
    }
    return { messages, items, snippets, evicted, recalled: recalled.size };
  }
}
