/**
 * L1 context for a turn (DESIGN §5), assembled by memory: the agent gives the conversation, the
 * input and a token budget; memory decides what of the past the model sees.
 *
 * When the turns in L1 exceed the budget, they are pruned by relevance to the input
 * (src/memory/prune.ts: the newest N pinned, N = min(configured, budget ÷ average), the rest by
 * score, a turn scoring as its best event); what does not fit moves to L2 — a state in
 * event_state, never a delete. Then cold recall: L2 is peeked for the input, and the best turns
 * that clear the bar and fit the room left are removed from L2 and put back into L1, in
 * chronological order. Cold events that match but whose turn is too large lend their text, cut
 * to the room left, as one system message.
 */
import type { Store } from "../store/store.ts";
import type { Memory } from "./memory.ts";
import { prune } from "./prune.ts";
import { estimateTokens } from "./tokens.ts";
import { turnMessages, TurnLog, type ContextMessage, type LoggedTurn } from "./turn-log.ts";

/** A cold turn comes back into context only if it matches the input at least this well. */
export const RECALL_MIN_SCORE = 0.2;
/** Cold events looked at per recall: the peek's k. */
const RECALL_CANDIDATES = 5;
/** At most this many snippets of cold events are quoted, each costing its text and this overhead. */
const MAX_SNIPPETS = 3;
const SNIPPET_OVERHEAD_TOKENS = 8;
/** Below this much room left, no snippet is cut: it would say too little to help. */
const MIN_SNIPPET_ROOM_TOKENS = 24;

/** What memory knows of one message of the assembled context (the memory page shows it). */
export interface ContextItem {
  layer: "L1" | "L2";
  /** It was in L2 and cold recall brought it back for this input. */
  recalled: boolean;
  /** Relevance to the input when the turn was scored (null: not scored, nothing was pruned). */
  score: number | null;
  pinned: boolean;
  turn: string;
}

export interface ContextEntry {
  message: ContextMessage;
  item: ContextItem;
}

export interface AssembledContext {
  /** Past turns that fit, in chronological order, each message with what memory knows of it. */
  history: ContextEntry[];
  /**
   * Cold events that match the input but whose whole turn did not fit, quoted (cut to the room
   * left) in one system message for the model; null when there are none.
   */
  recalledNote: ContextEntry | null;
  /** Turns moved to L2 by this assembly, and turns recalled from it. */
  evicted: number;
  recalled: number;
}

export interface ContextRequest {
  conv: string;
  /** The input the context is for: what relevance and recall are measured against. */
  input: string;
  budgetTokens: number;
  /** A turn not to include (the one being assembled for, whose events are already in the log). */
  excludeTurn?: string;
}

/** Event scores of one assembly; a turn scores as its best event. */
type Scores = Map<number, number>;
const turnScore = (t: LoggedTurn, scores: Scores | null) => Math.max(0, ...t.events.map((id) => scores?.get(id) ?? 0));
const cost = (t: LoggedTurn) => turnMessages(t).cost;

export class ConversationContext {
  private readonly log: TurnLog;

  constructor(
    private readonly store: Store,
    /** Relevance and cold recall; null: the newest turns that fit, nothing recalled. */
    private readonly memory: Memory | null,
    /** The newest turns exempt from relevance pruning (capped by budget ÷ average). */
    private readonly pinnedRecent = 10,
  ) {
    this.log = new TurnLog(store, memory ? (ids, layer) => memory.setLayer(ids, layer) : null);
  }

  /** The context of past turns for `req.input`: pruned to the budget by relevance, with cold recall. */
  async assemble(req: ContextRequest): Promise<AssembledContext> {
    await this.memory?.prepare(req.input);
    // A forgotten conversation's turns so far are not its context any more (Store.forgetConversation).
    const forgotten = this.store.forgottenBounds().get(req.conv) ?? 0;
    const past = this.log
      .turns(req.conv)
      .filter((t) => t.id !== req.excludeTurn && (t.events[0] ?? Number.POSITIVE_INFINITY) > forgotten);
    const l1 = this.pruneToBudget(
      req,
      past.filter((t) => t.layer === 1),
    );
    // Cold is read after pruning: a turn evicted just now may be the best match for the input.
    const cold = past.filter((t) => t.layer === 2);
    const room = req.budgetTokens - l1.kept.reduce((n, t) => n + cost(t), 0);
    const recall = this.recallCold(req, cold, room, l1.scores);
    const chosen = new Set([...l1.kept.map((t) => t.id), ...recall.recalled]);
    const history: ContextEntry[] = [];
    for (const t of past) {
      if (!chosen.has(t.id)) continue;
      const item: ContextItem = {
        layer: "L1",
        recalled: recall.recalled.has(t.id),
        score: recall.scores ? turnScore(t, recall.scores) : null,
        pinned: l1.pinned.has(t.id),
        turn: t.id,
      };
      for (const message of turnMessages(t).msgs) history.push({ message, item }); // one item per turn, shared by its messages (read-only)
    }
    return { history, recalledNote: recall.note, evicted: l1.evicted, recalled: recall.recalled.size };
  }

