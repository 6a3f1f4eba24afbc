/**
 * The recall note of a turn with the stable graph's facts (src/memory/l3-recall.ts) before the
 * quotes of other conversations: one system message, so the model reads what is known and then
 * what was said. A failure of L3 costs the facts, never the turn.
 */
import type { ContextEntry } from "../memory/context.ts";
import type { FactsRequest, L3Recall } from "../memory/l3-recall.ts";

export function withFacts(
  across: { entry: ContextEntry; tokens: number } | null,
  l3: L3Recall | null | undefined,
  req: FactsRequest,
  log: { warn(msg: string, fields?: Record<string, unknown>): void },
): { entry: ContextEntry; tokens: number } | null {
  if (!l3) return across;
  let facts: ReturnType<L3Recall["note"]> = null;
  try {
    facts = l3.note({ ...req, budgetTokens: req.budgetTokens - (across?.tokens ?? 0) });
  } catch (err) {
    log.warn("L3 facts not recalled; the turn runs without them", { err: (err as Error).message });
  }
  if (!facts) return across;
  if (!across)
    return {
      entry: {
        message: { role: "system", content: facts.content },
        item: {
          layer: "L3",
          recalled: true,
          filled: false,
          reason: "relevant",
          score: 1,
          pinned: false,
          turn: "",
          mark: facts.mark,
        },
      },
      tokens: facts.tokens,
    };
  const content = `${facts.content}\n\n${across.entry.message.content}`;
  return {
    // One message, facts first: the memory page tags it L3 (the quotes of L2 follow in it).
    entry: {
      item: { ...across.entry.item, layer: "L3", mark: across.entry.item.mark ?? facts.mark },
      message: { role: "system", content },
    },
    tokens: across.tokens + facts.tokens,
  };
}
