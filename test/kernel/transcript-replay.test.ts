/**
 * One turn, one shape: a stored turn reads back as the events its stream carried, and each
 * renderer's one fold draws it the same from history as live (src/kernel/transcript.ts,
 * src/client/tui-transcript.ts, src/cli/acp-updates.ts).
 */
import { describe, expect, test } from "bun:test";
import { transcript } from "../../src/kernel/transcript.ts";
import type { StoredEvent } from "../../src/store/store.ts";
import type { StreamEvent } from "../../src/protocol/turn-stream.ts";
import { Transcript } from "../../src/client/tui-transcript.ts";
import { replayUpdates, TurnUpdates } from "../../src/cli/acp-updates.ts";

let id = 0;
const stored = (kind: string, body: unknown, actor = "agent"): StoredEvent => ({
  id: ++id,
  ts: 1_000 + id,
  conv: "c1",
  kind,
  actor,
  untrusted: false,
  mark: null,
  body: JSON.stringify(body),
});

const figures = { messages: 2, recalled: true, across: true, tokens: 900, window: 128_000 };
const usage = { inputTokens: 120, outputTokens: 30 };

/** A turn as the log keeps it: the message, what memory brought, a tool call between two model calls, the reply. */
const turnEvents = (turn: string, text: string, reply: string): StoredEvent[] => [
  stored("user-message", { turn, text, channel: "cli" }, "user"),
  stored("context", { turn, ...figures }),
  stored("model-output", {
    turn,
    text: "Let me look.",
    toolCalls: [{ id: "c1", name: "notes_search", arguments: '{"q":"bike"}' }],
  }),
  stored("tool-call", { turn, callId: "c1", name: "notes_search", arguments: '{"q":"bike"}' }),
  stored("tool-result", { turn, callId: "c1", name: "notes_search", status: "ok", content: "red Brompton" }),
  stored("model-output", { turn, text: reply, toolCalls: [] }),
  stored("agent-reply", { turn, text: reply, fromModel: true, stopReason: "done" }),
];

/** The same turn as its live stream carried it. */
const liveEvents = (turn: string, text: string, reply: string): StreamEvent[] => [
  { type: "turn-start", turn, conv: "c1", text, attachments: [] },
  { type: "context", ...figures },
  { type: "text-delta", text: "Let me " },
  { type: "text-delta", text: "look." },
  { type: "tool-call", callId: "c1", name: "notes_search", arguments: '{"q":"bike"}' },
  { type: "tool-result", callId: "c1", name: "notes_search", status: "ok", content: "red Brompton" },
  { type: "text-delta", text: reply },
  {
    type: "done",
    result: { turn, conv: "c1", text: reply, stopReason: "done", iterations: 2, usage, conversation: null },
  },
];

describe("a stored turn reads back as the events it streamed", () => {
  const items = transcript(turnEvents("t1", "what bike do I have?", "A red Brompton."), new Map([["t1", usage]]));

  test("with the live stream's kinds, in its order, the reply as done with the turn's tokens and model calls", () => {
    expect(items.map((it) => it.event.type)).toEqual([
      "turn-start",
      "context",
      "text-delta",
      "tool-call",
      "tool-result",
      "done",
    ]);
    expect(items[0]?.event).toMatchObject({ turn: "t1", conv: "c1", text: "what bike do I have?" });
    expect(items[1]?.event).toEqual({ type: "context", ...figures });
    expect(items[5]?.event).toMatchObject({
      result: { text: "A red Brompton.", stopReason: "done", iterations: 2, usage, conversation: null },
    });
  });

  test("a message sent again after its turn failed without output reads once", () => {
    const failed = [
      stored("user-message", { turn: "t0", text: "hello", channel: "web" }, "user"),
      stored("agent-reply", { turn: "t0", text: "", fromModel: false, stopReason: "error", error: "no route" }),
    ];
    const again = transcript([...failed, ...turnEvents("t2", "hello", "Hi.")]);
    expect(again.filter((it) => it.event.type === "turn-start")).toHaveLength(1);
    expect(again.some((it) => it.event.type === "done" && JSON.stringify(it.event).includes("no route"))).toBe(false);
  });

  test("the TUI draws history as it draws the live turn", () => {
    const history = new Transcript();
    history.load(items);
    const live = new Transcript();
    for (const e of liveEvents("t1", "what bike do I have?", "A red Brompton.")) live.event(e);
    expect(history.lines(60).map((l) => l.text)).toEqual(live.lines(60).map((l) => l.text));
    expect(history.lines(60).map((l) => l.text)).toContain("› what bike do I have?");
    expect(history.lines(60).map((l) => l.text)).toContain("A red Brompton.");
  });

  test("the TUI shows a message it sent once, when its turn starts", () => {
    const t = new Transcript();
    t.user("what bike do I have?");
    for (const e of liveEvents("t1", "what bike do I have?", "A red Brompton.")) t.event(e);
    expect(t.lines(60).filter((l) => l.text === "› what bike do I have?")).toHaveLength(1);
  });

  test("ACP replays history as the updates of the live turn, the person's message included", () => {
    const live = new TurnUpdates("session-1");
    const updates = liveEvents("t1", "what bike do I have?", "A red Brompton.").flatMap((e) => live.updates(e));
    const merged = (us: ReturnType<typeof replayUpdates>) => {
      // Chunks of one message are one message, however the text was cut.
      const out: Record<string, unknown>[] = [];
      for (const u of us) {
        const last = out.at(-1);
        if (u.sessionUpdate === "agent_message_chunk" && last?.messageId === u.messageId && last)
          last.text = `${last.text}${(u.content as { text: string }).text}`;
        else
          out.push(
            u.sessionUpdate.endsWith("_chunk")
              ? { ...u, content: undefined, text: (u.content as { text: string }).text }
              : { ...u },
          );
      }
      return out;
    };
    expect(merged(replayUpdates(items))).toEqual(merged(updates));
    expect(updates[0]).toMatchObject({ sessionUpdate: "user_message_chunk" });
    // The client that sent the prompt is not told it again.
    const sender = new TurnUpdates("session-1", "what bike do I have?");
    const sent = liveEvents("t1", "what bike do I have?", "A red Brompton.").flatMap((e) => sender.updates(e));
    expect(sent.some((u) => u.sessionUpdate === "user_message_chunk")).toBe(false);
  });
});
