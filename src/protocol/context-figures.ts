/**
 * What memory put before the model for a turn: the conversation's earlier messages in the
 * prompt, whether older turns of it were recalled by relevance, whether the person's other
 * conversations (or known facts) were quoted, and the prompt's estimated size against the
 * model's window. The live `context` event (turn-stream.ts), the stored `context` event
 * (event-bodies.ts), read back as the same live event in a transcript, carry it alike.
 */
import * as v from "valibot";

export const ContextFigures = v.object({
  messages: v.number(),
  recalled: v.boolean(),
  across: v.boolean(),
  tokens: v.number(),
  window: v.number(),
});
export type ContextFigures = v.InferOutput<typeof ContextFigures>;