  /**
   * Remove from L2 the turns of `conv` that hold any of `eventIds` (memory_search brought them
   * back): they are context again from the next assembly on. Returns the event ids of the
   * turns moved; events already in L1, or of other conversations, are left as they are.
   */
  restore(conv: string, eventIds: readonly number[]): number[] {
    const wanted = new Set(eventIds);
    const cold = this.log.turns(conv).filter((t) => t.layer === 2 && t.events.some((id) => wanted.has(id)));
    this.log.moveTurns(cold, 1);
    return cold.flatMap((t) => t.events);
  }

  /** Keep the L1 turns that fit the budget (pinned newest first, then by relevance); the rest go to L2. */
  private pruneToBudget(
    req: ContextRequest,
    l1: LoggedTurn[],
  ): { kept: LoggedTurn[]; pinned: Set<string>; scores: Scores | null; evicted: number } {
    const total = l1.reduce((n, t) => n + cost(t), 0);
    if (total <= req.budgetTokens) return { kept: l1, pinned: new Set(), scores: null, evicted: 0 };
    const events = l1.flatMap((t) => t.events);
    const scores = this.memory ? this.memory.score(req.conv, req.input, events) : null;
    const r = prune(
      l1.map((t, i) => ({ id: i, tokens: cost(t) })),
      req.budgetTokens,
      this.pinnedRecent,
      (i) => turnScore(l1[i] as LoggedTurn, scores),
    );
    const at = (i: number) => l1[i] as LoggedTurn;
    const gone = r.evict.map(at);
    this.log.moveTurns(gone, 2);
    return { kept: r.keep.map(at), pinned: new Set([...r.pinned].map((i) => at(i).id)), scores, evicted: gone.length };
  }

  /**
   * Cold recall: one peek at L2 for the input (nothing moves). The best turns that clear the bar
   * and fit come back whole (removed from L2); turns too large for the room left still lend their
   * best-matching events, cut to fit, and count an access.
   */
  private recallCold(
    req: ContextRequest,
    cold: LoggedTurn[],
    room: number,
    pruneScores: Scores | null,
  ): { recalled: Set<string>; scores: Scores | null; note: ContextEntry | null } {
    const recalled = new Set<string>();
    if (!this.memory || cold.length === 0 || !req.input) return { recalled, scores: pruneScores, note: null };
    let scores = pruneScores;
    const byEvent = new Map<number, LoggedTurn>();
    for (const t of cold) for (const id of t.events) byEvent.set(id, t);
    const candidates = this.memory
      .peekCold(
        req.conv,
        req.input,
        cold.flatMap((t) => t.events),
        RECALL_CANDIDATES,
      )
      .filter((c) => c.score >= RECALL_MIN_SCORE);
    for (const cand of candidates) {
      const t = byEvent.get(cand.id);
      if (!t || recalled.has(t.id) || cost(t) > room) continue;
      this.log.moveTurns([t], 1); // Remove from L2 once chosen: it is context again
      recalled.add(t.id);
      room -= cost(t);
      scores ??= new Map();
      scores.set(cand.id, cand.score);
    }
    const snippets: { role: string; text: string; score: number }[] = [];
    const touched: number[] = [];
    for (const cand of candidates) {
      const t = byEvent.get(cand.id);
      const ev = t?.texts.get(cand.id);
      if (!t || !ev || recalled.has(t.id) || room < MIN_SNIPPET_ROOM_TOKENS || snippets.length === MAX_SNIPPETS)
        continue;
      const text = cutToTokens(ev.text, room - SNIPPET_OVERHEAD_TOKENS);
      if (!text) continue;
      snippets.push({ role: ev.role, text: text.length < ev.text.length ? `${text}…` : text, score: cand.score });
      room -= estimateTokens(text) + SNIPPET_OVERHEAD_TOKENS;
      touched.push(cand.id);
    }
    this.memory.touch(touched);
    return { recalled, scores, note: recalledNote(snippets) };
  }
}

/** The longest prefix (shortened by fifths) whose estimate is within `tokens`; "" if none. */
function cutToTokens(text: string, tokens: number): string {
  let cut = text;
  while (cut.length > 0 && estimateTokens(cut) > tokens) cut = cut.slice(0, Math.floor(cut.length * 0.8));
  return cut;
}

function recalledNote(snippets: readonly { role: string; text: string; score: number }[]): ContextEntry | null {
  if (snippets.length === 0) return null;
  return {
    message: {
      role: "system",
      content:
        "Recalled from earlier in this conversation (cold memory):\n" +
        snippets.map((x) => `- ${x.role}: ${x.text}`).join("\n"),
    },
    item: { layer: "L2", recalled: true, score: Math.max(...snippets.map((x) => x.score)), pinned: false, turn: "" },
  };
}
