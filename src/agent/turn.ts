/**
 * One turn: a message comes in on a channel, the model thinks, tools run, an answer
 * goes out — with plugins acting at each of the seven stages.
 *
 *   on_input → context → pre_action → [model → post_action → (before_toolcall → run →
 *   after_toolcall)*]* → before_output → reply → after_output
 *
 * The inner loop ends when the model stops calling tools, when every call of a round was
 * denied, or at the iteration limit (the reply says which). Every input, model output, tool call
 * and result, and the reply are appended to the log; tokens are counted per turn and per
 * conversation. Nothing a plugin or the model does can throw out of here: failures become the
 * turn's stop reason and a reply the person can read.
 *
 * `runTurn` is the loop; each step it takes is a small function in src/agent/turn-steps.ts.
 */
import type { ExecutionOrigin } from "../protocol/agent.ts";
import type { Attachment } from "../protocol/attachments.ts";
import type { ChatMessage, LanguageModel, ToolCall, ToolSpec, Usage } from "../llm/types.ts";
import type { Store } from "../store/store.ts";
import type { ContextEntry, ContextItem, ConversationContext } from "../memory/context.ts";
import type { PluginCaller } from "./plugin-caller.ts";
import type { StageLog, StageRegistry } from "./stages.ts";
import type { ApprovalQuestion, ToolExecutor } from "./tool-executor.ts";
import type { ApprovalAnswer } from "../protocol/turn-stream.ts";
import type { ToolRegistry } from "./tools.ts";
import type { AgentMetrics } from "./agent-metrics.ts";
import { turnOffer } from "./tool-offer.ts";
import {
  assembleContext,
  beginTurn,
  callModel,
  finish,
  gateInput,
  redirect,
  runTools,
  shapeOutput,
  type TurnScope,
} from "./turn-steps.ts";

/** How a turn ended; every value is a turn's outcome in the daemon's metrics (docs/metrics.md). */
export const TURN_STOP_REASONS = [
  "done",
  "blocked",
  "short_circuit",
  "denied",
  "iteration_limit",
  "error",
  "cancelled",
  /** The model called a client's tool: the calls go back to the client, who runs them. */
  "tool_calls",
] as const;
export type TurnStopReason = (typeof TURN_STOP_REASONS)[number];

/** What a turn streams as it runs (its schema, with the rest of the stream: src/protocol/turn-stream.ts). */
export type { TurnEvent } from "../protocol/turn-stream.ts";
import type { TurnEvent } from "../protocol/turn-stream.ts";

export interface TurnSink {
  event(e: TurnEvent): void;
  /** Ask the person on this channel to approve a tool call. Absent: nobody can be asked. */
  ask?: (q: ApprovalQuestion, signal: AbortSignal) => Promise<ApprovalAnswer>;
}

export interface TurnInput {
  conv: string;
  channel: string;
  text: string;
  /**
   * Files sent with the message (src/protocol/attachments.ts), already stored as blocks with the
   * text read from them: the model reads them with the words (images as images), memory indexes them.
   */
  attachments?: Attachment[];
  untrusted?: boolean;
  /** Untrusted text already in view where the turn starts (a sub-agent's parent's mark): see TurnScope.tainted. */
  mark?: string | null;
  /** The scene key the channel declared (src/protocol/channel.ts SceneKey). */
  scene?: string;
  origin?: ExecutionOrigin;
  /**
   * The conversation as a stateless client keeps it (the /v1 API), before the new input. Given,
   * it stands in for the log's history in the prompt; memory adds its note from other
   * conversations; only the new input and the reply go to the log.
   */
  history?: ChatMessage[];
  /** The new input when it is results of client tools (then `text` may be empty). */
  toolResults?: { callId: string; name: string; content: string }[];
  /** Tools the client runs itself: offered beside homed's own; a call to one ends the turn. */
  clientTools?: ToolSpec[];
  /** A model id of the configured provider to use instead of the configured one. */
  model?: string;
  /**
   * A sub-agent's turn (agent_spawn): the only tools it is offered and may call, its model-call
   * budget, how deep it is, and no quotes from other conversations (its context is the task).
   */
  subAgent?: { tools: ReadonlySet<string>; maxIterations: number; depth: number };
  /**
   * What the scenes the turn is in set (src/memory/scenes.ts): persona texts added to the system
   * prompt, and the only tools it may use (null: not narrowed). A scene only ever narrows.
   */
  sceneSettings?: {
    persona: readonly string[];
    tools: ReadonlySet<string> | null;
    /** The only Agent Skills offered and loadable (null: not narrowed). */
    skills?: ReadonlySet<string> | null;
  };
}

