/**
 * A conversation's turns as the model reads them, rebuilt from its events in the log. The unit
 * is a turn — never half a turn, since a tool result without the call that asked for it is an
 * error for every provider.
 *
 * `TurnLog` keeps each recent conversation's turns in memory and reads only the events appended
 * since its last look, so a turn's cost does not grow with the conversation's past (the log
 * stays the source of truth; the cache can always be rebuilt). Only turns in context (L1) keep
 * what they say parsed; a cold turn (L2) keeps its event ids and token cost, and its messages
 * and texts are read back from the log when it is recalled or quoted — so what a conversation
 * holds parsed is bounded by its context budget, not by its length. A turn's layer is written in
 * one place, `moveTurns`, which changes the cached turn and `event_state` together.
 */
import { userMessageText } from "../protocol/attachments.ts";
import { MAX_TOOL_OUTPUT_CHARS, readEventBody, type EventBody } from "../protocol/event-bodies.ts";
import type { Store, StoredEvent } from "../store/store.ts";
import { chunkRole } from "./attachment-chunks.ts";
import { estimateTokens } from "./tokens.ts";

type ToolCallMessage = EventBody<"model-output">["toolCalls"][number];

/** A message of the assembled context, in the shape every provider takes (llm's ChatMessage). */
export type ContextMessage =
  | { role: "system"; content: string }
  | {
      role: "user";
      content: string;
      /** Images the person attached, by block (the agent decides which go with their bytes). */
      images?: { sha256: string; mime: string }[];
    }
  | { role: "assistant"; content: string; toolCalls?: ToolCallMessage[] }
  | {
      role: "tool";
      toolCallId: string;
      name: string;
      content: string;
      isError?: boolean;
      /** Images the tool returned, by block (the agent decides which go with their bytes). */
      images?: { sha256: string; mime: string }[];
    };

/** What one event of a turn says, as a recall snippet quotes it. */
export interface EventText {
  role: string;
  text: string;
}

/** What a turn says, parsed from its events. */
interface TurnContent {
  /** Each event's text, by id (what a recall snippet quotes). */
  texts: Map<number, EventText>;
  /** Messages as the events gave them, before unanswered tool calls are dropped. */
  raw: ContextMessage[];
  /** A model output of the turn survived (else the reply stands in for the model's answer). */
  hasModel: boolean;
  /** The reply when no model wrote it (blocked, short-circuited). */
  reply: string | null;
  /**
   * The turn ended in an error. Its reply ("The model call failed…") is for the person, never
   * for the model: a failed turn without model output is not replayed at all.
   */
  failed: boolean;
  /** Call ids the turn's model outputs asked for. */
  called: Set<string>;
  /** Call ids that have a result. */
  answered: Set<string>;
  /** Finished messages and their cost, computed once the turn stops changing. */
  final: { msgs: ContextMessage[]; cost: number } | null;
}

/**
 * The newest event of a turn that carries the untrusted mark (Store: events.mark), and where its
 * text came from: while the turn is in what the model is sent, the conversation is marked.
 */
export interface TextMark {
  event: number;
  source: string;
}

export interface LoggedTurn {
  readonly id: string;
  readonly conv: string;
  /** Its place in the conversation's list of turns. */
  readonly index: number;
  /** Event ids of the turn, in order. */
  readonly events: number[];
  /** 1 context, 2 cold, 3 distilled into L3 (never context again; the log keeps it). */
  layer: 1 | 2 | 3;
  /** What the turn says; null while it is cold (read back from the log on demand). */
  content: TurnContent | null;
  /** Estimated tokens of its messages, kept when the content is dropped. */
  cost: number | null;
  /** Its newest marked event (null: all of it is trusted), kept when the content is dropped. */
  mark: TextMark | null;
}

interface LoggedConversation {
  lastId: number;
  /** Its turns in order (handed out as is: no copy of a long conversation on every turn). */
  list: LoggedTurn[];
  turns: Map<string, LoggedTurn>;
  /** The index of the first turn changed (events, layer, content) since `takeFirstChanged`. */
  firstChanged: number;
}

/** Conversations kept in memory; the least recently used beyond this are dropped. */
const MAX_CACHED_CONVERSATIONS = 32;

const emptyContent = (): TurnContent => ({
  texts: new Map(),
  raw: [],
  hasModel: false,
  reply: null,
  failed: false,
  called: new Set(),
  answered: new Set(),
  final: null,
});

