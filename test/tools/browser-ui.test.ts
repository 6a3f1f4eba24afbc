/**
 * The browser's steps as a person sees them in the web UI, in real Chromium twice over (the test
 * drives the UI in one, the agent's browser plugin runs its own): browser_open waits in its tool
 * card for the person's Allow, the page text comes back in the card, and the screenshot that
 * follows (a read tool: not asked) shows in its card as an image of the page's size.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { tempDir } from "../harness/binary.ts";
import { launchBrowser, openPage, shot, setProviderInPage } from "../harness/browser.ts";
import { startDaemon, webUrlOf } from "../harness/daemon.ts";
import { startFakeLlm } from "../harness/fake-llm.ts";
import { poll } from "../harness/poll.ts";
import { startTestSite, type TestSite } from "./browser-page.ts";

let browser: Browser;
let site: TestSite;
beforeAll(async () => {
  browser = await launchBrowser();
  site = startTestSite();
});
afterAll(async () => {
  site.stop();
  await browser?.close();
});

describe("the browser in the web UI", () => {
  test("open asks in its card, the page text and then the screenshot appear in their cards", async () => {
    using dir = tempDir();
    mkdirSync(dir.path, { recursive: true });
    writeFileSync(join(dir.path, "config.toml"), "[tools.browser]\nallow_private = true\ntimeout_ms = 60000\n");
    await using llm = await startFakeLlm();
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    const { page, errors } = await openPage(browser, url);
    try {
      const status = await setProviderInPage(page, llm.url);
      expect(status).toBe(200);
      await page.goto(`${url}#/chat/browse`);
      await page.waitForSelector("#prompt");
      llm.script([
        { toolCalls: [{ name: "browser_open", arguments: { url: `${site.origin}/` } }] },
        { toolCalls: [{ name: "browser_screenshot", arguments: {} }] },
        { text: "That is the greeter." },
      ]);
      await page.fill("#prompt", "show me the greeter");
      await page.click("#send");

      // browser_open is network: its card waits for the person.
      const openCard = page.locator("details.tool").filter({ hasText: "browser_open" });
      await openCard.locator(".approval .approve").waitFor();
      expect(await openCard.locator(".tool-status").textContent()).toBe("waiting for you");
      await shot(page, "browser-ui-01-asks");
      await openCard.locator(".approval .approve").click();

      await page.waitForSelector(".msg.assistant .meta", { timeout: 90_000 });
      expect(await openCard.locator(".tool-status").textContent()).toBe("ok");
      expect(await openCard.locator("pre.tool-result").textContent()).toContain('[3] button "Greet"');
      const shotCard = page.locator("details.tool").filter({ hasText: "browser_screenshot" });
      expect(await shotCard.locator(".approval").count()).toBe(0);
      const size = await poll(
        () =>
          shotCard.locator(".tool-image").evaluateAll((imgs) =>
            imgs.map((el) => {
              const i = el as unknown as { naturalWidth: number; naturalHeight: number; complete: boolean };
              return { w: i.naturalWidth, h: i.naturalHeight, complete: i.complete };
            }),
          ),
        (list) => list.length === 1 && list[0]?.complete === true && (list[0]?.w ?? 0) > 0,
        { what: "the screenshot in its card" },
      );
      expect([size[0]?.w, size[0]?.h]).toEqual([1280, 800]);
      await shot(page, "browser-ui-02-screenshot");
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 150_000);
});
