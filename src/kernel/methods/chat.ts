/**
 * chat/send, chat/watch, chat/unwatch, chat/answer and chat/cancel (src/protocol/channel.ts,
 * src/protocol/turn-stream.ts). A turn started by a plugin streams its events back to that plugin
 * as `chat/event` notifications and asks approval as a `chat/approve` request; `chat/cancel` (or
 * the plugin's exit) cancels it. A plugin follows its own turns by their stream id, and any
 * conversation's live turn when it is built in (the web UI shows every channel's conversations).
 */
import type * as v from "valibot";
import type { TurnInput } from "../../agent/turn.ts";
import { ChannelCancelParams, ChannelChatParams, ChannelMethod } from "../../protocol/channel.ts";
import type { TurnResultView } from "../../protocol/control.ts";
import { HomedError } from "../../protocol/errors.ts";
import { parseParams } from "../../protocol/parse-params.ts";
import { AnswerParams, type AnswerResult, UnwatchParams, WatchParams } from "../../protocol/turn-stream.ts";
import { checkHistoryImages, resolveAttachments } from "../attachments.ts";
import { type ChatOrigin, runChatTurn } from "../chat-turn.ts";
import type { ChatPeer, KernelServices } from "../kernel-services.ts";
import type { BuiltinOnly, ChannelMethodGroup } from "./channel-group.ts";

type ChatMessage = v.InferOutput<typeof ChannelChatParams>;
type Watch = v.InferOutput<typeof WatchParams>;
type WatchedTurn = Parameters<KernelServices["streams"]["follow"]>[0];
type Following = ReturnType<KernelServices["streams"]["follow"]>;

/** Values kept per plugin under an id the plugin chose, so one plugin never reaches another's. */
class ByPlugin<T> {
  readonly #values = new Map<string, T>();

  get(plugin: string, id: string): T | undefined {
    return this.#values.get(keyOf(plugin, id));
  }

  set(plugin: string, id: string, value: T): void {
    this.#values.set(keyOf(plugin, id), value);
  }

  delete(plugin: string, id: string): void {
    this.#values.delete(keyOf(plugin, id));
  }
}

const keyOf = (plugin: string, id: string) => `${plugin}\u0000${id}`;

/** What the chat group keeps of each plugin: its running turns for chat/cancel, its watches for chat/unwatch. */
interface ChatTurns {
  /** By the turn's stream id. */
  readonly running: ByPlugin<AbortController>;
  /** By the watch id; calling one stops that watch. */
  readonly watching: ByPlugin<() => void>;
}

/** The chat methods: any channel plugin may call them; following another channel's turn is for built-in ones. */
export function chatMethods(k: KernelServices, builtinOnly: BuiltinOnly): ChannelMethodGroup {
  const turns: ChatTurns = { running: new ByPlugin(), watching: new ByPlugin() };
  return {
    [ChannelMethod.ChatSend]: async (params, plugin) => {
      const p = checkedMessage(params);
      checkSender(k, builtinOnly, plugin, p);
      const peer = runningPeer(k, plugin);
      // A second send under a running stream id would take the first turn's cancel away.
      if (turns.running.get(plugin, p.stream))
        throw new HomedError("conflict", `stream ${p.stream} is already running`);
      const cancel = new AbortController();
      turns.running.set(plugin, p.stream, cancel);
      try {
        return await runChatTurn(k, pluginOrigin(peer, plugin, p), p.conv, () => resolvedInput(k, p, plugin), cancel);
      } finally {
        turns.running.delete(plugin, p.stream);
      }
    },
    [ChannelMethod.ChatWatch]: async (params, plugin) => {
      const p = parseParams(WatchParams, params);
      const peer = runningPeer(k, plugin);
      const which = watchedTurn(builtinOnly, plugin, p);
      const following = k.streams.follow(which, p.from, (seq, event) =>
        peer.notify(ChannelMethod.ChatEvent, { stream: p.watch, seq, event }),
      );
      return await untilStopped(following, peer, turns.watching, plugin, p.watch);
    },
    [ChannelMethod.ChatUnwatch]: (params, plugin) => {
      const stop = turns.watching.get(plugin, parseParams(UnwatchParams, params).watch);
      stop?.();
      return { stopped: stop !== undefined };
    },
    [ChannelMethod.ChatAnswer]: (params, plugin): AnswerResult => {
      const p = parseParams(AnswerParams, params);
      return { answered: k.streams.answer(p.conv, p.callId, p.approved, { plugin }, p.scope) };
    },
    [ChannelMethod.ChatCancel]: (params, plugin) => {
      const cancel = turns.running.get(plugin, parseParams(ChannelCancelParams, params).stream);
      cancel?.abort();
      return { cancelled: cancel !== undefined };
    },
  };
}

