/**
 * L1 context for a turn, assembled by memory: the agent gives the conversation, the
 * input and a token budget; memory decides what of the past the model sees.
 *
 * What is in L1 is the plan, and between plans the context only grows at its end: a turn's
 * history is every L1 turn, in order, the newest after the ones the previous request carried.
 * The provider then reads most of each request from its prompt cache (OpenAI caches a request's
 * longest repeated prefix, Anthropic up to a breakpoint), and the person pays a fraction for it.
 * Relevance still speaks every turn: cold (L2) turns that match the input are quoted in a note
 * the agent sends after the history, where a change costs nothing of the prefix.
 *
 * When the L1 turns no longer fit (with room for that note), the plan is made again, once, to
 * REPLAN_FILL of the budget, so the next turns have room to grow (src/memory/prune.ts): the
 * newest are pinned, then the turns that match the input come back from L1 and L2 alike, best
 * first, then the room left takes the newest others that fit — those already in context before
 * cold ones. A turn scores as its best event. What is left out moves to L2 — a state in
 * event_state, never a delete; what is chosen from L2 is removed from it (back in L1). Relevant
 * turns too large to come back whole lend their best event, cut to the room left, to the note.
 */
import type { Store } from "../store/store.ts";
import { AllFit } from "./all-fit.ts";
import type { Memory } from "./memory.ts";
import { SCENE_BOOST } from "./memory-search.ts";
import { prune } from "./prune.ts";
import { cutToTokens, estimateTokens } from "./tokens.ts";
import { TurnLog, type ContextMessage, type EventText, type LoggedTurn, type TextMark } from "./turn-log.ts";

/**
 * A turn counts as relevant to the input — it enters context before recent turns do — when it
 * scores at least this (scores are normalised to the conversation's best match). Chosen on the
 * real sets with bench/recall/threshold.ts (docs/BENCHMARKS.md, "context assembly fills the
 * budget"): from 0.3 up every set holds evidence above the rate of an arbitrary turn (0.3–0.4:
 * 2.3×, 1.4×, 2.8×, 3.0× on LongMemEval user turns, all turns, chat EN, ZH), while 0.2–0.3 is at
 * or below it on three of the four (0.7×, 0.4×, 0.0×; chat EN 5.6×). A weaker match should not
 * push a recent turn out; it still comes back by recency when there is room.
 */
export const RECALL_MIN_SCORE = 0.3;
/** At most this many snippets of cold events are quoted, each costing its text and this overhead. */
const MAX_SNIPPETS = 3;
const SNIPPET_OVERHEAD_TOKENS = 8;
/** The quotes' one system message: this header, then one line per quote. */
const NOTE_HEADER = "Recalled from earlier in this conversation (cold memory):\n";
/** What the note costs besides its quotes: the header and a message's framing (as TurnLog.messages counts it). */
const NOTE_TOKENS = estimateTokens(NOTE_HEADER) + 4;
/** Below this much room left, no snippet is cut: it would say too little to help. */
const MIN_SNIPPET_ROOM_TOKENS = 24;
/**
 * A new plan fills this share of the budget, and the rest is room for the turns to come: a plan
 * made to the brim would be made again on the next turn, and every plan changes the prefix the
 * provider cached. At 0.6 a 16k window with turns of ~500 tokens is planned again every ~9 turns
 * (bench cost.prefix_reuse_pct, docs/BENCHMARKS.md).
 */
export const REPLAN_FILL = 0.6;
/** Room the plan keeps for the note of cold turns: this share of the budget, at most NOTE_ROOM_MAX. */
const NOTE_ROOM_SHARE = 0.1;
const NOTE_ROOM_MAX = 600;

/** Why a turn is in the assembled context. */
export type ContextReason =
  /** Everything fit: nothing had to be chosen. */
  | "all"
  /** One of the newest turns, kept regardless of relevance. */
  | "pinned"
  /** It matches the input (score at least RECALL_MIN_SCORE). */
  | "relevant"
  /** Room was left after the pinned and relevant turns: the newest others that fit. */
  | "recent"
  /** In L1 since the plan was made (or said since): between plans the context only grows at its end. */
  | "kept";

/** What memory knows of one message of the assembled context (the memory page shows it). */
export interface ContextItem {
  layer: "L1" | "L2" | "L3";
  /** It was in L2 and came back because it matches the input. */
  recalled: boolean;
  /** It was in L2 and came back without matching the input: to fill room left (by recency). */
  filled: boolean;
  reason: ContextReason;
  /** Relevance to the input when the turn was scored (null: not scored, everything fit). */
  score: number | null;
  pinned: boolean;
  turn: string;
  /** Untrusted text in it (the newest marked event and its source); null: trusted. */
  mark: TextMark | null;
}

