/**
 * One turn (DESIGN §4): a message comes in on a channel, the model thinks, tools run, an answer
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
 */
import type { ExecutionOrigin } from "../protocol/agent.ts";
import { eventOf, type EventKind } from "../protocol/event-bodies.ts";
import type { ChatMessage, LanguageModel, ToolCall, Usage } from "../llm/types.ts";
import type { Store } from "../store/store.ts";
import type { ContextItem, ConversationContext } from "../memory/context.ts";
import { estimateTokens } from "../memory/tokens.ts";
import type { PluginCaller } from "./plugin-caller.ts";
import { runStage, type StageLog, type StageRegistry } from "./stages.ts";
import type { ApprovalQuestion, ToolExecutor } from "./tool-executor.ts";
import type { ToolRegistry } from "./tools.ts";

export type TurnStopReason = "done" | "blocked" | "short_circuit" | "denied" | "iteration_limit" | "error" | "cancelled";

export type TurnEvent =
  | { type: "turn-start"; turn: string; conv: string }
  | { type: "text-delta"; text: string }
  | { type: "text-replace"; text: string }
  | { type: "tool-call"; callId: string; name: string; arguments: string }
  | { type: "tool-result"; callId: string; name: string; status: string; content: string }
  | { type: "notice"; text: string };

export interface TurnSink {
  event(e: TurnEvent): void;
  /** Ask the person on this channel to approve a tool call. Absent: nobody can be asked. */
  ask?: (q: ApprovalQuestion, signal: AbortSignal) => Promise<boolean>;
}

export interface TurnInput {
  conv: string;
  channel: string;
  text: string;
  untrusted?: boolean;
  origin?: ExecutionOrigin;
}

export interface TurnResult {
  turn: string;
  conv: string;
  text: string;
  stopReason: TurnStopReason;
  iterations: number;
  usage: Usage;
  error?: string;
}

export interface TurnConfig {
  systemPrompt: string;
  maxIterations: number;
  contextWindow: number;
  maxOutputTokens: number;
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
  /** Indexes an event's text for memory as the turn appends it. */
  remember?: (eventId: number, conv: string, text: string) => void;
  /**
   * Told the exact messages and tools of every model call (for "what the model sees"), with what
   * memory knows of each history message (layer, score, pinned); system and input have none.
   */
  onContext?: (conv: string, turn: string, messages: readonly ChatMessage[], tools: readonly string[], items: readonly (ContextItem | null)[]) => void;
  /** The configured model, or an error message saying why there is none. */
  model(): LanguageModel | string;
  config(): TurnConfig;
}

