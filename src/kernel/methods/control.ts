/**
 * The control socket's methods: every `ControlMethod` and the function that answers it. Each
 * handler checks its params with the schema from src/protocol/control.ts (parseParams); a bad
 * call is an InvalidParams error to the caller, never a throw into the daemon.
 */
import {
  ApprovalAllowParams,
  ChatCancelParams,
  ChatSendParams,
  ClientHelloParams,
  ControlMethod,
  ConversationsListParams,
  ConversationsMessagesParams,
  EventAppendParams,
  LlmSetParams,
  MemoryPeekParams,
  MemorySearchParams,
  PluginRestartParams,
  StatusParams,
  type EventAppendResult,
  type StatusResult,
} from "../../protocol/control.ts";
import type { RequestContext, RequestHandler, RpcPeer } from "../../ipc/rpc-peer.ts";
import { RpcError } from "../../protocol/errors.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { parseParams } from "../../protocol/parse-params.ts";
import { MemoryImportParams, type MemoryImportResult } from "../../protocol/import.ts";
import { AnswerParams, type AnswerResult, WatchParams } from "../../protocol/turn-stream.ts";
import { runChatTurn } from "../chat-turn.ts";
import { checkModel } from "../check-model.ts";
import { allowToolAlways } from "./settings.ts";
import { conversationTranscript } from "../transcript.ts";
import type { KernelServices } from "../kernel-services.ts";

type ControlMethods = Record<string, (params: unknown, ctx: RequestContext) => unknown>;

