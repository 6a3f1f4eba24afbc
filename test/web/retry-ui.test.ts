/**
 * Retry after a failed reply, in Chromium against the compiled daemon: the provider refuses
 * (twice), is fixed, and each Retry sends the message again; the page shows the message once
 * and no error, before and after a reload, and the model was sent the question once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { launchBrowser, setProviderInPage } from "../harness/browser.ts";
import { openUiRig } from "../harness/ui-rig.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe("Retry", () => {
  test("after the provider failed twice, the message shows once and the error is gone", async () => {
    await using ui = await openUiRig(browser);
    const { llm, page, errors } = ui;
    expect(await setProviderInPage(page, llm.url)).toBe(200);
    await page.goto(`${ui.url}#/chat/retry-1`);
    await page.reload();
    // A refusal that is not retried by the client: the turn ends with the provider's error.
    llm.script([{ status: 401 }]);
    await page.fill("#prompt", "what is a quokka?");
    await page.click("#send");
    await page.waitForSelector(".msg-retry");
    llm.script([{ status: 401 }]);
    await page.click(".msg-retry");
    await page.waitForFunction(() => {
      const d = (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }).document;
      return d.querySelectorAll(".msg-retry").length === 1 && d.querySelectorAll("#send:not([hidden])").length === 1;
    });
    llm.script([{ text: "A small wallaby." }]);
    await page.click(".msg-retry");
    // The reply itself, not any reply's line: the failed one's may still be on the page while
    // the retried turn runs (seen when the suite ran two files at a time).
    const answered = () =>
      page.waitForFunction(() => {
        const d = (globalThis as unknown as { document: { querySelectorAll(s: string): { textContent: string }[] } })
          .document;
        const bodies = d.querySelectorAll(".msg.assistant .body");
        return bodies.length > 0 && bodies[bodies.length - 1]?.textContent.trim() === "A small wallaby.";
      });
    await answered();
    await page.waitForSelector(".msg.assistant .meta");
    const shown = async () => ({
      asked: await page.locator(".msg.user").count(),
      retries: await page.locator(".msg-retry").count(),
      errors: await page.locator(".notice.error").count(),
      reply: (await page.locator(".msg.assistant .body").last().textContent())?.trim(),
    });
    expect(await shown()).toEqual({ asked: 1, retries: 0, errors: 0, reply: "A small wallaby." });
    await page.reload();
    await answered();
    await page.waitForSelector(".msg.assistant .meta");
    expect(await shown()).toEqual({ asked: 1, retries: 0, errors: 0, reply: "A small wallaby." });
    // The model read the question once in the request that answered it.
    const last = llm.requests.at(-1)?.body.messages as { role: string; content: unknown }[];
    expect(last.filter((m) => m.role === "user" && JSON.stringify(m.content).includes("quokka"))).toHaveLength(1);
    expect(errors).toEqual([]);
  }, 60_000);
});
