/**
 * Which events are a scene's memories: the event ranges of its member turns, per conversation,
 * sorted, so "is this event a memory of that scene" is a binary search. A turn asked it of every
 * member row it read from the database, on every turn: a scene a person keeps coming back to
 * gathers thousands of member turns, and each turn read them all (docs/BENCHMARKS.md, the turn-overhead entries).
 * The ranges are read once per scene and kept as members join.
 */

/** One scene's member turns: per conversation, [first, last] event ids as flat pairs, by first. */
export type SceneRanges = Map<string, number[]>;

/**
 * Add a member turn's events, keeping the pairs sorted and apart (a new turn almost always goes
 * last; one overlapping its neighbours is merged with them).
 */
export function addRange(ranges: SceneRanges, conv: string, first: number, last: number): void {
  let pairs = ranges.get(conv);
  if (!pairs) {
    pairs = [];
    ranges.set(conv, pairs);
  }
  let at = pairs.length;
  while (at > 0 && (pairs[at - 2] as number) > first) at -= 2;
  let lo = first;
  let hi = last;
  let from = at;
  let to = at;
  if (from > 0 && (pairs[from - 1] as number) >= lo) {
    from -= 2;
    lo = pairs[from] as number;
    hi = Math.max(hi, pairs[from + 1] as number);
  }
  while (to < pairs.length && (pairs[to] as number) <= hi) {
    hi = Math.max(hi, pairs[to + 1] as number);
    to += 2;
  }
  pairs.splice(from, to - from, lo, hi);
}

/** Whether event `id` of `conv` is among the ranges. */
export function inRanges(ranges: SceneRanges, conv: string, id: number): boolean {
  const pairs = ranges.get(conv);
  if (!pairs) return false;
  // The last pair starting at or before `id` (pairs never overlap).
  let lo = 0;
  let hi = pairs.length / 2 - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((pairs[mid * 2] as number) <= id) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found >= 0 && id <= (pairs[found * 2 + 1] as number);
}