/** Fold one event into a turn's content (events of other kinds, or without a turn, say nothing). */
function applyEvent(t: TurnContent, e: StoredEvent): void {
  const read = readEventBody(e.kind, e.body);
  if (!read) return;
  t.final = null;
  if (read.kind === "user-message") {
    const b = read.body;
    const content = userMessageText(b.text, b.attachments);
    const pictures = (b.attachments ?? []).filter((a) => a.kind === "image");
    const images = pictures.length ? { images: pictures.map(({ sha256, mime }) => ({ sha256, mime })) } : {};
    t.raw.push({ role: "user", content, ...images });
    t.texts.set(e.id, { role: "user", text: content });
  } else if (read.kind === "attachment-chunk") {
    // Never a message (the user message carries the whole text): only what a recall snippet quotes.
    t.texts.set(e.id, { role: chunkRole(read.body), text: read.body.text });
  } else if (read.kind === "model-output") {
    const b = read.body;
    if (b.discarded || b.failed) return;
    if (b.text) t.texts.set(e.id, { role: "assistant", text: b.text });
    t.hasModel = true;
    for (const c of b.toolCalls) t.called.add(c.id);
    t.raw.push(
      b.toolCalls.length
        ? { role: "assistant", content: b.text, toolCalls: b.toolCalls }
        : { role: "assistant", content: b.text },
    );
  } else if (read.kind === "tool-result") {
    const b = read.body;
    t.texts.set(e.id, { role: `tool ${b.name}`, text: b.content });
    // A result for a call this turn's model did not make (a client tool's result, sent by an
    // API client in the next request) has no call to follow: providers reject it as history.
    if (!t.called.has(b.callId)) return;
    t.answered.add(b.callId);
    const content = b.content.length > MAX_TOOL_OUTPUT_CHARS ? b.content.slice(0, MAX_TOOL_OUTPUT_CHARS) : b.content;
    const images = b.images?.length ? { images: b.images.map(({ sha256, mime }) => ({ sha256, mime })) } : {};
    t.raw.push({ role: "tool", toolCallId: b.callId, name: b.name, content, isError: b.status !== "ok", ...images });
  } else if (read.kind === "agent-reply") {
    if (read.body.stopReason === "error") t.failed = true;
    else if (!read.body.fromModel) t.reply = read.body.text;
  }
}

/** The turn an event belongs to, if its kind has one. */
function turnOf(e: StoredEvent): string | null {
  const read = readEventBody(e.kind, e.body);
  return read && "turn" in read.body ? (read.body.turn ?? null) : null;
}

/** A turn's messages as the model reads them, and their estimated cost in tokens. */
function finish(t: TurnContent): { msgs: ContextMessage[]; cost: number } {
  if (t.final) return t.final;
  const msgs: ContextMessage[] = [];
  if (t.failed && !t.hasModel) {
    t.final = { msgs, cost: 0 };
    return t.final;
  }
  for (const m of t.raw) {
    if (m.role === "assistant" && m.toolCalls) {
      // A model output whose calls never got results (a crash mid-turn) cannot be replayed as is.
      const calls = m.toolCalls.filter((c) => t.answered.has(c.id));
      msgs.push(calls.length ? { ...m, toolCalls: calls } : { role: "assistant", content: m.content });
    } else msgs.push(m);
  }
  if (!t.hasModel && t.reply !== null) msgs.push({ role: "assistant", content: t.reply });
  // Handed out turn after turn and never changed: a provider reuses what it wrote for each
  // (src/llm/message-bytes.ts matches them by identity), so a change would go unseen.
  for (const m of msgs) Object.freeze(m);
  const cost = msgs.reduce(
    (n, m) =>
      n +
      estimateTokens(m.content) +
      (m.role === "assistant" && m.toolCalls
        ? m.toolCalls.reduce((k, c) => k + estimateTokens(c.arguments) + 8, 0)
        : 0) +
      4,
    0,
  );
  t.final = { msgs, cost };
  return t.final;
}

export class TurnLog {
  private readonly convs = new Map<string, LoggedConversation>();

  constructor(
    private readonly store: Store,
    /** Writes a layer change to `event_state`; absent, layers live in this cache only. */
    private readonly persistLayer: ((ids: readonly number[], layer: 1 | 2 | 3) => void) | null,
  ) {}

