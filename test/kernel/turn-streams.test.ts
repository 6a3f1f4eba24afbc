/**
 * The kernel's turn streams (src/kernel/turn-streams.ts) in process: numbered events replayed
 * from any point (a merged reply cut where the follower left it), one open record per question
 * that the first entitled answer or the turn's signal settles, a plugin kept to its own turns'
 * questions, and the end as the stream's last event.
 */
import { describe, expect, test } from "bun:test";
import { MAX_KEPT_EVENTS, RECENT_TURNS, TurnStreams } from "../../src/kernel/turn-streams.ts";
import type { StreamEvent } from "../../src/protocol/turn-stream.ts";

const q = { tool: "files_write", arguments: { path: "x" }, callId: "c1" };
const result = {
  turn: "t",
  conv: "conv",
  text: "hello world",
  stopReason: "stop",
  iterations: 1,
  usage: { inputTokens: 1, outputTokens: 2, cachedInputTokens: 0 },
  conversation: null,
};

function recorder() {
  const got: [number, StreamEvent][] = [];
  return { got, deliver: (seq: number, e: StreamEvent) => void got.push([seq, e]) };
}

function begin(streams: TurnStreams, over: Partial<Parameters<TurnStreams["begin"]>[0]> = {}) {
  const origin = recorder();
  const producer = streams.begin({
    conv: "conv",
    origin: "web",
    stream: "s1",
    askable: true,
    cancel: new AbortController(),
    deliver: origin.deliver,
    ...over,
  });
  return { origin, producer };
}