export interface ContextEntry {
  message: ContextMessage;
  item: ContextItem;
}

export interface AssembledContext {
  /** Past turns that fit, in chronological order, each message with what memory knows of it. */
  history: ContextEntry[];
  /**
   * Events that match the input but whose whole turn did not fit, quoted (cut to the room
   * left) in one system message for the model; null when there are none.
   */
  recalledNote: ContextEntry | null;
  /** Estimated tokens of the history and the note: what of the budget they take. */
  tokens: number;
  /** Turns moved to L2 by this assembly, and turns brought back from it (recalled or filled). */
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
  /**
   * How well the scenes the turn is in claim an event (src/memory/scenes.ts TurnScenes.memoryOf):
   * a relevant turn of the situation the person is in ranks above one that matches as well.
   */
  boost?: (id: number, conv: string) => number;
}

/** Event scores of one assembly; a turn scores as its best event. */
type Scores = Map<number, number>;
function turnScore(t: LoggedTurn, scores: Scores | null): number {
  let best = 0;
  for (const id of t.events) best = Math.max(best, scores?.get(id) ?? 0);
  return best;
}

interface Snippet {
  role: string;
  text: string;
  score: number;
  id: number;
  /** Its turn's mark: a quote of untrusted text marks the note. */
  mark: TextMark | null;
}

export class ConversationContext {
  /** The conversations' turns as memory holds them (what is parsed, what is cold). */
  readonly log: TurnLog;
  /** The context when everything fits, kept from turn to turn. */
  private readonly allFit: AllFit;

  constructor(
    private readonly store: Store,
    /** Relevance and cold recall; null: the newest turns that fit, nothing recalled. */
    private readonly memory: Memory | null,
    /** The newest turns exempt from relevance pruning (capped by half the budget ÷ average). */
    private readonly pinnedRecent = 10,
  ) {
    this.log = new TurnLog(store, memory ? (ids, layer) => memory.setLayer(ids, layer) : null);
    this.allFit = new AllFit(this.log);
  }

  /**
   * The context of past turns for `req.input`, filling the budget (src/memory/prune.ts): when
   * every turn fits, all of them; otherwise the newest pinned, then the turns relevant to the
   * input from L1 and L2 alike, then — the room left is never wasted — the newest others that
   * fit, those already in context first. Whole turns only, in chronological order. Turns left
   * out move to L2; turns chosen from L2 are removed from it (back in L1), and the next assembly
   * decides again. Relevant turns too large for the room lend their best event, cut to fit.
   */
  async assemble(req: ContextRequest): Promise<AssembledContext> {
    await this.memory?.prepare(req.input);
    // A forgotten conversation's turns so far are not its context any more (Store.forgetConversation).
    const forgotten = this.store.forgottenBounds().get(req.conv) ?? 0;
    const turns = this.log.turns(req.conv);
    const all = this.allFit.take({ ...req, forgotten }, turns, this.log.takeFirstChanged(req.conv));
    if (all) return { ...all, recalledNote: null, evicted: 0, recalled: 0 };
    const past = turns.filter(
      (t) => t.id !== req.excludeTurn && t.layer !== 3 && (t.events[0] ?? Number.POSITIVE_INFINITY) > forgotten,
    );
    const total = past.reduce((n, t) => n + this.log.cost(t), 0);
    if (total <= req.budgetTokens) {
      // Everything fits, cold turns too (without them, allFit answered): nothing is scored.
      const cold = past.filter((t) => t.layer === 2);
      this.log.moveTurns(cold, 1);
      const back = new Set(cold.map((t) => t.id));
      const history = this.entries(past, (t) => ({
        layer: "L1",
        recalled: false,
        filled: back.has(t.id),
        reason: "all",
        score: null,
        pinned: false,
        turn: t.id,
        mark: t.mark,
      }));
      return { history, recalledNote: null, tokens: total, evicted: 0, recalled: cold.length };
    }
    const scores =
      this.memory && req.input
        ? normalised(
            this.memory.score(
              req.conv,
              req.input,
              past.flatMap((t) => t.events),
            ),
          )
        : null;
    const boost = req.boost;
    // As in memory search: a turn that matches gains by how well the active scene claims it.
    const turnScores = past.map((t) => {
      const s = turnScore(t, scores);
      if (!boost || s <= 0) return s;
      let claim = 0;
      for (const id of t.events) claim = Math.max(claim, boost(id, req.conv));
      return s + SCENE_BOOST * claim;
    });
    const planned = this.keepPlan(req, past, turnScores, scores);
    if (planned) return planned;
    const score = (i: number) => turnScores[i] as number;
    let snippets: Snippet[] = [];
    // The plan leaves room to grow; the note of turns too large to come back whole takes that
    // room first, and only what it needs beyond it comes out of the plan's own share.
    const target = Math.floor(req.budgetTokens * REPLAN_FILL);
    const r = prune(
      past.map((t, i) => ({ id: i, tokens: this.log.cost(t) })),
      target,
      this.pinnedRecent,
      score,
      {
        minScore: RECALL_MIN_SCORE,
        warm: (i) => (past[i] as LoggedTurn).layer === 1,
        // Quotes of relevant turns too large to come back whole go before recent turns.
        reserve: (left) => {
          snippets = quote(
            left.relevantLeftOut.map((i) => past[i] as LoggedTurn),
            scores,
            req.budgetTokens - left.usedTokens - NOTE_TOKENS,
            (t, id) => this.log.text(t, id),
          );
          if (snippets.length === 0) return 0;
          const note = snippets.reduce((n, x) => n + estimateTokens(x.text) + SNIPPET_OVERHEAD_TOKENS, NOTE_TOKENS);
          return Math.max(0, note - (req.budgetTokens - target));
        },
      },
    );
    const at = (i: number) => past[i] as LoggedTurn;
    const kept = r.keep.map(at);
    const gone = r.evict.map(at).filter((t) => t.layer === 1);
    const back = kept.filter((t) => t.layer === 2);
    const wasCold = new Set(back.map((t) => t.id));
    this.log.moveTurns(gone, 2);
    this.log.moveTurns(back, 1); // Remove from L2 once chosen: it is context again
    this.memory?.touch(snippets.map((x) => x.id));
    const reasonOf = new Map(r.keep.map((i) => [at(i).id, r.keptBy.get(i) ?? "recent"]));
    const history = this.entries(kept, (t) => {
      const reason = reasonOf.get(t.id) ?? "recent";
      return {
        layer: "L1",
        recalled: wasCold.has(t.id) && reason === "relevant",
        filled: wasCold.has(t.id) && reason !== "relevant", // recent, or pinned after the budget shrank
        reason,
        score: scores ? turnScore(t, scores) : null,
        pinned: reason === "pinned",
        turn: t.id,
        mark: t.mark,
      };
    });
    const note = recalledNote(snippets);
    return {
      history,
      recalledNote: note,
      tokens: r.usedTokens + noteTokens(note),
      evicted: gone.length,
      recalled: back.length,
    };
  }