  /** The conversation's turns in order, up to date with the log (read-only: the cache's own list). */
  turns(conv: string): readonly LoggedTurn[] {
    let c = this.convs.get(conv);
    if (c) this.convs.delete(conv);
    c ??= { lastId: 0, list: [], turns: new Map(), firstChanged: 0 };
    this.convs.set(conv, c); // most recently used last
    if (this.convs.size > MAX_CACHED_CONVERSATIONS) this.convs.delete(this.convs.keys().next().value as string);
    const changed = new Set<LoggedTurn>();
    for (const e of this.store.conversationEventsAfter(conv, c.lastId)) {
      c.lastId = e.id;
      const turnId = turnOf(e);
      if (!turnId) continue;
      let t = c.turns.get(turnId);
      if (!t) {
        t = {
          id: turnId,
          conv,
          index: c.list.length,
          events: [],
          layer: 1,
          content: emptyContent(),
          cost: null,
          mark: null,
        };
        c.turns.set(turnId, t);
        c.list.push(t);
      }
      c.firstChanged = Math.min(c.firstChanged, t.index);
      // An event of a turn already cold (a turn still running when another one pruned it).
      t.content ??= this.read(t);
      t.cost = null;
      t.events.push(e.id);
      if (e.mark !== null) t.mark = { event: e.id, source: e.mark };
      if (e.layer === 2 || e.layer === 3) t.layer = Math.max(t.layer, e.layer) as 2 | 3;
      applyEvent(t.content, e);
      changed.add(t);
    }
    for (const t of changed) if (t.layer !== 1) this.cool(t);
    return c.list;
  }

  /**
   * The index of the first turn of `conv` whose events, layer or content changed since the last
   * call (the list's length when none did; 0 after the conversation was read anew). For the one
   * reader that keeps what it built from the turns (src/memory/context.ts, when everything fits).
   */
  takeFirstChanged(conv: string): number {
    const c = this.convs.get(conv);
    if (!c) return 0;
    const first = Math.min(c.firstChanged, c.list.length);
    c.firstChanged = Number.POSITIVE_INFINITY;
    return first;
  }

  /** Where turn `id` is in the list of `conv` (-1: not a turn of it, or not read yet). */
  indexOf(conv: string, id: string): number {
    return this.convs.get(conv)?.turns.get(id)?.index ?? -1;
  }

  /** A turn's messages as the model reads them, and their cost; a cold turn's are read from the log. */
  messages(t: LoggedTurn): { msgs: ContextMessage[]; cost: number } {
    return finish(t.content ?? this.read(t));
  }

  /** Estimated tokens of a turn's messages (known without reading a cold turn back). */
  cost(t: LoggedTurn): number {
    t.cost ??= this.messages(t).cost;
    return t.cost;
  }

  /** What one event of the turn says (a recall snippet), read from the log when the turn is cold. */
  text(t: LoggedTurn, eventId: number): EventText | undefined {
    if (t.content) return t.content.texts.get(eventId);
    if (!t.events.includes(eventId)) return undefined;
    const c = emptyContent();
    for (const e of this.store.eventsByIds([eventId])) applyEvent(c, e);
    return c.texts.get(eventId);
  }

  /**
   * Move whole turns to a layer: the cached turns and their events in the log together. Turns
   * going cold drop what they say (keeping their cost); turns coming back read it from the log.
   */
  moveTurns(turns: readonly LoggedTurn[], layer: 1 | 2 | 3): void {
    if (turns.length === 0) return;
    for (const t of turns) {
      // Distilled is for good: no assembly or recall brings a turn back from L3.
      if (t.layer === 3) continue;
      const c = this.convs.get(t.conv);
      if (c) c.firstChanged = Math.min(c.firstChanged, t.index);
      t.layer = layer;
      if (layer !== 1) this.cool(t);
      else t.content ??= this.read(t);
    }
    this.persistLayer?.(
      turns.filter((t) => t.layer === layer).flatMap((t) => t.events),
      layer,
    );
  }

  /** Drop a cold turn's content, keeping its cost. */
  private cool(t: LoggedTurn): void {
    this.cost(t);
    t.content = null;
  }

  /** A turn's content, parsed again from its events in the log. */
  private read(t: LoggedTurn): TurnContent {
    const c = emptyContent();
    for (const e of this.store.eventsByIds(t.events)) applyEvent(c, e);
    return c;
  }
}
