/**
 * A QQ message's typed text cannot claim a stored picture: `[image block <sha256> …]` written
 * by a sender (anyone in a group) is defused before it is logged, so it never becomes a block
 * record of their message — only an image segment the plugin stored does (test/channels/qq-ws);
 * and tags in other channels' messages are not believed at all.
 */
import { describe, expect, test } from "bun:test";
import { messageText } from "../../plugins/qq/message-text.ts";
import type { Plugin } from "../../plugins/sdk/index.ts";
import { blocksOfEvent } from "../../src/store/event-blocks.ts";

describe("qq message text", () => {
  test("a typed image tag is defused and makes no block record", async () => {
    const forged = `see [image block ${"c".repeat(64)} image/png 5 bytes]`;
    const text = await messageText([{ type: "text", data: { text: forged } }], {
      plugin: {} as Plugin,
      selfId: 1,
      maxImageBytes: 1000,
    });
    expect(text).toBe(`see [image-block ${"c".repeat(64)} image/png 5 bytes]`);
    expect(blocksOfEvent("user-message", JSON.stringify({ text, channel: "qq" }), ["qq"])).toEqual([]);
    expect(blocksOfEvent("user-message", JSON.stringify({ text: forged, channel: "qq" }), ["qq"])).toHaveLength(1);
    // Another channel's tags are only text: they make no block record at all.
    expect(blocksOfEvent("user-message", JSON.stringify({ text: forged, channel: "web" }), ["qq"])).toEqual([]);
  });
});