  /**
   * The plan as it stands, when it still fits: every L1 turn, the newest last, and the cold turns
   * that match the input quoted in the note (the room the plan left is theirs). Null when the
   * plan must be made again: the L1 turns outgrew the budget (with room for the note), or the
   * budget grew so far (another model) that they fill less than half of what a new plan would
   * and a cold turn could come back.
   */
  private keepPlan(
    req: ContextRequest,
    past: readonly LoggedTurn[],
    turnScores: readonly number[],
    scores: Scores | null,
  ): AssembledContext | null {
    const warm = past.filter((t) => t.layer === 1);
    const used = warm.reduce((n, t) => n + this.log.cost(t), 0);
    const noteRoom = Math.min(NOTE_ROOM_MAX, Math.floor(req.budgetTokens * NOTE_ROOM_SHARE));
    if (used + noteRoom > req.budgetTokens) return null;
    const target = Math.floor(req.budgetTokens * REPLAN_FILL);
    if (used < target / 2 && past.some((t) => t.layer === 2 && this.log.cost(t) <= target - used)) return null;
    const relevant = past.filter((t, i) => t.layer === 2 && (turnScores[i] as number) >= RECALL_MIN_SCORE);
    // At most the room a note is kept: what it quotes is sent anew each turn, never from the cache.
    const room = Math.min(req.budgetTokens - used, NOTE_ROOM_MAX) - NOTE_TOKENS;
    const snippets = quote(relevant, scores, room, (t, id) => this.log.text(t, id));
    this.memory?.touch(snippets.map((x) => x.id));
    const scoreOf = new Map(past.map((t, i) => [t.id, turnScores[i] as number]));
    const history = this.entries(warm, (t) => ({
      layer: "L1",
      recalled: false,
      filled: false,
      reason: "kept",
      score: scores ? (scoreOf.get(t.id) ?? 0) : null,
      pinned: false,
      turn: t.id,
      mark: t.mark,
    }));
    const note = recalledNote(snippets);
    return { history, recalledNote: note, tokens: used + noteTokens(note), evicted: 0, recalled: 0 };
  }

  /**
   * Remove from L2 the turns of `conv` that hold any of `eventIds` (memory_search brought them
   * back): they are context again from the next assembly on. Returns the event ids of the
   * turns moved; events already in L1, or of other conversations, are left as they are.
   */
  restore(conv: string, eventIds: readonly number[]): number[] {
    return this.moveCold(conv, eventIds, 1);
  }

