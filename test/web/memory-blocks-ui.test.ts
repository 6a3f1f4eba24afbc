/**
 * Pictures on the memory page, in real Chromium against the compiled binary: a tool's image
 * whose alt text says "a red bike" is found by searching "red bike", and the hit shows the
 * picture (loaded from /api/blocks, its alt the block's text, its title the block id and its
 * holder). The model's memory_search peek names the block too. Screenshot: dist/screenshots/
 * memory-blocks.png.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { launchBrowser, openPage, shot } from "../harness/browser.ts";
import { installBunPlugin } from "../harness/plugins.ts";
import { poll } from "../harness/poll.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe("memory page: blocks", () => {
  test("a hit shows its picture, captioned by the block's text; memory_search names the block", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "image", "image.ts", { transport: "shm" });
    await using rig = await startAgentRig(dir.path);
    await poll(rig.status, (st) => st.tools.some((t) => t.name === "image_make"), { what: "image_make registered" });
    const alt = "a red bike leaning on the garden wall";
    rig.llm.script([
      { toolCalls: [{ id: "c1", name: "image_make", arguments: { shots: [{ w: 40, h: 30, alt }], text: "made it" } }] },
      { text: "Here it is." },
    ]);
    await rig.chat("draw my bike", { conv: "cli-draw" });
    rig.llm.script([
      { toolCalls: [{ name: "memory_search", arguments: { query: "photo of the red bike" } }] },
      { text: "found it" },
    ]);
    await rig.chat("where is the photo of my red bike?", { conv: "cli-ask" });
    const last = rig.llm.requests.at(-1)?.body as { messages: { role: string; content: string }[] } | undefined;
    const peek = last?.messages.find((m) => m.role === "tool")?.content;
    expect(peek).toMatch(new RegExp(`tool image_make: image_make made it · image block \\d+: ${alt}`));

    const url = await webUrlOf(rig.daemon);
    const { page, errors } = await openPage(browser, `${url}#/memory/cli-ask`);
    await page.waitForSelector("#recall-search");
    await page.fill("#recall-search", "red bike");
    await page.click("#recall-go");
    const img = await page.waitForSelector("#recall-results .hit .hit-blocks img.tool-image");
    expect(await img.getAttribute("alt")).toBe(alt);
    await poll(
      () => img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth),
      (w) => w === 40,
      { what: "the picture loaded" },
    );
    const link = await page.$("#recall-results .hit .hit-blocks a");
    expect(await link?.getAttribute("title")).toMatch(/^block \d+ · L1$/);
    await shot(page, "memory-blocks");
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);
});
