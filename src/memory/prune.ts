/**
 * What of the past fits the context budget. When everything fits, everything stays.
 * Otherwise, in this order, each taking what still fits:
 *   1. pinned: the newest N, N = min(configured N, half the budget ÷ average tokens per item);
 *   2. relevant: items scoring at least `minScore` against the current input, best first;
 *   3. recent: the rest, newest first — items already in context (`warm`) before cold ones, so
 *      that filling the room does not swap the same items in and out of context every turn.
 * Everything not kept moves to L2 — a state change, never a delete.
 *
 * Why N is bounded by the budget: at a 50k window, 5800 tokens per event and a 40000 budget,
 * pinning 10 events needed 58k — more than the budget; every prune "met its target" without
 * freeing space, and recall fell from 44 % to 22 % in the original. Why by half of it: at a
 * small window (1024 tokens, ~500 of budget) the newest turns alone filled the budget and a
 * relevant turn could never come back (the bike/bicycle test). Pinned items are also capped by
 * the budget itself, newest first, so pinning alone can never overflow it.
 */
export interface PruneEvent {
  id: number;
  tokens: number;
}

/** Why an item was kept. */
export type KeptBy = "pinned" | "relevant" | "recent";

export interface PruneResult {
  /** Ids kept in L1, in their original (chronological) order. */
  keep: number[];
  /** Ids not kept (moved to L2), in order. */
  evict: number[];
  pinned: Set<number>;
  /** Why each kept id was kept (empty when everything fit). */
  keptBy: Map<number, KeptBy>;
  /** Ids that scored at least `minScore` but did not fit. */
  relevantLeftOut: number[];
  /** The N actually used. */
  pinnedCount: number;
  usedTokens: number;
}

export interface PruneOptions {
  /** Items scoring below this are not "relevant" and compete by recency only (default: any score > 0). */
  minScore?: number;
  /** Items already in context; they fill the room before cold ones (default: all are). */
  warm?: (id: number) => boolean;
  /** Tokens the recency fill leaves free (for what the caller adds after it). */
  reserve?: (left: PruneResult) => number;
}

/** Share of the budget the pinned newest items may take; the rest is for relevance and recency. */
export const PINNED_SHARE = 0.5;

/** How many of the newest items are exempt from scoring at this budget. */
export function pinnedCount(events: readonly PruneEvent[], budget: number, configured: number): number {
  if (events.length === 0 || budget <= 0) return 0;
  const avg = events.reduce((n, e) => n + e.tokens, 0) / events.length;
  return Math.max(0, Math.min(configured, Math.floor((budget * PINNED_SHARE) / Math.max(avg, 1)), events.length));
}

/**
 * Decide what stays in context. `events` are chronological; `score` gives the relevance of an
 * item to the current input (higher is better; missing = 0).
 */
export function prune(
  events: readonly PruneEvent[],
  budget: number,
  configuredN: number,
  score: (id: number) => number,
  opts: PruneOptions = {},
): PruneResult {
  const total = events.reduce((n, e) => n + e.tokens, 0);
  if (total <= budget)
    return {
      keep: events.map((e) => e.id),
      evict: [],
      pinned: new Set(),
      keptBy: new Map(),
      relevantLeftOut: [],
      pinnedCount: 0,
      usedTokens: total,
    };
  const minScore = opts.minScore ?? Number.MIN_VALUE;
  const warm = opts.warm ?? (() => true);
  const n = pinnedCount(events, budget, configuredN);
  const keptBy = new Map<number, KeptBy>();
  const pinned = new Set<number>();
  let used = 0;
  let limit = budget;
  const take = (e: PruneEvent, by: KeptBy) => {
    if (keptBy.has(e.id) || used + e.tokens > limit) return false;
    keptBy.set(e.id, by);
    used += e.tokens;
    return true;
  };
  for (let i = events.length - 1; i >= 0 && pinned.size < n; i--) {
    const e = events[i] as PruneEvent;
    if (!take(e, "pinned")) break;
    pinned.add(e.id);
  }
  const relevantLeftOut: number[] = [];
  const relevant: { e: PruneEvent; s: number }[] = [];
  for (const e of events) {
    if (pinned.has(e.id)) continue;
    const s = score(e.id);
    if (s >= minScore) relevant.push({ e, s });
  }
  relevant.sort((a, b) => b.s - a.s || b.e.id - a.e.id);
  for (const { e } of relevant) if (!take(e, "relevant")) relevantLeftOut.push(e.id);
  const result = (): PruneResult => ({
    keep: events.filter((e) => keptBy.has(e.id)).map((e) => e.id),
    evict: events.filter((e) => !keptBy.has(e.id)).map((e) => e.id),
    pinned,
    keptBy,
    relevantLeftOut,
    pinnedCount: n,
    usedTokens: used,
  });
  limit -= opts.reserve?.(result()) ?? 0;
  // Warm items first, then cold ones, each newest first.
  for (const pass of [true, false])
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i] as PruneEvent;
      if (warm(e.id) === pass) take(e, "recent");
    }
  return result();
}
