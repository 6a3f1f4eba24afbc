/**
 * The kernel's live turns (src/kernel/live-chats.ts) in process: a client attached before a
 * question is asked gets it too, the first answer wins and everyone hears which, a late
 * watcher is replayed what it missed, and a turn nobody could be asked about stays so.
 */
import { describe, expect, test } from "bun:test";
import { LiveChats, type LiveEvent } from "../../src/kernel/live-chats.ts";

const q = { tool: "files_write", arguments: { path: "x" }, callId: "c1" };

describe("live chats", () => {
  test("a watcher attached before the question is asked it; the first answer wins and both are told", async () => {
    const live = new LiveChats();
    const origin: LiveEvent[] = [];
    let originAnswer: (yes: boolean) => void = () => {};
    const turn = live.begin(
      "conv",
      new AbortController(),
      (e) => origin.push(e),
      () => new Promise((r) => (originAnswer = r)),
    );
    turn.event({ type: "turn-start", turn: "t", conv: "conv" });
    const seen: LiveEvent[] = [];
    let asked: unknown = null;
    const a = live.attach("conv", {
      event: (e) => seen.push(e),
      ask: async (question) => {
        asked = question;
        return true;
      },
    });
    expect(a.live).toBe(true);
    expect(seen).toEqual([{ type: "turn-start", turn: "t", conv: "conv" }]);
    expect(await turn.ask?.(q)).toBe(true);
    expect(asked).toEqual(q);
    originAnswer(false); // too late: the watcher's yes already counted
    const answered: LiveEvent = { type: "approval-answered", callId: "c1", approved: true };
    expect(origin).toContainEqual(answered);
    expect(seen).toContainEqual(answered);
    turn.end(null);
    expect(await a.ended).toBeNull();
    expect(live.attach("conv", { event: () => {} }).live).toBe(false);
  });

  test("a turn that could not ask anyone does not become askable through a watcher", async () => {
    const live = new LiveChats();
    const turn = live.begin("conv", new AbortController(), () => {}, undefined);
    expect(turn.ask).toBeUndefined();
    let asked = false;
    live.attach("conv", {
      event: () => {},
      ask: async () => {
        asked = true;
        return true;
      },
    });
    turn.event({ type: "text-delta", text: "hi" });
    expect(asked).toBe(false);
    turn.end(null);
  });
});
