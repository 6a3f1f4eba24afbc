/**
 * The memory page in real Chromium against the compiled binary: the search box finds what was
 * said in another conversation (with time, conversation and snippet) and says "no matches" when
 * nothing does; after the model used memory_search, the page lists the events it brought back,
 * and the tools the model was offered fold away under one line.
 * Screenshots land in dist/screenshots (memory-*.png).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { launchBrowser, openPage, shot } from "../harness/browser.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe("memory page", () => {
  test("search box over the person's memory; no matches; what memory_search brought", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([{ text: "Noted, a red Brompton." }]);
    await rig.chat("My bike is a red Brompton, bought in Hangzhou last spring.", { conv: "cli-bike" });
    rig.llm.script([{ text: "Noted." }]);
    await rig.chat("我的自行车是红色的，放在楼下的车棚里。", { conv: "cli-zh" });

    // The model peeks, then brings the bike back in another conversation.
    rig.llm.script([{ toolCalls: [{ name: "memory_search", arguments: { query: "Brompton bike" } }] }, { text: "…" }]);
    await rig.chat("which bike do I have?", { conv: "web-ask" });
    const peek = (rig.llm.requests.at(-1)!.body as { messages: { role: string; content: string }[] }).messages.find(
      (m) => m.role === "tool",
    )!.content;
    const id = Number(/- id (\d+) [^\n]*Brompton/.exec(peek)![1]);
    rig.llm.script([{ toolCalls: [{ name: "memory_search", arguments: { ids: [id] } }] }, { text: "A red Brompton." }]);
    await rig.chat("bring it back", { conv: "web-ask" });

    const url = await webUrlOf(rig.daemon);
    const { page, errors } = await openPage(browser, `${url}#/memory/web-ask`);
    await page.waitForSelector("#recall-search");
    await page.waitForSelector("#brought .hit");
    expect(await page.textContent("#brought")).toContain("Brought back by memory_search (1)");
    expect(await page.textContent("#brought .hit")).toContain("My bike is a red Brompton");
    // The tools offered fold away under one line instead of filling the summary.
    const offered = Number(/(\d+) tools offered/.exec((await page.textContent("#context-summary")) ?? "")?.[1]);
    expect(offered).toBeGreaterThanOrEqual(3);
    expect(await page.isVisible("#offered-tools p")).toBe(false);
    await page.click("#offered-tools summary");
    const names = ((await page.textContent("#offered-tools p")) ?? "").split(", ");
    expect(names).toContain("memory_search");
    expect(names).toHaveLength(offered);

    await page.fill("#recall-search", "Brompton");
    await page.click("#recall-go");
    await page.waitForSelector("#recall-results .hit");
    const hits = await page.$$eval("#recall-results .hit", (els) => els.map((e) => e.textContent ?? ""));
    const told = hits.find((t) => t.includes("My bike is a red Brompton"));
    expect(told).toContain("cli · cli-bike");
    expect(told).toMatch(/\d{1,2}:\d\d/); // when it was said
    await shot(page, "memory-search");

    await page.fill("#recall-search", "自行车");
    await page.click("#recall-go");
    await page.waitForSelector("#recall-results .hit:has-text('车棚')");

    await page.fill("#recall-search", "xylophone");
    await page.click("#recall-go");
    await page.waitForSelector("#recall-results .no-matches");
    expect(await page.textContent("#recall-results")).toContain("No matches");
    await shot(page, "memory-no-matches");
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