export interface TurnResult {
  turn: string;
  conv: string;
  text: string;
  /** The text was written with untrusted text in view, and where that came from (TurnScope.tainted). */
  mark?: string;
  stopReason: TurnStopReason;
  iterations: number;
  usage: Usage;
  error?: string;
  /** Why the turn failed: an LlmErrorKind, or "no_model" when no provider is configured. */
  errorKind?: string;
  /** With stopReason "tool_calls": the client's calls, for the client to run. */
  toolCalls?: ToolCall[];
}

export interface TurnConfig {
  systemPrompt: string;
  maxIterations: number;
  contextWindow: number;
  /** The most a reply may take (the provider's max_tokens), when the window has that much room. */
  maxOutputTokens: number;
  /** What the history budget leaves the reply (outputReserve): the reply gets at least this. */
  outputReserve: number;
  /** A scene's persona texts: per-turn instructions, sent after the history (src/agent/turn-steps.ts). */
  persona?: readonly string[];
}

/**
 * Tokens the history budget keeps for the reply: an eighth of the window, within [256, the
 * configured maximum]. A quarter of a 16k window is 4k tokens held back on every turn for a reply
 * that rarely needs them; the reply may still take more when the prompt leaves room
 * (turn-steps.ts callModel sends what is actually left, up to the maximum).
 */
export function outputReserve(contextWindow: number, maxOutputTokens: number): number {
  return Math.min(maxOutputTokens, Math.max(256, Math.floor(contextWindow / 8)));
}

export interface TurnDeps {
  store: Store;
  stages: StageRegistry;
  tools: ToolRegistry;
  executor: ToolExecutor;
  /** Memory's L1 context: what of the past the model sees for an input. */
  context: ConversationContext;
  caller: PluginCaller;
  log: StageLog;
  /**
   * Recall across conversations: a note quoting the person's other conversations for `input`
   * and its cost in tokens, or null (untrusted turns, nothing matching). src/memory/cross-recall.ts.
   */
  recallAcross?: (req: {
    conv: string;
    turn: string;
    input: string;
    untrusted: boolean;
    budgetTokens: number;
    /** Texts the prompt already carries (a stateless client's history), not to be quoted again. */
    known?: ReadonlySet<string>;
    /** The conversation's own earlier events are candidates too (a stateless client's turn). */
    includeOwn?: boolean;
    /** The turn's first logged event: its events lend nothing to their neighbours. */
    askedFrom?: number;
  }) => { entry: ContextEntry; tokens: number } | null;
  /** How well the scenes this turn is in claim a memory (none: no boost); src/memory/scenes.ts. */
  sceneBoost?: (id: number, conv: string) => number;
  /** Indexes a logged event for memory as the turn appends it (memory skips events without text). */
  remember?: (eventId: number) => void;
  /** Reads a stored block (a tool-result image) for the model; absent: images are not sent. */
  readBlock?: (sha256: string) => Uint8Array | null;
  /**
   * Told the exact messages and tools of every model call (for "what the model sees"), with what
   * memory knows of each history message (layer, score, pinned); system and input have none.
   */
  onContext?: (
    conv: string,
    turn: string,
    messages: readonly ChatMessage[],
    tools: readonly string[],
    items: readonly (ContextItem | null)[],
  ) => void;
  /**
   * The tools every model call carries with their schemas (src/agent/tool-offer.ts); the rest are
   * named in tools_find's description. Absent: every tool is carried.
   */
  standing?: () => ReadonlySet<string>;
  /**
   * `skill`'s description with the skills named (null: every usable skill), when the turn sends
   * `skill` (src/agent/skill-tools.ts skillToolDescription); null when every usable skill is none.
   */
  describeSkills?: (names: readonly string[] | null) => string | null;
  /** The configured model (or `id` of its provider), or an error message saying why there is none. */
  model(id?: string): LanguageModel | string;
  config(): TurnConfig;
  /** Told of the turn's end, its recall times and (through the executor) its tool calls; absent: nobody is. */
  metrics?: AgentMetrics;
  /** When the turn began (performance.now(), before its scenes were looked up); absent: when runTurn was called. */
  startedAt?: number;
}

