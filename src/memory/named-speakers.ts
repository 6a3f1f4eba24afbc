/**
 * A question that names one of the people of a dialogue ("What did Caroline paint?") asks about
 * what that person did, and people tell what they did in their own turns ("I painted a lake at
 * dawn"), in the first person, rarely by name; the other's turns name them to address them ("Hey
 * Caroline!"), which says nothing of the topic (LexicalParams.nameInText). So the turns a named
 * person said count more, as a factor on their score: a turn of theirs that says nothing the
 * question asks gains nothing, where an added weight (what a role such as "assistant" still
 * takes, LexicalParams.speaker) lifted every turn of theirs alike.
 */
import { type ConvIndex, PostingsCursor } from "./conv-index.ts";
import { hanParts } from "./han-parts.ts";

/** Scale `scores` of the turns said by a person the query `terms` name by 1 + `boost`; in place. */
export function favourNamedSpeakers(
  ci: ConvIndex,
  terms: readonly string[],
  boost: number,
  withHanParts: boolean,
  scores: Float64Array,
): void {
  if (boost <= 0 || ci.names.size === 0) return;
  const named = new Set(terms.filter((t) => ci.names.has(t)));
  // A Chinese name jieba joined to the next character (王芳订) names the person too.
  if (withHanParts) for (const part of hanParts(ci, terms)) if (ci.names.has(part)) named.add(part);
  if (named.size === 0) return;
  const seen = new Uint8Array(ci.size);
  for (const t of named) {
    const p = ci.speakers.get(t);
    if (!p) continue;
    const c = new PostingsCursor(p);
    // A turn whose speaker's name holds two of the terms ("Ana Lima") is scaled once.
    while (c.next())
      if (seen[c.doc] === 0) {
        seen[c.doc] = 1;
        scores[c.doc] = (scores[c.doc] as number) * (1 + boost);
      }
  }
}
