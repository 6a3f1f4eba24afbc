/**
 * A question that adds things up ("How many hours have I spent playing games in total?", "How
 * many kitchen items did I replace?", 我一共花了多少钱?) is answered by several turns told at
 * different times, usually in different sessions, while the other turns of the best-matching
 * session repeat its topic ("Any more games like it?"). Among the best turns, each further turn
 * of a session already ranked counts (1 − spread) times less, chosen greedily as maximal
 * marginal relevance chooses, with "same session" as the likeness: the first turn of every
 * session keeps its score, and a session's second turn still comes before a weaker session's
 * first when it matches better by more than that.
 */
import type { ConvIndex } from "./conv-index.ts";

/** How many of the best turns are reordered; a count rarely needs more than ten. */
const CONSIDERED = 50;

/** Lower, in `scores` (one per document of `ci`), a session's further turns among the best; in place. */
export function spreadSessions(ci: ConvIndex, scores: Float64Array, spread: number): void {
  if (spread <= 0 || ci.sessionCount === 0) return;
  // The best CONSIDERED documents, best first (one pass, insertion into a short sorted list).
  const top: number[] = [];
  for (let d = 0; d < ci.size; d++) {
    const s = scores[d] as number;
    if (s <= 0) continue;
    if (top.length === CONSIDERED && s <= (scores[top[CONSIDERED - 1] as number] as number)) continue;
    if (top.length === CONSIDERED) top.pop();
    let i = top.length;
    top.push(d);
    while (i > 0 && (scores[top[i - 1] as number] as number) < s) {
      top[i] = top[i - 1] as number;
      i--;
    }
    top[i] = d;
  }
  const ranked = new Map<number, number>();
  const left = top.slice();
  const f = 1 - spread;
  const adjusted = (d: number) => {
    const g = ci.sessions[d] as number;
    return g >= 0 ? (scores[d] as number) * f ** (ranked.get(g) ?? 0) : (scores[d] as number);
  };
  // Picked in order of their adjusted score, which only falls as sessions are ranked: the
  // scores written stay in the order picked.
  while (left.length > 0) {
    let at = 0;
    let best = -1;
    for (let i = 0; i < left.length; i++) {
      const s = adjusted(left[i] as number);
      if (s > best) {
        best = s;
        at = i;
      }
    }
    const d = left.splice(at, 1)[0] as number;
    scores[d] = best;
    const g = ci.sessions[d] as number;
    if (g >= 0) ranked.set(g, (ranked.get(g) ?? 0) + 1);
  }
}