export function controlMethods(k: KernelServices): ControlMethods {
  // The turns each connection has running, so chat.cancel stops only the caller's own.
  const running = new Map<RpcPeer, Set<AbortController>>();
  // The conversations whose live turn each connection re-attached to (chat.attach).
  const attached = new Map<RpcPeer, Set<string>>();
  return {
    [ControlMethod.Status]: (params): StatusResult => {
      parseParams(StatusParams, params);
      return k.status();
    },
    [ControlMethod.EventAppend]: (params): EventAppendResult => {
      const p = parseParams(EventAppendParams, params);
      const r = k.store.append(p);
      // Imported events join memory like the turn's own: their text is indexed.
      k.memory.add(r.id);
      return r;
    },
    // The socket is the owner's (0600): whoever can use it may log a browser in.
    [ControlMethod.LoginUrl]: () => ({ url: k.webLogin.url(), loginRequired: k.webLogin.loginRequired }),
    [ControlMethod.PluginRestart]: (params) => k.plugins.restart(parseParams(PluginRestartParams, params).name),
    [ControlMethod.LlmGet]: () => k.llm.view(),
    [ControlMethod.LlmSet]: (params) => k.llm.set(parseParams(LlmSetParams, params)),
    [ControlMethod.LlmTest]: () => checkModel(k.llm),
    [ControlMethod.LlmSetTested]: (params) =>
      k.llm.setTested(parseParams(LlmSetParams, params), () => checkModel(k.llm)),
    // The client is a person at a terminal: it can always be asked.
    [ControlMethod.ChatSend]: async (params, ctx) => {
      const p = parseParams(ChatSendParams, params);
      const ac = new AbortController();
      const mine = running.get(ctx.peer) ?? new Set();
      running.set(ctx.peer, mine.add(ac));
      try {
        return await runChatTurn(
          k,
          {
            peer: ctx.peer,
            name: "control",
            stream: p.stream ?? crypto.randomUUID(),
            eventMethod: ControlMethod.ChatEvent,
            askable: true,
          },
          p.conv,
          { conv: p.conv, channel: p.channel, text: p.text, untrusted: p.untrusted, scene: p.scene },
          ac,
        );
      } finally {
        mine.delete(ac);
        if (mine.size === 0) running.delete(ctx.peer);
      }
    },
    // The owner may follow any conversation's live turn, and answer its questions.
    [ControlMethod.ChatAttach]: async (params, ctx) => {
      const p = parseParams(WatchParams, params);
      const which =
        p.stream !== undefined
          ? { origin: "control", stream: p.stream }
          : p.conv !== undefined
            ? { conv: p.conv }
            : null;
      if (!which) throw new RpcError(RpcErrorCode.InvalidParams, "chat.attach names a conv or a stream");
      const f = k.streams.follow(which, p.from, (seq, event) =>
        ctx.peer.notify(ControlMethod.ChatEvent, { stream: p.watch, seq, event }),
      );
      if (!f.live) return null;
      const conv = p.conv ?? "";
      const mine = attached.get(ctx.peer) ?? new Set();
      if (conv) attached.set(ctx.peer, mine.add(conv));
      const forget = ctx.peer.onClose(() => f.stop());
      try {
        return await f.ended;
      } finally {
        f.stop();
        forget();
        mine.delete(conv);
        if (mine.size === 0) attached.delete(ctx.peer);
      }
    },
    [ControlMethod.ChatAnswer]: (params): AnswerResult => {
      const p = parseParams(AnswerParams, params);
      return { answered: k.streams.answer(p.conv, p.callId, p.approved, { owner: true }, p.scope) };
    },
    [ControlMethod.ChatCancel]: (params, ctx) => {
      parseParams(ChatCancelParams, params);
      const mine = running.get(ctx.peer) ?? new Set();
      for (const ac of mine) ac.abort();
      let n = mine.size;
      for (const conv of attached.get(ctx.peer) ?? []) if (k.streams.cancel(conv)) n++;
      return { cancelled: n };
    },
    [ControlMethod.ConversationsList]: (params) => {
      parseParams(ConversationsListParams, params);
      return k.store.listConversations();
    },
    [ControlMethod.ConversationsMessages]: (params) => {
      const p = parseParams(ConversationsMessagesParams, params);
      return conversationTranscript(k, p.conv, p.limit);
    },
    [ControlMethod.ConfigReload]: (params) => {
      parseParams(StatusParams, params);
      return k.settings.reload("homed reload");
    },
    [ControlMethod.ApprovalAllow]: (params) => {
      return allowToolAlways(k, parseParams(ApprovalAllowParams, params).tool);
    },
    [ControlMethod.ClientHello]: (params, ctx) => {
      k.clients.hello(ctx.peer, parseParams(ClientHelloParams, params).client);
      return { ok: true };
    },
    // One transaction per call; the client keeps calls small enough not to hold up turns (src/cli/import.ts).
    [ControlMethod.MemoryImport]: (params): MemoryImportResult => {
      const p = parseParams(MemoryImportParams, params);
      return k.importConversations(p.channel, p.conversations);
    },
    [ControlMethod.MemorySearch]: (params) => {
      const p = parseParams(MemorySearchParams, params);
      return {
        hits: k.agent
          .searchMemory(p.query, p.k, p.time)
          .map(({ id, conv, ts, role, text, score }) => ({ id, conv, ts, role, text, score })),
      };
    },
    [ControlMethod.MemoryPeek]: async (params) => {
      const p = parseParams(MemoryPeekParams, params);
      await k.memory.prepare(p.text); // the query's dense vector, as a turn's recall has it
      const l2 = k.memory.layerIds(p.conv, 2);
      const found = k.memory.peekCold(p.conv, p.text, l2, p.k);
      const events = new Map(k.store.recentConversationEvents(p.conv, 100_000).map((e) => [e.id, e]));
      return {
        l1: k.memory.layerIds(p.conv, 1).length,
        l2: l2.length,
        candidates: found.map((c) => ({
          id: c.id,
          score: c.score,
          kind: events.get(c.id)?.kind ?? "",
          preview: (events.get(c.id)?.body ?? "").slice(0, 200),
        })),
      };
    },
  };
}

export function controlHandler(k: KernelServices): RequestHandler {
  const methods = controlMethods(k);
  return (method, params, ctx) => {
    const fn = methods[method];
    if (!fn) throw new RpcError(RpcErrorCode.MethodNotFound, `unknown method: ${method}`);
    return fn(params, ctx);
  };
}
