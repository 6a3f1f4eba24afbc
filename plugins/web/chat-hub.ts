/**
 * Turns started from HTTP, through the plugin's one stream client (src/ipc/turn-stream-client.ts):
 * each turn is sent with a stream id, its events reach whoever listens (an SSE response, the
 * OpenAI-compatible endpoint, an A2A task), and a page's approval answer goes back to the kernel,
 * which keeps the one open record of each question.
 */
import * as v from "valibot";
import { type ChannelChatParams, ChannelMethod, LlmModelsResult } from "../../src/protocol/channel.ts";
import type { TurnResultView } from "../../src/protocol/control.ts";
import { HomedError } from "../../src/protocol/errors.ts";
import type { ApprovalScope, StreamEvent } from "../../src/protocol/turn-stream.ts";
import type { Plugin } from "../sdk/index.ts";

export interface ChatListener {
  event(e: StreamEvent, seq: number): void;
  /** Someone here can answer approval questions (with `answer`); otherwise what needs one is denied by policy. */
  interactive?: boolean;
}

export class ChatHub {
  constructor(private readonly plugin: Plugin) {}

  /** Run a turn, delivering its events to `listener`; resolves with the kernel's result. */
  run(
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
      "history" | "toolResults" | "clientTools" | "model" | "untrusted" | "scene" | "attachments" | "follow"
    > = {},
  ): Promise<TurnResultView> {
    return this.plugin.turns.send(
      { conv, text, channel, interactive: listener.interactive === true, ...extra },
      { event: (e, seq) => listener.event(e, seq) },
      { stream },
    );
  }

  /**
   * Follow a turn from event `from` on: one this plugin sent (by its stream id) or the live one
   * of a conversation. Resolves when it ends (null: none was live, or it failed).
   */
  watch(
    which: { conv: string } | { conv: string; stream: string },
    from: number,
    listener: ChatListener,
    watch: string,
  ): Promise<TurnResultView | null> {
    return this.plugin.turns.watch(which, { event: (e, seq) => listener.event(e, seq) }, from, watch);
  }

  unwatch(watch: string): Promise<void> {
    return this.plugin.turns.unwatch(watch);
  }

  /** The configured model and what the provider lists. */
  async models(): Promise<LlmModelsResult> {
    const r = v.safeParse(LlmModelsResult, await this.plugin.request(ChannelMethod.LlmModels, {}));
    if (!r.success) throw new HomedError("upstream", "the kernel sent a malformed model list");
    return r.output;
  }

  /** A person's answer to an approval question; false if nothing was waiting for it. */
  answer(conv: string, callId: string, approved: boolean, scope?: ApprovalScope): Promise<boolean> {
    return this.plugin.turns.answer(conv, callId, approved, scope);
  }

  /** Stop a turn this plugin sent; its open questions are answered no by the kernel. */
  async cancel(stream: string): Promise<boolean> {
    const r = (await this.plugin.request(ChannelMethod.ChatCancel, { stream })) as { cancelled?: boolean };
    return r?.cancelled === true;
  }
}
