/**
 * What the agent tells the daemon's metrics as it works (docs/metrics.md has the series): a
 * turn's end, memory's time on a turn's context, each tool call's decision at the gate, and how
 * long a person took to answer. The kernel keeps the counters (src/kernel/metrics.ts); the agent
 * only calls these, each once per turn or per call, synchronously and without waiting.
 */
import type { Usage } from "../llm/types.ts";
import type { TurnStopReason } from "./turn.ts";

/**
 * How the gate decided a tool call: `allowed` ran unasked; `asked` went to a person (whatever
 * they answered: approval_wait says); `denied` was refused by a rule, a plugin, a critical plugin
 * being down or nobody to ask; `invalid` could not run as made (no such tool, arguments that do
 * not fit, the tool's own check refused it).
 */
export const TOOL_DECISIONS = ["allowed", "asked", "denied", "invalid"] as const;
export type ToolDecision = (typeof TOOL_DECISIONS)[number];

/** How a question to a person ended: a yes (for this call or the conversation), a no, no answer in time, the turn stopped. */
export const APPROVAL_ANSWERS = ["approved", "declined", "timeout", "cancelled"] as const;
export type ApprovalAnswerKind = (typeof APPROVAL_ANSWERS)[number];

/**
 * Memory's two parts of a turn's context: `across`, quotes from the person's other
 * conversations and L3 facts (src/memory/cross-recall.ts); `conversation`, this conversation's
 * history planned to the budget and its cold turns recalled (src/memory/context.ts).
 */
export const RECALL_PARTS = ["across", "conversation"] as const;
export type RecallPart = (typeof RECALL_PARTS)[number];

export interface TurnEnd {
  channel: string;
  outcome: TurnStopReason;
  usage: Usage;
  /**
   * The daemon's own time on the turn, in seconds: from when it began to its reply, less the
   * model's streams, the tools' runs and the wait for a person's answer (stage handlers in
   * plugins count, as in bench/turn.ts's turn.overhead_ms).
   */
  overheadSeconds: number;
}

export interface AgentMetrics {
  turnFinished(t: TurnEnd): void;
  recall(part: RecallPart, seconds: number): void;
  /** `tool` is a registered tool's name, or null for a name the model made up. */
  toolCall(tool: string | null, decision: ToolDecision): void;
  approvalWait(answer: ApprovalAnswerKind, seconds: number): void;
}
