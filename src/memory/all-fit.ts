/**
 * When every past turn fits the budget (the usual case with a large window), a turn's context is
 * all of them, and from one turn to the next only the newest turns are new. Building it anew
 * walked every turn and made an entry for each of its messages: at 10k events, ~3,300 turns and
 * ~6,700 messages on every turn (docs/BENCHMARKS.md, the turn-overhead entries). `AllFit` keeps, per conversation,
 * the entries of the turns before the one being answered and adds only the turns that came
 * after; anything else that changed in those turns (a layer, their events, the forgotten mark,
 * the turn log read anew) makes it build them again.
 */
import type { ContextEntry, ContextItem } from "./context.ts";
import type { LoggedTurn, TurnLog } from "./turn-log.ts";

interface Kept {
  /** The turn log's list the entries were made from (a list read anew is another object). */
  list: readonly LoggedTurn[];
  forgotten: number;
  /** Turns of `list` covered by `history`. */
  count: number;
  /** Their estimated tokens. */
  tokens: number;
  history: ContextEntry[];
}

/** Conversations kept (as many as the turn log keeps). */
const MAX_KEPT = 32;

export interface AllFitRequest {
  conv: string;
  budgetTokens: number;
  excludeTurn?: string;
  /** The last event id of what the conversation forgot (0: none). */
  forgotten: number;
}

export class AllFit {
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly log: TurnLog) {}

  /**
   * Every past turn of the conversation, each message with its item, and their estimated tokens,
   * when they all fit the budget and none is cold; else null (the caller assembles it the long way, and nothing is kept).
   * `turns` is the turn log's list now, `changedFrom` its first changed turn since the last call.
   */
  take(
    req: AllFitRequest,
    turns: readonly LoggedTurn[],
    changedFrom: number,
  ): { history: ContextEntry[]; tokens: number } | null {
    let k = this.kept.get(req.conv);
    this.kept.delete(req.conv);
    const excluded = req.excludeTurn ? this.log.indexOf(req.conv, req.excludeTurn) : -1;
    if (
      k &&
      (k.list !== turns ||
        k.forgotten !== req.forgotten ||
        changedFrom < k.count ||
        (excluded >= 0 && excluded < k.count))
    )
      k = undefined;
    const start = k?.count ?? 0;
    // Kept up to the turn being answered: it, and anything after it, may still change.
    const stable = excluded >= start ? excluded : turns.length;
    let tokens = k?.tokens ?? 0;
    let keptTokens = tokens;
    const added: ContextEntry[] = [];
    const after: ContextEntry[] = [];
    for (let i = start; i < turns.length; i++) {
      const t = turns[i] as LoggedTurn;
      if (t.id === req.excludeTurn || t.layer === 3 || !((t.events[0] ?? Number.POSITIVE_INFINITY) > req.forgotten))
        continue;
      // A cold turn comes back when everything fits, which the long way records.
      if (t.layer === 2) return null;
      const cost = this.log.cost(t);
      tokens += cost;
      if (i < stable) keptTokens += cost;
      const item: ContextItem = {
        layer: "L1",
        recalled: false,
        filled: false,
        reason: "all",
        score: null,
        pinned: false,
        turn: t.id,
        mark: t.mark,
      };
      const into = i < stable ? added : after;
      for (const message of this.log.messages(t).msgs) into.push({ message, item });
    }
    if (tokens > req.budgetTokens) return null;
    const history = k ? k.history.concat(added) : added;
    this.kept.set(req.conv, { list: turns, forgotten: req.forgotten, count: stable, tokens: keptTokens, history });
    if (this.kept.size > MAX_KEPT) this.kept.delete(this.kept.keys().next().value as string);
    return { history: history.concat(after), tokens };
  }
}
