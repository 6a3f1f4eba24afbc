/**
 * The one way a peer's chat request becomes a turn, for the control socket (`chat.send`) and for
 * channel plugins (`chat/send`): the turn is registered as a stream at once (so it can be
 * followed while it waits in its conversation's queue), its events reach the peer as
 * notifications numbered in the stream, the peer's disconnect (or the caller's own abort) cancels
 * it, and the disconnect listener is removed when it ends, so a long-lived connection does not
 * gather one per turn.
 */
import type { TurnInput, TurnSink } from "../agent/turn.ts";
import type { TurnResultView } from "../protocol/control.ts";
import type { ChatPeer, KernelServices } from "./kernel-services.ts";

/** Who sent the turn and how its frames reach them. */
export interface ChatOrigin {
  peer: Pick<ChatPeer, "notify" | "onClose">;
  /** "control", or the plugin's name. */
  name: string;
  /** The sender's id for the turn: its frames carry it. */
  stream: string;
  /** The notification that carries one frame. */
  eventMethod: string;
  /** Someone there can answer approval questions. */
  askable: boolean;
  /** The sender is sent only the turn's start and end; its readers watch the rest. */
  endsOnly?: boolean;
}

/** The events a sender that follows only the ends is sent. */
const ENDS = new Set(["turn-start", "done", "error"]);

/**
 * Run a turn for `origin` and return its result with the conversation's usage. `input` may still
 * be in the making (attachments being read): the stream exists before it is. `cancel` lets the
 * caller abort the turn as well (a `chat/cancel`).
 */
export async function runChatTurn(
  k: KernelServices,
  origin: ChatOrigin,
  conv: string,
  input: TurnInput | (() => Promise<TurnInput>),
  cancel = new AbortController(),
): Promise<TurnResultView> {
  const live = k.streams.begin({
    conv,
    origin: origin.name,
    stream: origin.stream,
    askable: origin.askable,
    cancel,
    deliver: (seq, event) => {
      if (!origin.endsOnly || ENDS.has(event.type))
        origin.peer.notify(origin.eventMethod, { stream: origin.stream, seq, event });
    },
  });
  const forget = origin.peer.onClose(() => cancel.abort());
  const sink: TurnSink = { event: (e) => live.event(e), ...(live.ask ? { ask: live.ask } : {}) };
  try {
    const given = typeof input === "function" ? await input() : input;
    // A model chosen for the conversation (conversations/model) holds in every channel.
    const model = given.model ?? k.store.conversationModel(conv) ?? undefined;
    const r = await k.agent.run({ ...given, conv, model }, sink, cancel.signal);
    const result = { ...r, conversation: k.store.conversationUsage(conv) };
    live.end({ result });
    return result;
  } catch (err) {
    live.end({ error: (err as Error).message });
    throw err;
  } finally {
    forget();
  }
}