export async function runTurn(d: TurnDeps, input: TurnInput, sink: TurnSink, signal: AbortSignal): Promise<TurnResult> {
  const s = beginTurn(d, input, sink, signal);
  applyScene(s, input.sceneSettings);
  // Tool results are not a person's words: on_input sees only text, and the files sent with it.
  const said = input.text || input.attachments?.length;
  const gate = said ? await gateInput(s, input.text, input.attachments) : { stop: null, text: "" };
  if (gate.stop) return await finish(s, gate.reply, gate.stop, false);
  const model = d.model(input.model);
  if (typeof model === "string") return await finish(s, model, "error", false, { message: model, kind: "no_model" });
  // What the calls carry first: the system prompt names the rest.
  s.offered = d.standing ? turnOffer(d.standing(), s.allowed) : null;
  const prompt = await assembleContext(s, gate.text, input);

  let lastText = "";
  for (;;) {
    if (signal.aborted) return await finish(s, lastText, "cancelled", true);
    s.iterations++;
    const out = await callModel(s, model, prompt);
    if (out.end === "aborted") return await finish(s, out.text, "cancelled", true);
    if (out.end === "failed") {
      const failed = `The model call failed: ${out.failure}`;
      return await finish(s, out.text ? withNote(out.text, `[${failed}]`) : failed, "error", false, {
        message: out.failure,
        kind: out.failureKind,
      });
    }

    const shaped = await shapeOutput(s, out);
    if (shaped.redirect !== null) {
      redirect(s, prompt, out, shaped.redirect);
      if (s.iterations < s.cfg.maxIterations) continue;
      const stopped = `I stopped after ${s.iterations} rounds (the iteration limit) without an answer.`;
      return await finish(s, stopped, "iteration_limit", false);
    }
    lastText = shaped.text;
    if (shaped.toolCalls.length === 0) return await finish(s, shaped.text, "done", true);
    // A call to a client's tool hands the round back to the client; homed runs none of its own
    // calls from it (the client's next request carries results for its calls only).
    const forClient = shaped.toolCalls.filter((c) => s.clientTools.has(c.name));
    if (forClient.length) return await finish(s, shaped.text, "tool_calls", true, undefined, forClient);
    if (s.iterations >= s.cfg.maxIterations) {
      const note = `[Stopped: the iteration limit of ${s.cfg.maxIterations} model calls was reached with ${shaped.toolCalls.length} tool call(s) still requested.]`;
      return await finish(s, withNote(shaped.text, note), "iteration_limit", false);
    }

    const denials = await runTools(s, prompt, shaped.text, shaped.toolCalls);
    if (signal.aborted) return await finish(s, shaped.text, "cancelled", true);
    if (denials) {
      const note = `[Every tool call was denied: ${denials.join("; ")}]`;
      return await finish(s, withNote(shaped.text, note), "denied", false);
    }
  }
}

const withNote = (text: string, note: string) => (text ? `${text}\n\n${note}` : note);

/**
 * A scene's persona is said after the history, with what changes per turn (the system prompt
 * stays the same, so the provider's cached prefix does); its tools and skills narrow what the
 * turn may use, never widen it.
 */
function applyScene(s: TurnScope, scene: TurnInput["sceneSettings"]): void {
  if (!scene) return;
  if (scene.persona.length) s.cfg = { ...s.cfg, persona: scene.persona };
  const only = scene.tools;
  if (only) s.allowed = new Set(s.allowed ? [...s.allowed].filter((t) => only.has(t)) : only);
  if (scene.skills) s.skills = scene.skills;
}
