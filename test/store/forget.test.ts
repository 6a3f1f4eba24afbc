/**
 * Conversation titles and forgetting at the store: a forgotten conversation leaves the list and
 * keeps every event; a turn after it brings the conversation back with only what came after.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Store, TITLE_CHARS, titleFrom } from "../../src/store/store.ts";
import { tempDir } from "../harness/binary.ts";

function say(store: Store, conv: string, text: string, turn: string): void {
  store.beginTurn(turn, conv, "web");
  store.append({ conv, kind: "user-message", actor: "user", body: { turn, text } });
  store.finishTurn(turn, { iterations: 1, inputTokens: 10, outputTokens: 5, stopReason: "done" });
}

describe("conversation titles and forgetting", () => {
  test("a title is the first message, folded and cut to 60 characters with an ellipsis", () => {
    expect(titleFrom("  short\n\n question ")).toBe("short question");
    const long = titleFrom("x".repeat(200));
    expect(long.length).toBe(TITLE_CHARS);
    expect(long.endsWith("…")).toBe(true);
    expect(titleFrom("y".repeat(TITLE_CHARS))).toBe("y".repeat(TITLE_CHARS));
  });

  test("rename, reset by an empty title; forget hides it and keeps the events; a later turn brings it back", () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    say(store, "c1", "first thing said", "t1");
    store.renameConversation("c1", "  My   name ");
    expect(store.listConversations()[0]?.title).toBe("My name");
    store.renameConversation("c1", "");
    expect(store.listConversations()[0]?.title).toBe("first thing said");
    expect(() => store.renameConversation("nope", "x")).toThrow("no conversation nope");

    expect(store.forgetConversation("c1")).toEqual({ events: 1 });
    expect(store.listConversations()).toEqual([]);
    expect(store.recentConversationEvents("c1", 100)).toEqual([]);
    expect(store.eventCount()).toBe(1);
    expect(() => store.forgetConversation("nope")).toThrow("no conversation nope");

    say(store, "c1", "after forgetting", "t2");
    expect(store.listConversations().map((c) => c.title)).toEqual(["after forgetting"]);
    expect(store.recentConversationEvents("c1", 100).length).toBe(1);
    expect(store.eventCount()).toBe(2);
    store.close();
  });

  test("the forgotten bounds follow each forgetting, read before and after", () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    say(store, "c1", "one", "t1");
    say(store, "c2", "two", "t2");
    expect([...store.forgottenBounds()]).toEqual([]);
    store.forgetConversation("c1");
    const first = store.recentConversationEvents("c2", 1)[0]?.id ?? 0;
    expect([...store.forgottenBounds()]).toEqual([["c1", first - 1]]);
    say(store, "c1", "three", "t3");
    store.forgetConversation("c1");
    store.forgetConversation("c2");
    const bounds = store.forgottenBounds();
    expect(bounds.get("c1")).toBe(first + 1);
    expect(bounds.get("c2")).toBe(first);
    // Another reader of the same file agrees.
    const other = Store.open(join(dir.path, "homed.db"));
    expect([...other.forgottenBounds()].sort()).toEqual([...bounds].sort());
    other.close();
    store.close();
  });

  test("the newest events leave out the kinds asked, so a long file's chunks take no place of what was said", () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    say(store, "c1", "here is the report", "t1");
    for (let i = 0; i < 5; i++)
      store.append({
        conv: "c1",
        kind: "attachment-chunk",
        actor: "user",
        body: { turn: "t1", sha256: "a".repeat(64), offset: i * 2000, text: `page ${i + 1}` },
      });
    say(store, "c1", "thanks", "t2");
    expect(store.recentConversationEvents("c1", 2).map((e) => e.kind)).toEqual(["attachment-chunk", "user-message"]);
    const shown = store.recentConversationEvents("c1", 2, ["attachment-chunk"]);
    expect(shown.map((e) => e.kind)).toEqual(["user-message", "user-message"]);
    expect(store.recentConversationEvents("c1", 100).length).toBe(7);
    store.close();
  });
});