export async function runTurn(d: TurnDeps, input: TurnInput, sink: TurnSink, signal: AbortSignal): Promise<TurnResult> {
  const turn = crypto.randomUUID();
  const { conv, channel } = input;
  const untrusted = input.untrusted ?? false;
  const cfg = d.config();
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let iterations = 0;
  const append = (event: { kind: EventKind; body: unknown }, actor = "agent", text?: string) => {
    const r = d.store.append({ conv, actor, untrusted, ...event });
    if (text !== undefined) d.remember?.(r.id, conv, text);
    return r;
  };

  d.store.beginTurn(turn, conv, channel);
  sink.event({ type: "turn-start", turn, conv });
  append(eventOf("user-message", { turn, text: input.text, channel }), "user", input.text);

  const finish = async (text: string, stopReason: TurnStopReason, fromModel: boolean, error?: string): Promise<TurnResult> => {
    const shaped = await runStage(d.stages, d.caller, d.log, "before_output", { conv, channel, text }, (o, p) => (o.result?.text !== undefined ? { payload: { ...p, text: o.result.text } } : { payload: p }));
    if (shaped.text !== text) sink.event({ type: "text-replace", text: shaped.text });
    append(eventOf("agent-reply", { turn, text: shaped.text, fromModel, stopReason, ...(error ? { error } : {}) }), "agent", fromModel ? undefined : shaped.text);
    d.store.finishTurn(turn, { iterations, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, stopReason });
    await runStage(d.stages, d.caller, d.log, "after_output", { conv, channel, text: shaped.text, usage });
    return { turn, conv, text: shaped.text, stopReason, iterations, usage, ...(error ? { error } : {}) };
  };

  // on_input: block, rate-limit, short-circuit, or rewrite the input.
  let inputText = input.text;
  let gate: { kind: "block" | "reply"; text: string } | null = null;
  await runStage(d.stages, d.caller, d.log, "on_input", { conv, channel, text: inputText, untrusted }, (o, p) => {
    const r = o.result;
    if (r?.action === "block") {
      gate = { kind: "block", text: r.reason ? `Not processed: ${r.reason}` : "Not processed." };
      return { payload: p, stop: true };
    }
    if (r?.action === "reply") {
      gate = { kind: "reply", text: r.text ?? "" };
      return { payload: p, stop: true };
    }
    if (r?.text !== undefined) return { payload: { ...p, text: r.text } };
    return { payload: p };
  }).then((p) => (inputText = p.text));
  const g = gate as { kind: "block" | "reply"; text: string } | null;
  if (g) return await finish(g.text, g.kind === "block" ? "blocked" : "short_circuit", false);

  const model = d.model();
  if (typeof model === "string") return await finish(model, "error", false, model);

  // Context: system prompt, what pre_action injects, history that fits, this input.
  const injected: string[] = [];
  const budgetTokens = Math.max(0, cfg.contextWindow - cfg.maxOutputTokens - estimateTokens(cfg.systemPrompt) - estimateTokens(inputText) - 256);
  const assembled = await d.context.assemble({ conv, input: inputText, budgetTokens, excludeTurn: turn });
  const history: ChatMessage[] = assembled.history.map((e) => e.message);
  await runStage(d.stages, d.caller, d.log, "pre_action", { conv, channel, input: inputText, messages: history.length + 1 }, (o, p) => {
    for (const text of o.result?.inject ?? []) injected.push(`[from plugin ${o.handler.plugin}]\n${text}`);
    return { payload: p };
  });
  const system = [cfg.systemPrompt, ...injected].filter(Boolean).join("\n\n");
  const messages: ChatMessage[] = [
    ...(system ? [{ role: "system" as const, content: system }] : []),
    ...(assembled.recalledNote ? [assembled.recalledNote.message] : []),
    ...history,
    { role: "user", content: inputText },
  ];
  // What memory knows of each message, aligned with `messages` (system and input: nothing).
  const memoryItems: (ContextItem | null)[] = [
    ...(system ? [null] : []),
    ...(assembled.recalledNote ? [assembled.recalledNote.item] : []),
    ...assembled.history.map((e) => e.item),
    null,
  ];

  let lastText = "";
  for (;;) {
    if (signal.aborted) return await finish(lastText, "cancelled", true);
    iterations++;
    // Model call, streamed to the channel as it comes.
    let text = "";
    const calls: ToolCall[] = [];
    let failure: string | null = null;
    let aborted = false;
    const tools = d.tools.specs();
    // Messages added inside the loop (tool rounds, redirects) have no memory item.
    d.onContext?.(conv, turn, [...messages], tools.map((t) => t.name), messages.map((_m, i) => memoryItems[i] ?? null));
    for await (const ev of model.stream({ messages, tools, maxOutputTokens: cfg.maxOutputTokens }, signal)) {
      if (ev.type === "text-delta") {
        text += ev.text;
        sink.event({ type: "text-delta", text: ev.text });
      } else if (ev.type === "tool-call") calls.push(ev.call);
      else if (ev.type === "usage") {
        usage.inputTokens += ev.usage.inputTokens;
        usage.outputTokens += ev.usage.outputTokens;
      } else if (ev.type === "finish") {
        if (ev.stopReason === "aborted") aborted = true;
        else if (ev.stopReason === "error") failure = ev.error?.message ?? "the model call failed";
      }
    }
    append(eventOf("model-output", { turn, iteration: iterations, text, toolCalls: calls, failed: failure !== null || aborted }), "agent", [text, ...calls.map((c) => `${c.name} ${c.arguments}`)].join("\n"));
    if (aborted) return await finish(text, "cancelled", true);
    if (failure) return await finish(text ? `${text}\n\n[The model call failed: ${failure}]` : `The model call failed: ${failure}`, "error", false, failure);

    // post_action: filter text or tool calls, or force a redirect.
    let redirect: string | null = null;
    const shaped = await runStage(d.stages, d.caller, d.log, "post_action", { conv, iteration: iterations, text, toolCalls: calls }, (o, p) => {
      const r = o.result;
      if (!r) return { payload: p };
      if (r.action === "redirect" && r.redirect) {
        redirect = r.redirect;
        return { payload: p, stop: true };
      }
      const next = { ...p };
      if (r.text !== undefined) next.text = r.text;
      if (r.dropToolCalls?.length) next.toolCalls = p.toolCalls.filter((c) => !r.dropToolCalls!.includes(c.id));
      return { payload: next };
    });
    if (redirect !== null) {
      append(eventOf("model-output", { turn, iteration: iterations, text, toolCalls: calls, discarded: true, redirect }));
      sink.event({ type: "text-replace", text: "" });
      sink.event({ type: "notice", text: "a plugin redirected the model" });
      messages.push({ role: "assistant", content: text }, { role: "user", content: redirect });
      if (iterations >= cfg.maxIterations) return await finish(`I stopped after ${iterations} rounds (the iteration limit) without an answer.`, "iteration_limit", false);
      continue;
    }
    if (shaped.text !== text) sink.event({ type: "text-replace", text: shaped.text });
    lastText = shaped.text;
    const toRun = shaped.toolCalls;
    if (toRun.length === 0) return await finish(shaped.text, "done", true);
    if (iterations >= cfg.maxIterations) {
      const note = `[Stopped: the iteration limit of ${cfg.maxIterations} model calls was reached with ${toRun.length} tool call(s) still requested.]`;
      return await finish(shaped.text ? `${shaped.text}\n\n${note}` : note, "iteration_limit", false);
    }

    // Tools, one after another, each through the one gate.
    messages.push({ role: "assistant", content: shaped.text, toolCalls: toRun });
    let deniedAll = true;
    const reasons: string[] = [];
    for (const call of toRun) {
      if (signal.aborted) break;
      sink.event({ type: "tool-call", callId: call.id, name: call.name, arguments: call.arguments });
      const r = await d.executor.execute(call, { conv, turn, untrusted, origin: input.origin ?? "foreground", ask: sink.ask, signal });
      sink.event({ type: "tool-result", callId: call.id, name: call.name, status: r.status, content: r.content });
      messages.push({ role: "tool", toolCallId: call.id, name: call.name, content: r.content, isError: r.status !== "ok" });
      if (r.status !== "denied") deniedAll = false;
      else reasons.push(r.content);
    }
    if (signal.aborted) return await finish(shaped.text, "cancelled", true);
    if (deniedAll) {
      const note = `[Every tool call was denied: ${reasons.join("; ")}]`;
      return await finish(shaped.text ? `${shaped.text}\n\n${note}` : note, "denied", false);
    }
  }
}
