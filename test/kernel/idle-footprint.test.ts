/**
 * What a daemon carries before it needs it. jieba (Chinese segmentation, ~42 MiB with its
 * dictionary) is loaded by the first Chinese text, not at start: the tools' index made after
 * ready leaves the tools' Chinese examples out until Chinese is segmented anyway, and takes them
 * in when a Chinese request is ranked.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";

/** Native libraries the compiled daemon has loaded: each is unpacked to /tmp/.bun-<hash>.so or .node. */
const addons = (pid: number) =>
  new Set(readFileSync(`/proc/${pid}/maps`, "utf8").match(/\/tmp\/\.bun-[^\s]+\.(?:so|node)/g) ?? []);

describe("the daemon's idle footprint", () => {
  test("jieba is not loaded until a Chinese text comes; then tools_find finds tools by their Chinese examples", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    await rig.daemon.waitFor(/msg="first turn prepared"/);
    rig.llm.script([{ text: "ok" }]);
    const before = addons(rig.daemon.proc.pid);
    await rig.chat("hello there", { conv: "en" });
    expect(addons(rig.daemon.proc.pid)).toEqual(before);

    rig.llm.script([{ toolCalls: [{ name: "tools_find", arguments: { query: "网页截图" } }] }, { text: "好的" }]);
    await rig.chat("网页截图", { conv: "zh" });
    // jieba's addon, and only it, came with the Chinese text.
    expect(addons(rig.daemon.proc.pid).size).toBe(before.size + 1);
    const sent = (rig.llm.requests.at(-1)?.body.messages ?? []) as { role: string; content: string }[];
    // "网页截图" is one of browser_screenshot's examples: nothing else in its spec is Chinese.
    expect(sent.findLast((m) => m.role === "tool")?.content).toContain("- browser_screenshot: ");
  }, 60_000);
});
