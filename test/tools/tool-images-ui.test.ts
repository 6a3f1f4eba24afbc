/**
 * Tool-result images in the web UI, in real Chromium against dist/homed: a tool that returns a
 * picture shows it in its tool card as the turn runs, loaded from /api/blocks (a real image the
 * browser decoded, at its size), and again after a reload, from the transcript.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { tempDir } from "../harness/binary.ts";
import { launchBrowser, openPage, shot, setProviderInPage } from "../harness/browser.ts";
import { startDaemon, webUrlOf } from "../harness/daemon.ts";
import { startFakeLlm } from "../harness/fake-llm.ts";
import { installBunPlugin } from "../harness/plugins.ts";
import { poll } from "../harness/poll.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

type Loaded = { src: string; w: number; h: number; complete: boolean };

/** The decoded size of every image in the page's tool cards, once all have loaded. */
async function cardImages(page: Page): Promise<Loaded[]> {
  return await poll(
    () =>
      page.locator(".tool .tool-image").evaluateAll((imgs) =>
        imgs.map((el) => {
          const i = el as unknown as { naturalWidth: number; naturalHeight: number; complete: boolean };
          return { src: el.getAttribute("src") ?? "", w: i.naturalWidth, h: i.naturalHeight, complete: i.complete };
        }),
      ),
    (list) => list.length > 0 && list.every((i) => i.complete && i.w > 0),
    { what: "the tool card's images to load" },
  );
}

describe("tool-result images in the web UI", () => {
  test("the tool card shows the image live and after a reload", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "image", "image.ts");
    await using llm = await startFakeLlm();
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    const { page, errors } = await openPage(browser, url);
    try {
      const status = await setProviderInPage(page, llm.url);
      expect(status).toBe(200);
      await page.goto(`${url}#/chat/pictures`);
      await page.waitForSelector("#prompt");
      llm.script([
        { toolCalls: [{ name: "image_make", arguments: { shots: [{ w: 40, h: 30 }] } }] },
        { text: "Here is your picture." },
      ]);
      await page.fill("#prompt", "draw me a box");
      await page.click("#send");
      await page.waitForSelector(".msg.assistant .meta");
      const live = await cardImages(page);
      expect(live).toHaveLength(1);
      expect(live[0]?.src).toMatch(/^\/api\/blocks\/[0-9a-f]{64}$/);
      expect([live[0]?.w, live[0]?.h]).toEqual([40, 30]);
      await shot(page, "tool-image-01-live");

      await page.reload();
      await page.waitForSelector(".msg.assistant");
      const reloaded = await cardImages(page);
      expect(reloaded.map((i) => i.src)).toEqual(live.map((i) => i.src));
      expect([reloaded[0]?.w, reloaded[0]?.h]).toEqual([40, 30]);
      // Shown inline after a reload too: a card with pictures is not folded away.
      expect(await page.locator(".tool .tool-image").isVisible()).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);
});
