/**
 * White-box on purpose: the shared turn runner (src/kernel/chat-turn.ts) promises to register
 * the stream before the input is ready, to remove its disconnect listener when a turn ends, and
 * to end the stream with done or error. A leaked listener is a slow memory growth on a long-lived
 * connection and does not show from outside a daemon, so this test drives the runner with a
 * recording peer and a scripted agent instead of a daemon.
 */
import { describe, expect, test } from "bun:test";
import { TurnStreams } from "../../src/kernel/turn-streams.ts";
import type { TurnSink } from "../../src/agent/turn.ts";
import { type ChatOrigin, runChatTurn } from "../../src/kernel/chat-turn.ts";
import type { KernelServices } from "../../src/kernel/kernel-services.ts";

function recordingPeer(stream = "s") {
  const listeners = new Set<() => void>();
  const sent: { method: string; params: { stream: string; seq: number; event: Record<string, unknown> } }[] = [];
  const origin: ChatOrigin = {
    peer: {
      notify: (method, params) => void sent.push({ method, params: params as (typeof sent)[number]["params"] }),
      onClose: (fn) => {
        listeners.add(fn);
        return () => listeners.delete(fn);
      },
    },
    name: "control",
    stream,
    eventMethod: "ev",
    askable: true,
  };
  return {
    origin,
    listeners,
    sent,
    close: () => {
      for (const fn of [...listeners]) fn();
    },
  };
}

/** Services whose agent asks once for approval (answered by the owner at once) and reports the answer. */
function services(hold?: Promise<void>): KernelServices {
  const streams = new TurnStreams();
  const agent = {
    run: async (input: { conv: string; text: string }, sink: TurnSink, signal: AbortSignal) => {
      if (input.text === "fail") throw new Error("the model is down");
      sink.event({ type: "turn-start", turn: "t", conv: input.conv });
      const asking = sink.ask?.({ tool: "t", arguments: {}, callId: "c1" }, signal);
      if (asking) streams.answer(input.conv, "c1", true, { owner: true });
      const approved = asking ? await asking : null;
      if (hold && !signal.aborted) await Promise.race([hold, new Promise((r) => signal.addEventListener("abort", r))]);
      return {
        turn: "t",
        conv: input.conv,
        text: `approved=${approved}`,
        stopReason: signal.aborted ? "aborted" : "stop",
        iterations: 1,
        usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
      } as never;
    },
  };
  return {
    agent,
    store: { conversationUsage: () => null, conversationModel: () => null },
    streams,
  } as unknown as KernelServices;
}

const input = { conv: "c", channel: "test", text: "hi" };

describe("runChatTurn", () => {
  test("every turn removes its disconnect listener and ends its stream with done", async () => {
    const p = recordingPeer();
    const k = services();
    for (let i = 0; i < 5; i++) await runChatTurn(k, p.origin, "c", input);
    expect(p.listeners.size).toBe(0);
    const types = ["turn-start", "approval", "approval-answered", "done"];
    expect(p.sent.map((f) => f.params.event.type)).toEqual(Array(5).fill(types).flat());
    expect(p.sent.slice(0, 4).map((f) => [f.method, f.params.stream, f.params.seq])).toEqual([
      ["ev", "s", 1],
      ["ev", "s", 2],
      ["ev", "s", 3],
      ["ev", "s", 4],
    ]);
  });

  test("the stream exists while the input is still being made, and a failure ends it with error", async () => {
    const k = services();
    const p = recordingPeer();
    let ready: () => void = () => {};
    const turn = runChatTurn(k, p.origin, "c", async () => {
      await new Promise<void>((r) => (ready = r));
      return input;
    });
    expect(k.streams.follow({ conv: "c" }, 0, () => {}).live).toBe(true);
    ready();
    expect((await turn).text).toBe("approved=true");
    await expect(runChatTurn(k, p.origin, "c", { ...input, text: "fail" })).rejects.toThrow("the model is down");
    expect(p.sent.at(-1)?.params.event).toEqual({ type: "error", message: "the model is down" });
  });

  test("a turn sent as not askable is not asked; the peer's disconnect and the caller's abort cancel", async () => {
    const quiet = recordingPeer();
    const r = await runChatTurn(services(), { ...quiet.origin, askable: false }, "c", input);
    expect(r.text).toBe("approved=null");
    const p = recordingPeer();
    const closing = runChatTurn(services(new Promise(() => {})), p.origin, "c", input);
    await Bun.sleep(1);
    p.close();
    expect((await closing).stopReason).toBe("aborted");
    const ac = new AbortController();
    const cancelling = runChatTurn(services(new Promise(() => {})), recordingPeer().origin, "c", input, ac);
    ac.abort();
    expect((await cancelling).stopReason).toBe("aborted");
  });
});
