/**
 * What the web plugin keeps of a live turn for a page that attaches late is capped like the
 * kernel's (MAX_KEPT_EVENTS, the newest kept). White-box, on LiveTurns with a scripted hub: a
 * turn of thousands of events through the daemon would need a model that asks for a thousand
 * tool calls in one turn, and the cap is this class's own property, not the daemon's.
 */
import { expect, test } from "bun:test";
import type { ChatHub, ChatListener } from "../../plugins/web/chat-hub.ts";
import { LiveTurns, MAX_KEPT_EVENTS } from "../../plugins/web/live-turns.ts";

test("a late watcher is sent the newest MAX_KEPT_EVENTS events of a long turn, and that it started", async () => {
  const calls = MAX_KEPT_EVENTS + 500;
  let finish = () => {};
  const hub = {
    run: (_stream: string, _conv: string, _text: string, listener: ChatListener) => {
      listener.event({ type: "turn-start", turn: "t1", conv: "web:a" });
      for (let i = 0; i < calls; i++) {
        listener.event({ type: "tool-call", callId: `c${i}`, name: "files_read", arguments: "{}" });
        listener.event({
          type: "tool-result",
          callId: `c${i}`,
          name: "files_read",
          status: "ok",
          content: "x".repeat(100),
        });
      }
      return new Promise((resolve) => (finish = () => resolve({ text: "done" })));
    },
  } as unknown as ChatHub;
  const live = new LiveTurns(hub);
  const stream = live.start("web:a", "read everything");

  const seen: Record<string, unknown>[] = [];
  const { ended } = live.watch(stream, (e) => seen.push(e));
  expect(seen[0]).toMatchObject({ type: "stream", stream, conv: "web:a", started: true });
  const replayed = seen.slice(1);
  expect(replayed.length).toBe(MAX_KEPT_EVENTS);
  expect(replayed.at(-1)).toMatchObject({ type: "tool-result", callId: `c${calls - 1}` });
  expect(replayed[0]).toMatchObject({ callId: `c${calls - MAX_KEPT_EVENTS / 2}` });

  finish();
  await ended;
  expect(seen.at(-1)).toMatchObject({ type: "done" });
});
