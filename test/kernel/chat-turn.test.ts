/**
 * White-box on purpose: the shared turn runner (src/kernel/chat-turn.ts) promises to remove its
 * disconnect listener when a turn ends and to read only a well-formed `{approved: true}` as
 * yes. Neither shows from outside a daemon (a leaked listener is a slow memory growth on a
 * long-lived connection; the old channel path happened to agree with the schema), so this test
 * drives the runner with a recording peer and a scripted agent instead of a daemon.
 */
import { describe, expect, test } from "bun:test";
import { LiveChats } from "../../src/kernel/live-chats.ts";
import type { TurnSink } from "../../src/agent/turn.ts";
import { runChatTurn } from "../../src/kernel/chat-turn.ts";
import type { ChatPeer, KernelServices } from "../../src/kernel/kernel-services.ts";

function recordingPeer(answer: unknown) {
  const listeners = new Set<() => void>();
  const sent: { method: string; params: unknown }[] = [];
  const peer: ChatPeer = {
    notify: (method, params) => void sent.push({ method, params }),
    request: async (method, params) => {
      sent.push({ method, params });
      return answer;
    },
    onClose: (fn) => {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
  return {
    peer,
    listeners,
    sent,
    close: () => {
      for (const fn of [...listeners]) fn();
    },
  };
}

/** Services whose agent asks once for approval and reports the answer in its reply. */
function services(hold?: Promise<void>): KernelServices {
  const agent = {
    run: async (_input: unknown, sink: TurnSink, signal: AbortSignal) => {
      sink.event({ type: "turn-start" } as never);
      const approved = sink.ask ? await sink.ask({ tool: "t", arguments: {}, callId: "c1" }, signal) : null;
      if (hold && !signal.aborted) await Promise.race([hold, new Promise((r) => signal.addEventListener("abort", r))]);
      return { text: `approved=${approved}`, stopReason: signal.aborted ? "aborted" : "stop" } as never;
    },
  };
  return {
    agent,
    store: { conversationUsage: () => ({}), conversationModel: () => null },
    live: new LiveChats(),
    config: { approval: { timeout_ms: 1000 } },
  } as unknown as KernelServices;
}

const route = {
  event: (event: unknown) => ({ method: "ev", params: { event } }),
  approve: (q: unknown) => ({ method: "ask", params: q }),
};
const input = { conv: "c", channel: "test", text: "hi" };

describe("runChatTurn", () => {
  test("every turn removes its disconnect listener, so a connection does not gather them", async () => {
    const p = recordingPeer({ approved: true });
    for (let i = 0; i < 5; i++) await runChatTurn(services(), p.peer, input, route);
    expect(p.listeners.size).toBe(0);
    // Each turn: its start, the question, and the answer told to every client (live-chats.ts).
    expect(p.sent.map((f) => f.method)).toEqual(Array(5).fill(["ev", "ask", "ev"]).flat());
    expect(p.sent[2]?.params).toEqual({ event: { type: "approval-answered", callId: "c1", approved: true } });
  });

  test("only a well-formed yes approves; anything else is a no", async () => {
    const cases: [unknown, string][] = [
      [{ approved: true }, "approved=true"],
      [{ approved: false }, "approved=false"],
      [{ approved: "yes" }, "approved=false"],
      ["true", "approved=false"],
      [null, "approved=false"],
    ];
    for (const [answer, text] of cases) {
      const r = await runChatTurn(services(), recordingPeer(answer).peer, input, route);
      expect([answer, r.text]).toEqual([answer, text]);
    }
    // No approve route: nobody is asked.
    const r = await runChatTurn(services(), recordingPeer({ approved: true }).peer, input, { event: route.event });
    expect(r.text).toBe("approved=null");
  });

  test("the peer's disconnect and the caller's abort both cancel the turn", async () => {
    const p = recordingPeer({ approved: true });
    const closing = runChatTurn(services(new Promise(() => {})), p.peer, input, route);
    p.close();
    expect((await closing).stopReason).toBe("aborted");
    const ac = new AbortController();
    const cancelling = runChatTurn(
      services(new Promise(() => {})),
      recordingPeer({ approved: true }).peer,
      input,
      route,
      ac,
    );
    ac.abort();
    expect((await cancelling).stopReason).toBe("aborted");
  });
});