describe("turn streams", () => {
  test("events are numbered, and a follower is replayed from any point, a merged reply cut where it left", () => {
    const streams = new TurnStreams();
    const { origin, producer } = begin(streams);
    producer.event({ type: "turn-start", turn: "t", conv: "conv" });
    producer.event({ type: "text-delta", text: "hel" });
    producer.event({ type: "text-delta", text: "lo " });
    producer.event({ type: "text-delta", text: "world" });
    expect(origin.got.map(([seq]) => seq)).toEqual([1, 2, 3, 4]);

    const all = recorder();
    expect(streams.follow({ conv: "conv" }, 0, all.deliver).live).toBe(true);
    expect(all.got).toEqual([
      [1, { type: "turn-start", turn: "t", conv: "conv" }],
      [4, { type: "text-delta", text: "hello world" }],
    ]);
    const late = recorder();
    streams.follow({ origin: "web", stream: "s1" }, 3, late.deliver);
    expect(late.got).toEqual([[4, { type: "text-delta", text: "world" }]]);
    const mid = recorder();
    streams.follow({ conv: "conv" }, 2, mid.deliver);
    expect(mid.got).toEqual([[4, { type: "text-delta", text: "lo world" }]]);

    producer.event({ type: "notice", text: "n" });
    for (const r of [origin, all, late, mid]) expect(r.got.at(-1)).toEqual([5, { type: "notice", text: "n" }]);
    // Another sender's id does not find it.
    expect(streams.follow({ origin: "qq", stream: "s1" }, 0, () => {}).live).toBe(false);
  });

  test("a question is one record: the first answer settles it, everyone is told, a second answer finds nothing", async () => {
    const streams = new TurnStreams();
    const { origin, producer } = begin(streams);
    const watcher = recorder();
    streams.follow({ conv: "conv" }, 0, watcher.deliver);
    const asked = producer.ask?.(q, new AbortController().signal);
    expect(watcher.got.at(-1)?.[1]).toEqual({ type: "approval", ...q });
    expect(() => streams.answer("conv", "c1", true, { plugin: "qq" })).toThrow(/only the questions of turns it sent/);
    expect(streams.answer("conv", "c1", true, { owner: true })).toBe(true);
    expect(await asked).toBe(true);
    expect(streams.answer("conv", "c1", false, { plugin: "web" })).toBe(false);
    const answered: StreamEvent = { type: "approval-answered", callId: "c1", approved: true };
    expect(origin.got.at(-1)?.[1]).toEqual(answered);
    expect(watcher.got.at(-1)?.[1]).toEqual(answered);
    // The sender may answer its own turn's questions.
    const again = producer.ask?.({ ...q, callId: "c2" }, new AbortController().signal);
    expect(streams.answer("conv", "c2", false, { plugin: "web" })).toBe(true);
    expect(await again).toBe(false);
  });

  test("the turn's signal (a timeout, a cancel) and its end settle what is still open, as no", async () => {
    const streams = new TurnStreams();
    const { origin, producer } = begin(streams);
    const ac = new AbortController();
    const timedOut = producer.ask?.(q, ac.signal);
    ac.abort();
    expect(await timedOut).toBe(false);
    expect(origin.got.at(-1)?.[1]).toEqual({ type: "approval-answered", callId: "c1", approved: false });
    const open = producer.ask?.({ ...q, callId: "c2" }, new AbortController().signal);
    producer.end({ result });
    expect(await open).toBe(false);
    expect(origin.got.slice(-2).map(([, e]) => e.type)).toEqual(["approval-answered", "done"]);
    expect(streams.answer("conv", "c2", true, { owner: true })).toBe(false);
  });

  test("a turn nobody can be asked about has no ask; the end is the last event and then it is gone", async () => {
    const streams = new TurnStreams();
    const { origin, producer } = begin(streams, { askable: false });
    expect(producer.ask).toBeUndefined();
    const watcher = recorder();
    const f = streams.follow({ conv: "conv" }, 0, watcher.deliver);
    producer.end({ error: "the model is down" });
    expect(await f.ended).toBeNull();
    expect(watcher.got).toEqual([[1, { type: "error", message: "the model is down" }]]);
    expect(origin.got).toEqual(watcher.got);
    producer.event({ type: "notice", text: "after the end" });
    expect(origin.got.length).toBe(1);
    expect(streams.follow({ conv: "conv" }, 0, () => {}).live).toBe(false);
    // Its sender can still follow it by id: everything, the end included.
    const late = recorder();
    const f2 = streams.follow({ origin: "web", stream: "s1" }, 0, late.deliver);
    expect([f2.live, await f2.ended, late.got]).toEqual([true, null, watcher.got]);
    // The id is free again.
    begin(streams).producer.end({ result });
  });

  test("following a conversation finds its first registered turn: the running one, not the queued", async () => {
    const streams = new TurnStreams();
    const first = begin(streams, { stream: "a" });
    const second = begin(streams, { stream: "b" });
    expect(() => begin(streams, { stream: "b" })).toThrow(/already running/);
    first.producer.event({ type: "notice", text: "first" });
    const w = recorder();
    const f = streams.follow({ conv: "conv" }, 0, w.deliver);
    expect(w.got).toEqual([[1, { type: "notice", text: "first" }]]);
    first.producer.end({ result });
    expect((await f.ended)?.text).toBe("hello world");
    const next = recorder();
    streams.follow({ conv: "conv" }, 0, next.deliver);
    second.producer.event({ type: "notice", text: "second" });
    expect(next.got).toEqual([[1, { type: "notice", text: "second" }]]);
    expect(streams.cancel("conv")).toBe(true);
  });

  test("a late follower of a long turn is sent its newest MAX_KEPT_EVENTS events, still numbered", () => {
    const streams = new TurnStreams();
    const { producer } = begin(streams);
    const calls = MAX_KEPT_EVENTS + 500;
    producer.event({ type: "turn-start", turn: "t", conv: "conv" });
    for (let i = 0; i < calls; i++) {
      producer.event({ type: "tool-call", callId: `c${i}`, name: "files_read", arguments: "{}" });
      producer.event({ type: "tool-result", callId: `c${i}`, name: "files_read", status: "ok", content: "x" });
    }
    const late = recorder();
    streams.follow({ conv: "conv" }, 0, late.deliver);
    expect(late.got.length).toBe(MAX_KEPT_EVENTS);
    expect(late.got.at(-1)).toEqual([1 + 2 * calls, expect.objectContaining({ callId: `c${calls - 1}` })]);
    expect(late.got[0]?.[1]).toMatchObject({ callId: `c${calls - MAX_KEPT_EVENTS / 2}` });
  });

  test("ended turns are kept for their senders by id, the newest RECENT_TURNS", async () => {
    const streams = new TurnStreams();
    for (let i = 0; i <= RECENT_TURNS; i++) {
      const { producer } = begin(streams, { stream: `s${i}` });
      producer.event({ type: "notice", text: `turn ${i}` });
      producer.end({ result });
    }
    expect(streams.follow({ origin: "web", stream: "s0" }, 0, () => {}).live).toBe(false);
    const last = recorder();
    const f = streams.follow({ origin: "web", stream: `s${RECENT_TURNS}` }, 1, last.deliver);
    expect((await f.ended)?.text).toBe("hello world");
    expect(last.got.map(([seq, e]) => [seq, e.type])).toEqual([[2, "done"]]);
  });
});
