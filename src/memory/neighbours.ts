/**
 * What a turn means through the turns around it, in a conversation between people: a short
 * reply ("Yes! We went last week.") means what the turn it answers says, so each matching turn
 * lends a share of its score to the turns linked to it (ConvIndex.linkNext: adjacent, same
 * session, different speakers), the share the receiver's — a short turn takes more, a long
 * self-contained one almost none. An answer often comes one exchange later, after a short
 * follow-up question ("Ugh, I sprained my ankle." — "Oh no, how?" — "Soccer on Sunday, stepped
 * on the ball."; "We're moving again." — "Where to?" — "Austin."): the turn two away takes a
 * further share through the turn between, scaled by how short that turn is, so a long reply
 * between (an assistant's answer between a person's messages) passes almost nothing on. Between
 * people, the turn after a question answers it, and means what it asks however long it runs
 * ("How often do you swim these days?" — "Most mornings before work. It clears my head, and my
 * shoulder finally stopped hurting …"): it takes the question's whole score (answerShare),
 * scaled by a far longer length (answerLen). The answer to a follow-up question ("I had a
 * picnic with friends from church." — "Fun! What did you get up to?" — "Charades and a scavenger
 * hunt.") takes, the same way, what the question took from the turn it follows up, not the small
 * two-hop share: LoCoMo dev R@10 .804 → .817 (conv-26 .801 → .808, conv-41 .807 → .827; 9
 * questions up, 4 down), chat R@10 EN .926 → .929, ZH .971 → .975, LongMemEval unchanged (its
 * speakers are roles, 2026-12-05). Not an assistant's reply to a person's question:
 * that is advice, or what it was told, and may not answer at all ("?"); it takes a neighbour's
 * share, as before.
 */
import type { ConvIndex } from "./conv-index.ts";

/** See LexicalParams.neighbours, .neighbourLen and .twoHop. */
export interface NeighbourWeights {
  neighbours: number;
  neighbourLen: number;
  twoHop: number;
  answerLen: number;
  answerShare: number;
}

/**
 * `out` (a buffer other than `turn`) = `turn` plus what each turn lends the turns around it.
 * Events from id `askedFrom` on (the asking turn's own: its input matches itself best) lend
 * nothing: the turn before a question is not relevant for having been followed by it.
 */
export function lendToNeighbours(
  ci: ConvIndex,
  turn: Float64Array,
  out: Float64Array,
  w: NeighbourWeights,
  askedFrom = Number.POSITIVE_INFINITY,
): void {
  out.set(turn);
  const len = w.neighbourLen;
  const share = (d: number) => (len > 0 ? (w.neighbours * len) / (len + (ci.lens[d] as number)) : w.neighbours);
  // Through a turn between: the shorter it is, the more passes (a follow-up question).
  const through = (d: number) => (len > 0 ? (w.twoHop * len) / (len + (ci.lens[d] as number)) : w.twoHop);
  // Whether turn d is a person's answer to the question q (see the file's header).
  const answers = (q: number, d: number) => w.answerLen > 0 && ci.asks[q] === 1 && ci.person[d] === 1;
  // What a person's turn after a question takes.
  const answer = (q: number, d: number) =>
    answers(q, d) ? (w.answerShare * w.answerLen) / (w.answerLen + (ci.lens[d] as number)) : share(d);
  const link = ci.linkNext;
  for (let d = 0; d < ci.size; d++) {
    const s = turn[d] as number;
    if (s === 0 || (ci.ids[d] as number) >= askedFrom) continue;
    if (d > 0 && link[d - 1] === 1) {
      out[d - 1] = (out[d - 1] as number) + share(d - 1) * s;
      if (w.twoHop > 0 && d > 1 && link[d - 2] === 1)
        out[d - 2] = (out[d - 2] as number) + through(d - 1) * share(d - 2) * s;
    }
    if (link[d] === 1) {
      out[d + 1] = (out[d + 1] as number) + answer(d, d + 1) * s;
      if (link[d + 1] === 1) {
        // Between people, a question that follows a turn up ("What did you get up to?") means what
        // that turn said, as much as it takes of it; its answer means what the question asks.
        if (answers(d + 1, d + 2)) out[d + 2] = (out[d + 2] as number) + share(d + 1) * answer(d + 1, d + 2) * s;
        else if (w.twoHop > 0) out[d + 2] = (out[d + 2] as number) + through(d + 1) * share(d + 2) * s;
      }
    }
  }
}
