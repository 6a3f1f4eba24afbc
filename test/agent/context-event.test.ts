/**
 * The stream's `context` event: what memory put before the model. Through the compiled daemon
 * and the scripted model: `homed chat` says when memory quoted another conversation, the web
 * stream carries the event with the prompt's size against the window, and the reply's line in
 * the page shows it.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { webTurn } from "../harness/web-turn.ts";

describe("the context event", () => {
  test("says what memory brought in: nothing on a first message, another conversation's words when it quotes them", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    rig.llm.script([{ text: "Noted." }, { text: "It is red." }, { text: "Red, from Utrecht." }]);
    const first = await rig.chat("Remember this: my bike is a red Gazelle that I bought in Utrecht.", {
      conv: "told",
    });
    expect(first.stderr).not.toContain("[memory:");
    const asked = await rig.chat("What colour is my bike?", { conv: "asked" });
    expect(asked.stdout).toBe("It is red.\n");
    expect(asked.stderr).toContain("[memory: quoted your other conversations]");

    const url = await webUrlOf(rig.daemon);
    const web = await webTurn(url, "web-asks", "Where did I buy my bike?");
    await web.done;
    const ctx = web.events.find((e) => e.type === "context") as Record<string, unknown>;
    expect(ctx).toMatchObject({ type: "context", messages: 0, recalled: false, across: true });
    expect(ctx.tokens as number).toBeGreaterThan(0);
    expect(ctx.tokens as number).toBeLessThan(ctx.window as number);
    // Sent before the model's words.
    const at = (t: string) => web.events.findIndex((e) => e.type === t);
    expect(at("context")).toBeLessThan(at("text-delta"));
  }, 60_000);
});