  /**
   * Distilled into L3 (src/memory/distill.ts): the cold turns of `conv` holding any of
   * `eventIds` leave L2 for good — the log keeps them, their blocks' holder becomes L3, and no
   * assembly or recall brings them back. Returns the event ids moved (turns in L1 are left).
   */
  distilled(conv: string, eventIds: readonly number[]): number[] {
    return this.moveCold(conv, eventIds, 3);
  }

  /** The cold (L2) turns of `conv` holding any of `eventIds`, moved to `layer`; their event ids. */
  private moveCold(conv: string, eventIds: readonly number[], layer: 1 | 3): number[] {
    const wanted = new Set(eventIds);
    const cold = this.log.turns(conv).filter((t) => t.layer === 2 && t.events.some((id) => wanted.has(id)));
    this.log.moveTurns(cold, layer);
    return cold.flatMap((t) => t.events);
  }

  /** The messages of `turns`, each with its turn's item (one item per turn, shared, read-only). */
  private entries(turns: readonly LoggedTurn[], item: (t: LoggedTurn) => ContextItem): ContextEntry[] {
    const out: ContextEntry[] = [];
    for (const t of turns) {
      const it = item(t);
      for (const message of this.log.messages(t).msgs) out.push({ message, item: it });
    }
    return out;
  }
}

/**
 * Scores divided by their best, so the best past event scores 1. Memory normalises by the best
 * of the whole conversation, and the input being answered is already in it: it matches itself
 * best, and every past turn's score shrank by however well the input matched itself — the bike
 * turn missed the cut for "What colour is my bicycle?", though nothing in the past matched better. The cut was measured on the past alone (bench/recall/threshold.ts).
 */
function normalised(scores: Scores): Scores {
  let max = 0;
  for (const s of scores.values()) if (s > max) max = s;
  if (max <= 0 || max === 1) return scores;
  for (const [id, s] of scores) scores.set(id, s / max);
  return scores;
}

/**
 * The best-matching event of each of `turns` (relevant, but too large to come back whole), best
 * first, cut to `room`: at most MAX_SNIPPETS, none when less than MIN_SNIPPET_ROOM_TOKENS is left.
 * Texts are read (`textOf`, from the log for a cold turn) only for the events quoted.
 */
function quote(
  turns: readonly LoggedTurn[],
  scores: Scores | null,
  room: number,
  textOf: (t: LoggedTurn, id: number) => EventText | undefined,
): Snippet[] {
  if (!scores || turns.length === 0) return [];
  // A turn's best event with a text: by score, the earliest of equals (events without a text,
  // such as a failed model output, are passed over for the next best).
  const bestOf = (t: LoggedTurn): Snippet | null => {
    const ranked = t.events
      .map((id) => ({ id, s: scores.get(id) ?? 0 }))
      .filter((x) => x.s > 0)
      .sort((a, b) => b.s - a.s || a.id - b.id);
    for (const x of ranked) {
      const ev = textOf(t, x.id);
      if (ev) return { role: ev.role, text: ev.text, score: x.s, id: x.id, mark: t.mark };
    }
    return null;
  };
  const best: { t: LoggedTurn; id: number; score: number }[] = [];
  for (const t of turns) {
    let top: { t: LoggedTurn; id: number; score: number } | null = null;
    for (const id of t.events) {
      const s = scores.get(id) ?? 0;
      if (s > 0 && (!top || s > top.score)) top = { t, id, score: s };
    }
    if (top) best.push(top);
  }
  best.sort((a, b) => b.score - a.score || b.id - a.id);
  const out: Snippet[] = [];
  for (const x of best) {
    if (room < MIN_SNIPPET_ROOM_TOKENS || out.length === MAX_SNIPPETS) break;
    const top = bestOf(x.t);
    if (!top) continue;
    const text = cutToTokens(top.text, room - SNIPPET_OVERHEAD_TOKENS);
    if (!text) continue;
    out.push({ ...top, text: text.length < top.text.length ? `${text}…` : text });
    room -= estimateTokens(text) + SNIPPET_OVERHEAD_TOKENS;
  }
  return out;
}

/** What the note costs, as TurnLog.messages counts a message. */
const noteTokens = (note: ContextEntry | null) => (note ? estimateTokens(note.message.content) + 4 : 0);

function recalledNote(snippets: readonly Snippet[]): ContextEntry | null {
  if (snippets.length === 0) return null;
  return {
    message: {
      role: "system",
      content: NOTE_HEADER + snippets.map((x) => `- ${x.role}: ${x.text}`).join("\n"),
    },
    item: {
      layer: "L2",
      recalled: true,
      filled: false,
      reason: "relevant",
      score: Math.max(...snippets.map((x) => x.score)),
      pinned: false,
      turn: "",
      mark: snippets.find((x) => x.mark)?.mark ?? null,
    },
  };
}
