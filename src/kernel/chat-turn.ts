/**
 * The one way a peer's chat request becomes a turn, for the control socket (`chat.send`) and for
 * channel plugins (`chat/send`): events stream back as notifications, approval questions go out
 * as requests whose answers are checked against the protocol schema, the peer's disconnect (or
 * the caller's own abort) cancels the turn, and the disconnect listener is removed when the turn
 * ends, so a long-lived connection does not gather one per turn.
 */
import * as v from "valibot";
import type { ApprovalQuestion } from "../agent/tool-executor.ts";
import type { TurnInput, TurnSink } from "../agent/turn.ts";
import type { LiveChats, LiveEvent } from "./live-chats.ts";
import { ChatApproveResult, type TurnResultView } from "../protocol/control.ts";
import type { ChatPeer, KernelServices } from "./kernel-services.ts";

/** A frame for the peer: which method, with which params. */
export interface PeerFrame {
  method: string;
  params: unknown;
}

/** How a turn's traffic is addressed to this kind of peer. */
export interface ChatRoute {
  /** The notification that carries one turn event (or the kernel's approval-answered). */
  event(e: LiveEvent): PeerFrame;
  /** The request that asks for an approval; absent when nobody on this peer can answer. */
  approve?: (q: ApprovalQuestion) => PeerFrame;
}

/** Ask a peer to approve a tool call; anything but a well-formed yes in time is a no. */
export async function askPeer(k: KernelServices, peer: Pick<ChatPeer, "request">, f: PeerFrame): Promise<boolean> {
  const raw = await peer.request(f.method, f.params, { timeoutMs: k.config.approval.timeout_ms });
  const r = v.safeParse(ChatApproveResult, raw);
  return r.success && r.output.approved;
}

/**
 * Run `input` as a turn for `peer` and return its result with the conversation's usage.
 * `cancel` lets the caller abort the turn as well (a `chat/cancel`).
 */
export async function runChatTurn(
  k: KernelServices,
  peer: ChatPeer,
  input: TurnInput,
  route: ChatRoute,
  cancel = new AbortController(),
): Promise<TurnResultView> {
  const forget = peer.onClose(() => cancel.abort());
  const approve = route.approve;
  const emit = (e: LiveEvent) => {
    const f = route.event(e);
    peer.notify(f.method, f.params);
  };
  const ask = approve ? (q: ApprovalQuestion) => askPeer(k, peer, approve(q)) : undefined;
  // Registered when the turn starts running (its first event), not while it waits in the
  // conversation's queue behind another: a client attaching then sees the turn that streams.
  let live: ReturnType<LiveChats["begin"]> | null = null;
  const registered = () => {
    live ??= k.live.begin(input.conv, cancel, emit, ask);
    return live;
  };
  const sink: TurnSink = {
    event: (e) => registered().event(e),
    ask: ask && ((q) => registered().ask?.(q) ?? ask(q)),
  };
  let result: TurnResultView | null = null;
  try {
    // A model chosen for the conversation (conversations/model) holds in every channel.
    const model = input.model ?? k.store.conversationModel(input.conv) ?? undefined;
    const r = await k.agent.run({ ...input, model }, sink, cancel.signal);
    result = { ...r, conversation: k.store.conversationUsage(input.conv) };
    return result;
  } finally {
    // Assigned inside the sink's callbacks, which the compiler does not follow.
    (live as ReturnType<LiveChats["begin"]> | null)?.end(result);
    forget();
  }
}
