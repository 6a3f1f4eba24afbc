/**
 * The person's habits behind the standing tool offer (src/agent/tool-offer.ts): Store.toolUse
 * counts tool calls by name within a time range, through the partial index on tool calls.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Store } from "../../src/store/store.ts";
import { tempDir } from "../harness/binary.ts";

const DAY = 86_400_000;

describe("tool use by time", () => {
  test("counts the calls of each tool from a day until (not at) another, and nothing else", () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    const call = (name: string, ts: number) =>
      store.append({
        conv: "c",
        kind: "tool-call",
        actor: "agent",
        untrusted: false,
        ts,
        body: { turn: "t", callId: `${name}-${ts}`, name, arguments: "{}" },
      } as never);
    const today = 20_000 * DAY;
    call("shell_run", today - 3 * DAY);
    call("shell_run", today - 2 * DAY);
    call("notes_list", today - DAY);
    call("notes_list", today + 1_000);
    call("music_play", today - 40 * DAY);
    store.append({
      conv: "c",
      kind: "user-message",
      actor: "user",
      untrusted: false,
      ts: today - DAY,
      body: { turn: "t", text: "shell_run" },
    } as never);
    expect(store.toolUse(today - 28 * DAY, today)).toEqual(
      new Map([
        ["notes_list", 1],
        ["shell_run", 2],
      ]),
    );
    expect(store.toolUse(today, today + DAY)).toEqual(new Map([["notes_list", 1]]));
    store.close();
  });
});
