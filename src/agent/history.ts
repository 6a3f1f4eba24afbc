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
 * past (the log stays the source of truth; the cache can always be rebuilt). Turns in L2 keep
 * only their event ids and cost and are read back from the log when recall wants them, so
 * what a conversation holds in memory is bounded by its context budget, not by its length.
 */
import * as v from "valibot";
import type { ChatMessage, ToolCall } from "../llm/types.ts";
import type { Store, StoredEvent } from "../store/store.ts";
import type { Memory } from "../memory/memory.ts";
import { prune } from "../memory/prune.ts";
import { MAX_TOOL_OUTPUT_CHARS } from "./tool-executor.ts";

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

/** A turn's parsed messages. */
interface TurnBody {
  raw: ChatMessage[];
  hasModel: boolean;
  reply: string | null;
  answered: Set<string>;
  /** Each event's text (for recall snippets). */
  texts: Map<number, { role: string; text: string }>;
  /** Finished messages and their cost, computed once the turn stops changing. */
  final: { msgs: ChatMessage[]; cost: number } | null;
}

interface TurnRecord {
  id: string;
  /** Event ids of the turn. */
  events: number[];
  layer: 1 | 2;
  /**
   * Parsed messages, or null while the turn is cold (L2): a cold turn keeps only its ids and
   * cost, and is read back from the log when recalled, so the memory a conversation holds is
   * bounded by its context budget rather than by its length.
   */
  body: TurnBody | null;
  /** Token cost of the finished messages (null: not known since the last change). */
  cost: number | null;
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

const emptyBody = (): TurnBody => ({ raw: [], hasModel: false, reply: null, answered: new Set(), texts: new Map(), final: null });

/** Fold one event (already parsed) into a turn's messages. */
function applyEvent(t: TurnBody, e: StoredEvent, body: Record<string, unknown>): void {
  t.final = null;
  if (e.kind === "user-message") {
    const b = check(UserBody, body);
    if (b) {
      t.raw.push({ role: "user", content: b.text });
      t.texts.set(e.id, { role: "user", text: b.text });
    }
  } else if (e.kind === "model-output") {
    const b = check(ModelBody, body);
    if (!b || b.discarded || b.failed) return;
    if (b.text) t.texts.set(e.id, { role: "assistant", text: b.text });
    t.hasModel = true;
    const calls: ToolCall[] = b.toolCalls;
    t.raw.push(calls.length ? { role: "assistant", content: b.text, toolCalls: calls } : { role: "assistant", content: b.text });
  } else if (e.kind === "tool-result") {
    const b = check(ToolBody, body);
    if (!b) return;
    t.answered.add(b.callId);
    t.texts.set(e.id, { role: `tool ${b.name}`, text: b.content });
    const content = b.content.length > MAX_TOOL_OUTPUT_CHARS ? b.content.slice(0, MAX_TOOL_OUTPUT_CHARS) : b.content;
    t.raw.push({ role: "tool", toolCallId: b.callId, name: b.name, content, isError: b.status !== "ok" });
  } else if (e.kind === "agent-reply") {
    const b = check(ReplyBody, body);
    if (b && !b.fromModel) t.reply = b.text;
  }
}

/** Add an event to its turn's record; returns the turn, or null for an event of no turn. */
function addEvent(c: ConvRecord, e: StoredEvent): TurnRecord | null {
  const body = parseBody(e.body);
  const turnId = body ? check(Turn, body)?.turn : null;
  if (!body || !turnId) return null;
  let t = c.turns.get(turnId);
  if (!t) {
    t = { id: turnId, events: [], layer: 1, body: emptyBody(), cost: null };
    c.turns.set(turnId, t);
    c.order.push(turnId);
  }
  t.events.push(e.id);
  t.cost = null;
  if (e.layer === 2) t.layer = 2;
  // A cold turn without its body is re-read whole when needed; this event is in the log.
  if (t.body) applyEvent(t.body, e, body);
  return t;
}

function finalizeBody(t: TurnBody): { msgs: ChatMessage[]; cost: number } {
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
    const touched = new Set<TurnRecord>();
    for (const e of this.store.conversationEventsAfter(conv, c.lastId)) {
      const t = addEvent(c, e);
      if (t) touched.add(t);
      c.lastId = e.id;
    }
    for (const t of touched) if (t.layer === 2) this.chill(t);
    return c;
  }

  /** The turn's messages, read back from the log if it is cold; `keep` holds on to them. */
  private bodyOf(t: TurnRecord, keep: boolean): TurnBody {
    if (t.body) return t.body;
    const body = emptyBody();
    for (const e of this.store.eventsByIds(t.events)) {
      const parsed = parseBody(e.body);
      if (parsed) applyEvent(body, e, parsed);
    }
    if (keep) t.body = body;
    return body;
  }

  private finalize(t: TurnRecord): { msgs: ChatMessage[]; cost: number } {
    const f = finalizeBody(this.bodyOf(t, t.layer === 1));
    t.cost = f.cost;
    return f;
  }

  private cost(t: TurnRecord): number {
    return t.cost ?? this.finalize(t).cost;
  }

  /** A turn moved to L2: keep its ids and cost, drop its messages. */
  private chill(t: TurnRecord): void {
    this.cost(t);
    t.body = null;
  }

  /** Turns whose messages are held parsed, over every cached conversation (cold ones are not). */
  get heldTurns(): number {
    let n = 0;
    for (const c of this.convs.values()) for (const t of c.turns.values()) if (t.body) n++;
    return n;
  }

  /** The context of past turns for `input`: pruned to the budget by relevance, with cold recall. */
  assemble(conv: string, budgetTokens: number, excludeTurn: string | undefined, input: string): AssembledHistory {
    const c = this.load(conv);
    const past = c.order.filter((id) => id !== excludeTurn).map((id) => c.turns.get(id) as TurnRecord);
    const l1 = past.filter((t) => t.layer === 1);
    const cost = (t: TurnRecord) => this.cost(t);
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
      for (const t of gone) {
        t.layer = 2;
        this.chill(t);
      }
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
      const candidates = this.memory.peekCold(conv, input, cold.flatMap((t) => t.events), 5).filter((c) => c.score >= RECALL_MIN_SCORE);
      // The turns of the (at most five) candidates, found without indexing every cold event.
      const byEvent = new Map<number, TurnRecord>();
      const wanted = new Set(candidates.map((x) => x.id));
      for (const t of cold) for (const id of t.events) if (wanted.has(id)) byEvent.set(id, t);
      for (const cand of candidates) {
        const t = byEvent.get(cand.id);
        if (!t || recalled.has(t.id) || cost(t) > room) continue;
        t.layer = 1;
        this.bodyOf(t, true);
        this.memory.setLayer(t.events, 1); // Remove from L2 once chosen: it is context again
        recalled.add(t.id);
        room -= cost(t);
        scores ??= new Map();
        scores.set(cand.id, cand.score);
      }
      const touched: number[] = [];
      for (const cand of candidates) {
        const t = byEvent.get(cand.id);
        if (!t || recalled.has(t.id) || room < 24 || snippets.length === 3) continue;
        const ev = this.bodyOf(t, false).texts.get(cand.id);
        if (!ev) continue;
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
      for (const m of this.finalize(t).msgs) {
        messages.push(m);
        items.push({ layer: "L1", recalled: recalled.has(t.id), score: scores ? turnScore(t) : null, pinned: pinned.has(t.id), turn: t.id });
      }
    }
    return { messages, items, snippets, evicted, recalled: recalled.size };
  }
}
