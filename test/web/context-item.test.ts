/**
 * A turn's `context` event (what memory put before the model) is kept with the turn: the
 * transcript a page reads after a reload has the same `context` event the live stream sent,
 * before the reply it belongs to.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { webTurn } from "../harness/web-turn.ts";

describe("the context of a turn", () => {
  test("the live stream's context event comes back in the transcript, same kind, same figures", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const url = await webUrlOf(rig.daemon);
    rig.llm.script([{ text: "First answer." }, { text: "Second answer." }]);
    const first = await webTurn(url, "ctx", "remember that my bike is red");
    await first.done;
    const second = await webTurn(url, "ctx", "what colour is my bike?");
    await second.done;
    const live = second.events.find((e) => e.type === "context") as Record<string, unknown>;
    expect(live).toMatchObject({ type: "context", messages: 2 });

    // The stored turn is the live one's events: the same kinds, the context event as it streamed.
    const items = (await (await fetch(`${url}api/conversations/ctx`)).json()) as { event: Record<string, unknown> }[];
    expect(items.map((i) => i.event.type)).toEqual(["turn-start", "context", "done", "turn-start", "context", "done"]);
    expect(items[4]?.event).toEqual(live);
  }, 30_000);
});
