/**
 * The control socket's methods. Each handler validates its params with the schema from
 * src/protocol/control.ts; a bad call is an InvalidParams error to the caller, never a throw
 * into the daemon.
 */
import * as v from "valibot";
import {
  ChatApproveResult,
  ChatSendParams,
  ControlMethod,
  EventAppendParams,
  LlmSetParams,
  MemoryPeekParams,
  PluginRestartParams,
  StatusParams,
  type EventAppendResult,
  type LlmTestResult,
  type StatusResult,
  type TurnResultView,
} from "../protocol/control.ts";
import type { RequestContext } from "../ipc/rpc-peer.ts";
import type { TurnSink } from "../agent/turn.ts";
import { HomedError, RpcError } from "../protocol/errors.ts";
import { describeIssues, RpcErrorCode } from "../protocol/jsonrpc.ts";
import type { RequestHandler } from "../ipc/rpc-peer.ts";
import type { Kernel } from "./kernel.ts";

function parseParams<S extends v.GenericSchema>(schema: S, params: unknown): v.InferOutput<S> {
  const r = v.safeParse(schema, params);
  if (!r.success) throw new HomedError("invalid_params", describeIssues(r.issues));
  return r.output;
}

/** Send a one-line prompt to the configured model and report what happened, as a person would want it. */
export async function testModel(kernel: Kernel): Promise<LlmTestResult> {
  const t0 = performance.now();
  const model = kernel.llm.model();
  if (typeof model === "string") return { ok: false, message: model, latencyMs: 0 };
  let text = "";
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), 30_000);
  try {
    for await (const ev of model.stream({ messages: [{ role: "user", content: "Reply with the single word: ok" }], maxOutputTokens: 16 }, ac.signal)) {
      if (ev.type === "text-delta") text += ev.text;
      if (ev.type === "finish" && (ev.stopReason === "error" || ev.stopReason === "aborted")) {
        return { ok: false, message: ev.error?.message ?? "the test call was cancelled (30 s)", latencyMs: Math.round(performance.now() - t0) };
      }
    }
  } finally {
    clearTimeout(timer);
  }
  return { ok: true, message: `${model.model} answered: ${text.trim().slice(0, 200) || "(empty)"}`, latencyMs: Math.round(performance.now() - t0) };
}

/** Run a turn for a control-socket client: events stream back as notifications, approvals as requests. */
async function chat(kernel: Kernel, params: unknown, ctx: RequestContext): Promise<TurnResultView> {
  const p = parseParams(ChatSendParams, params);
  const ac = new AbortController();
  // A client may send many turns on one connection: each turn's hook must go when the turn ends.
  const forget = ctx.peer.onClose(() => ac.abort());
  const sink: TurnSink = {
    event: (e) => ctx.peer.notify(ControlMethod.ChatEvent, { event: e }),
    ask: async (q) => {
      const raw = await ctx.peer.request(ControlMethod.ChatApprove, q, { timeoutMs: kernel.config.approval.timeout_ms });
      const r = v.safeParse(ChatApproveResult, raw);
      return r.success && r.output.approved;
    },
  };
  try {
    const result = await kernel.agent.run({ conv: p.conv, channel: p.channel, text: p.text, untrusted: p.untrusted }, sink, ac.signal);
    return { ...result, conversation: kernel.store.conversationUsage(p.conv) };
  } finally {
    forget();
  }
}

export function controlHandler(kernel: Kernel): RequestHandler {
  const methods: Record<string, (params: unknown, ctx: RequestContext) => unknown> = {
    [ControlMethod.Status]: (params): StatusResult => {
      parseParams(StatusParams, params);
      return kernel.status();
    },
    [ControlMethod.EventAppend]: (params): EventAppendResult => {
      const p = parseParams(EventAppendParams, params);
      const r = kernel.store.append(p);
      // Imported events join memory like the turn's own: their text is indexed.
      const text = typeof p.body === "object" && p.body !== null ? (p.body as { text?: unknown }).text : undefined;
      if (typeof text === "string") kernel.memory.add(r.id, p.conv, text);
      return r;
    },
    [ControlMethod.PluginRestart]: (params) => kernel.supervisor.restart(parseParams(PluginRestartParams, params).name),
    [ControlMethod.LlmGet]: () => kernel.llm.view(),
    [ControlMethod.LlmSet]: (params) => kernel.llm.set(parseParams(LlmSetParams, params)),
    [ControlMethod.LlmTest]: () => testModel(kernel),
    [ControlMethod.ChatSend]: (params, ctx) => chat(kernel, params, ctx),
    [ControlMethod.MemoryPeek]: (params) => {
      const p = parseParams(MemoryPeekParams, params);
      const l2 = kernel.memory.layerIds(p.conv, 2);
      const found = kernel.memory.peekCold(p.conv, p.text, l2, p.k);
      const events = new Map(kernel.store.recentConversationEvents(p.conv, 100_000).map((e) => [e.id, e]));
      return {
        l1: kernel.memory.layerIds(p.conv, 1).length,
        l2: l2.length,
        candidates: found.map((c) => ({ id: c.id, score: c.score, kind: events.get(c.id)?.kind ?? "", preview: (events.get(c.id)?.body ?? "").slice(0, 200) })),
      };
    },
  };
  return (method, params, ctx) => {
    const fn = methods[method];
    if (!fn) throw new RpcError(RpcErrorCode.MethodNotFound, `unknown method: ${method}`);
    return fn(params, ctx);
  };
}
