/**
 * Turns started from HTTP: each gets a stream id; the kernel's `chat/event` notifications and
 * `chat/approve` questions for that id are routed to whoever is listening (an SSE response, or
 * the OpenAI-compatible endpoint), and approval answers come back through `answer`.
 */
import * as v from "valibot";
import {
  type ChannelChatParams,
  ChannelMethod,
  ChatApproveRequest,
  ChatEventNotice,
  LlmModelsResult,
} from "../../src/protocol/channel.ts";
import { TurnResultSchema, type TurnResultView } from "../../src/protocol/control.ts";
import { HomedError } from "../../src/protocol/errors.ts";
import type { Plugin } from "../sdk/index.ts";

export interface ChatListener {
  event(e: Record<string, unknown>): void;
  /** Absent: nobody can be asked, and the kernel is told so (what needs approval is denied by policy). */
  approval?(q: { tool: string; arguments: unknown; callId: string; note?: string }): void;
}

interface Stream {
  listener: ChatListener;
  pending: Map<string, (approved: boolean) => void>;
}

/** A turn may take as long as a person takes to answer approvals. */
const TURN_TIMEOUT_MS = 6 * 60 * 60 * 1000;

export class ChatHub {
  private readonly streams = new Map<string, Stream>();

  constructor(private readonly plugin: Plugin) {
    plugin.onNotify(ChannelMethod.ChatEvent, (params) => {
      const p = v.safeParse(ChatEventNotice, params);
      if (p.success) this.streams.get(p.output.stream)?.listener.event(p.output.event);
    });
    plugin.handle(ChannelMethod.ChatApprove, (params) => {
      const p = v.safeParse(ChatApproveRequest, params);
      if (!p.success) return { approved: false };
      const s = this.streams.get(p.output.stream);
      const ask = s?.listener.approval;
      if (!s || !ask) return { approved: false };
      return new Promise((resolve) => {
        s.pending.set(p.output.callId, (approved) => resolve({ approved }));
        const { stream: _, ...question } = p.output;
        ask(question);
      });
    });
  }

  /** Run a turn, delivering its events to `listener`; resolves with the kernel's result. */
  async run(
    stream: string,
    conv: string,
    text: string,
    listener: ChatListener,
    channel = "web",
    /**
     * A stateless client's conversation, tool results, tools and model (the /v1 API); whether
     * the input is untrusted and the scene it happens in (channels such as A2A).
     */
    extra: Pick<
      v.InferInput<typeof ChannelChatParams>,
      "history" | "toolResults" | "clientTools" | "model" | "untrusted" | "scene" | "attachments"
    > = {},
  ): Promise<TurnResultView> {
    this.streams.set(stream, { listener, pending: new Map() });
    try {
      const interactive = listener.approval !== undefined;
      const raw = await this.plugin.request(
        ChannelMethod.ChatSend,
        { stream, conv, text, channel, interactive, ...extra },
        { timeoutMs: TURN_TIMEOUT_MS },
      );
      const r = v.safeParse(TurnResultSchema, raw);
      if (!r.success) throw new HomedError("upstream", "the kernel sent a malformed turn result");
      return r.output;
    } finally {
      const s = this.streams.get(stream);
      for (const resolve of s?.pending.values() ?? []) resolve(false);
      this.streams.delete(stream);
    }
  }

  /** The configured model and what the provider lists. */
  async models(): Promise<LlmModelsResult> {
    const r = v.safeParse(LlmModelsResult, await this.plugin.request(ChannelMethod.LlmModels, {}));
    if (!r.success) throw new HomedError("upstream", "the kernel sent a malformed model list");
    return r.output;
  }

  /** A person's answer to an approval question; false if nothing was waiting for it. */
  answer(stream: string, callId: string, approved: boolean): boolean {
    const s = this.streams.get(stream);
    const resolve = s?.pending.get(callId);
    if (!s || !resolve) return false;
    s.pending.delete(callId);
    resolve(approved);
    return true;
  }

  async cancel(stream: string): Promise<boolean> {
    // Questions still open are answered no at once; the kernel then winds the turn down.
    const s = this.streams.get(stream);
    for (const resolve of s?.pending.values() ?? []) resolve(false);
    s?.pending.clear();
    const r = (await this.plugin.request(ChannelMethod.ChatCancel, { stream })) as { cancelled?: boolean };
    return r?.cancelled === true;
  }
}