/** A chat/send's message; `invalid_params` when it carries neither text, tool results nor attachments. */
function checkedMessage(params: unknown): ChatMessage {
  const p = parseParams(ChannelChatParams, params);
  if (!p.text && !p.toolResults?.length && !p.attachments?.length)
    throw new HomedError("invalid_params", "message is empty");
  return p;
}

/**
 * Attachments, sent now or as images in a stateless client's history, are reserved to built-in
 * plugins; each history image must be a stored block of the type it claims.
 */
function checkSender(k: KernelServices, builtinOnly: BuiltinOnly, plugin: string, p: ChatMessage): void {
  if (p.attachments?.length || p.history?.some((m) => m.role === "user" && m.images?.length))
    builtinOnly(plugin, "sending attachments");
  if (p.history) checkHistoryImages(k, p.history);
}

/** The link a turn's frames go back on; `unavailable` when the plugin is not running. */
function runningPeer(k: KernelServices, plugin: string): ChatPeer {
  const peer = k.plugins.peer(plugin);
  if (!peer) throw new HomedError("unavailable", `${plugin} is not running`);
  return peer;
}

/** The sending plugin as the turn sees it: its frames go back as chat/event under its stream id. */
function pluginOrigin(peer: ChatPeer, plugin: string, p: ChatMessage): ChatOrigin {
  return {
    peer,
    name: plugin,
    stream: p.stream,
    eventMethod: ChannelMethod.ChatEvent,
    // A job's turn has nobody to ask, whatever the plugin said of `interactive`.
    askable: p.interactive && p.origin === "foreground",
    endsOnly: p.follow === "ends",
  };
}

/**
 * The turn's input, made once the turn is registered: attachments are typed by their bytes and
 * read by the media plugin before the turn, so the model reads them with the words.
 */
async function resolvedInput(k: KernelServices, p: ChatMessage, plugin: string): Promise<TurnInput> {
  return {
    conv: p.conv,
    // A plugin that names no channel speaks for its own.
    channel: p.channel ?? plugin,
    text: p.text,
    ...(p.attachments?.length ? { attachments: await resolveAttachments(k, p.attachments) } : {}),
    untrusted: p.untrusted,
    ...(p.mark ? { mark: p.mark } : {}),
    scene: p.scene,
    history: p.history,
    toolResults: p.toolResults,
    clientTools: p.clientTools,
    model: p.model,
    origin: p.origin,
  };
}

/** The turn a chat/watch names: the caller's own by stream id, or (built-in plugins only) a conversation's live one. */
function watchedTurn(builtinOnly: BuiltinOnly, plugin: string, p: Watch): WatchedTurn {
  if (p.stream !== undefined) return { origin: plugin, stream: p.stream };
  if (p.conv === undefined) throw new HomedError("invalid_params", "chat/watch names a conv or a stream");
  builtinOnly(plugin, "following another channel's turn");
  return { conv: p.conv };
}

/**
 * The turn's result when it ends, or null once chat/unwatch stops the watch; the plugin's exit
 * stops the events but not the wait (the turn goes on and still ends). However it ends, the
 * watch is forgotten and no longer followed.
 */
async function untilStopped(
  following: Following,
  peer: ChatPeer,
  watching: ChatTurns["watching"],
  plugin: string,
  watch: string,
): Promise<TurnResultView | null> {
  let unwatched = () => {};
  const gone = new Promise<null>((resolve) => (unwatched = () => resolve(null)));
  const forget = peer.onClose(() => following.stop());
  watching.set(plugin, watch, () => {
    following.stop();
    unwatched();
  });
  try {
    return await Promise.race([following.ended, gone]);
  } finally {
    watching.delete(plugin, watch);
    following.stop();
    forget();
  }
}
