/**
 * Scene keys: a channel names where a conversation happens (chan:qq/peer:group_1); the first
 * turn that declares one sets it, later turns do not move it, and a malformed key is refused
 * at the protocol before any turn starts.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import * as v from "valibot";
import { Store } from "../../src/store/store.ts";
import { ChannelChatParams, SceneKey } from "../../src/protocol/channel.ts";
import { ChatSendParams } from "../../src/protocol/control.ts";
import { tempDir } from "../harness/binary.ts";

describe("scene keys", () => {
  test("the first declared scene stays with the conversation; none leaves it empty", () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    store.beginTurn("t1", "qq:group_1", "qq", 1000, "chan:qq/peer:group_1");
    store.beginTurn("t2", "qq:group_1", "qq", 2000, "chan:qq/peer:group_2");
    store.beginTurn("t3", "web-1", "web", 3000);
    const byId = new Map(store.listConversations().map((c) => [c.id, c.scene]));
    expect(byId.get("qq:group_1")).toBe("chan:qq/peer:group_1");
    expect(byId.get("web-1")).toBe("");
    // A conversation started without a scene takes the first one declared later.
    store.beginTurn("t4", "web-1", "web", 4000, "chan:web/peer:owner");
    expect(store.listConversations().find((c) => c.id === "web-1")?.scene).toBe("chan:web/peer:owner");
    store.close();
  });

  test("malformed scene keys are refused by both chat protocols", () => {
    for (const good of ["chan:qq/peer:group_123", "chan:acp/peer:zed-1.2", "chan:a2a/peer:agent@host:8080"])
      expect(v.safeParse(SceneKey, good).success).toBe(true);
    for (const bad of ["qq:group", "chan:QQ/peer:x", "chan:qq/peer:", "chan:qq/peer:a b", "chan:qq/peer:a/b", ""])
      expect(v.safeParse(SceneKey, bad).success).toBe(false);
    expect(v.safeParse(ChatSendParams, { text: "hi", scene: "nope" }).success).toBe(false);
    expect(v.safeParse(ChannelChatParams, { stream: "s", conv: "c", text: "hi", scene: "chan:x/peer:y" }).success).toBe(
      true,
    );
  });
});
