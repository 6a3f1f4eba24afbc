/**
 * The seven stages: handlers live in plugins, registered with a priority (lower
 * first) and a deadline. Running a stage calls each handler in order over RPC; a handler that
 * errs, answers garbage or misses its deadline is skipped and logged — a slow plugin cannot
 * hang a turn. Callers decide what a skipped critical handler means (before_toolcall denies).
 */
import * as v from "valibot";
import { AgentMethod, StageResults, type StageName, type StagePayloads, type StageResult } from "../protocol/agent.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import type { PluginCaller } from "./plugin-caller.ts";

export interface StageHandler {
  id: number;
  plugin: string;
  stage: StageName;
  priority: number;
  deadlineMs: number;
}

export interface StageOutcome<S extends StageName> {
  handler: StageHandler;
  /** The validated answer, or null when the handler failed. */
  result: StageResult<S> | null;
  error?: string;
}

export interface StageLog {
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export class StageRegistry {
  private nextId = 1;
  private readonly handlers: StageHandler[] = [];

  register(plugin: string, stage: StageName, priority = 100, deadlineMs = 2000): StageHandler {
    const h: StageHandler = { id: this.nextId++, plugin, stage, priority, deadlineMs };
    this.handlers.push(h);
    // Stable by priority, then registration order.
    this.handlers.sort((a, b) => a.priority - b.priority || a.id - b.id);
    return h;
  }

  /** Remove every handler of `plugin`; returns how many were removed (0 the second time). */
  unregisterPluginStages(plugin: string): number {
    let removed = 0;
    for (let i = this.handlers.length - 1; i >= 0; i--) {
      if ((this.handlers[i] as StageHandler).plugin === plugin) {
        this.handlers.splice(i, 1);
        removed++;
      }
    }
    return removed;
  }

  /** Handlers of one stage, in the order they run. */
  of(stage: StageName): StageHandler[] {
    return this.handlers.filter((h) => h.stage === stage);
  }

  all(): StageHandler[] {
    return [...this.handlers];
  }
}

/**
 * Run one stage. `fold` receives each handler's outcome in order and returns the payload for the
 * next handler (so a rewrite by one handler is what the next one sees) or `stop` to end early.
 */
export async function runStage<S extends StageName>(
  registry: StageRegistry,
  caller: PluginCaller,
  log: StageLog,
  stage: S,
  payload: StagePayloads[S],
  fold: (outcome: StageOutcome<S>, payload: StagePayloads[S]) => { payload: StagePayloads[S]; stop?: boolean } = (
    _o,
    p,
  ) => ({ payload: p }),
): Promise<StagePayloads[S]> {
  const r = await foldStage(registry, caller, log, stage, payload, null, (o, p) => ({ ...fold(o, p), acc: null }));
  return r.payload;
}

/** One handler's answer folded in: the payload the next handler sees, the value so far, whether to stop. */
export type FoldStep<S extends StageName, A> = (
  outcome: StageOutcome<S>,
  payload: StagePayloads[S],
  acc: A,
) => { payload: StagePayloads[S]; acc: A; stop?: boolean };

/**
 * Run one stage and fold what its handlers decide into a value of the caller's (a verdict,
 * injected text) alongside the payload, which is all a handler sees: `step` returns the next
 * payload, the value so far, and whether to stop.
 */
export async function foldStage<S extends StageName, A>(
  registry: StageRegistry,
  caller: PluginCaller,
  log: StageLog,
  stage: S,
  payload: StagePayloads[S],
  init: A,
  step: FoldStep<S, A>,
): Promise<{ payload: StagePayloads[S]; acc: A }> {
  let current = payload;
  let acc = init;
  for (const handler of registry.of(stage)) {
    const outcome = await callHandler(caller, handler, stage, current);
    if (outcome.error)
      log.warn("stage handler skipped", { stage, plugin: handler.plugin, handler: handler.id, reason: outcome.error });
    const next = step(outcome, current, acc);
    current = next.payload;
    acc = next.acc;
    if (next.stop) break;
  }
  return { payload: current, acc };
}

async function callHandler<S extends StageName>(
  caller: PluginCaller,
  handler: StageHandler,
  stage: S,
  payload: StagePayloads[S],
): Promise<StageOutcome<S>> {
  let raw: unknown;
  try {
    raw = await caller.call(
      handler.plugin,
      AgentMethod.RunStage,
      { stage, handler: handler.id, payload },
      handler.deadlineMs,
    );
  } catch (err) {
    return { handler, result: null, error: (err as Error).message };
  }
  const parsed = v.safeParse(StageResults[stage], raw ?? {});
  if (!parsed.success) return { handler, result: null, error: `bad answer: ${describeIssues(parsed.issues)}` };
  return { handler, result: parsed.output as StageResult<S> };
}
