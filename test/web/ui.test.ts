/**
 * The web UI in real Chromium against the compiled binary and the fake LLM, as a person uses it:
 * first-run setup, a chat with a tool call and an approval, a plugin killed and shown
 * restarting, and a reload that keeps the conversation. Screenshots land in dist/screenshots.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { launchBrowser, shot, setProviderInPage } from "../harness/browser.ts";
import { openUiRig } from "../harness/ui-rig.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** A daemon with the agent fixture plugin and a fake LLM, and a page open on its web UI. */
const openUi = () => openUiRig(browser);

describe("web UI", () => {
  test("first run: set up a provider, test the connection, chat with a tool call approved in place, reload keeps it", async () => {
    await using ui = await openUi();
    const { llm, d, page, errors } = ui;

    await page.waitForSelector("#provider-form");
    expect(await page.textContent("h2")).toBe("Welcome to homed");
    await shot(page, "01-first-run");
    // What runs can be looked at before a key is given; chat brings the setup back.
    await page.click("a[href='#/plugins']");
    await page.waitForSelector("tr[data-channel=web]");
    expect(await page.textContent("tr[data-channel=cli]")).toContain("listening");
    expect(await page.textContent("#token-usage")).toBe("Tokens, all turns: no turns yet.");
    await shot(page, "01a-channels-before-setup");
    await page.click("a[href^='#/chat/']");
    await page.waitForSelector("#provider-form");
    await page.fill("#base-url", llm.url);
    await page.fill("#model", "fake-model");
    await page.fill("#api-key", "sk-ui-secret-abcd");
    // Save tests first: a provider that refuses is not saved unless the person says so.
    llm.script([{ status: 401 }]);
    await page.click("#save-provider");
    await page.waitForSelector("#provider-msg.bad #save-anyway");
    expect(await page.textContent("#provider-msg")).toMatch(/^Not saved: the test call failed: .*key/);
    await shot(page, "01b-save-refused");
    expect(
      await page.evaluate(
        async () => ((await (await fetch("/api/provider")).json()) as { configured: boolean }).configured,
      ),
    ).toBe(false);
    llm.script([{ text: "ok" }]);
    await page.click("#save-provider");
    await page.waitForSelector("#provider-msg.ok");
    expect(await page.textContent("#provider-msg")).toContain("Saved and connected: openai fake-model, key …abcd.");
    // The provider's own complaint comes through the test button.
    llm.script([{ status: 401 }]);
    await page.click("#test-connection");
    await page.waitForSelector("#provider-msg.bad");
    expect(await page.textContent("#provider-msg")).toMatch(/^Failed: .*key/);
    await shot(page, "02a-test-failed");
    llm.script([{ text: "ok" }]);
    await page.click("#test-connection");
    // Runs in the page: the test's own lib has no DOM types, so reach `document` through globalThis.
    await page.waitForFunction(() =>
      (
        globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }
      ).document
        .querySelector("#provider-msg")
        ?.textContent?.startsWith("Connected"),
    );
    expect(await page.textContent("#provider-msg")).toContain("fake-model answered: ok");
    // The key is never sent back in full.
    const provider = await page.evaluate(async () => (await fetch("/api/provider")).text());
    expect(provider).not.toContain("sk-ui-secret-abcd");
    await shot(page, "02-provider-saved");

    await page.click("#start-chatting");
    await page.waitForSelector("#prompt");
    llm.script([
      { text: "I will **remove** it.", toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/junk" } }] },
      { text: "Done — `/tmp/junk` is gone.\n\n<script>window.pwned = 1</script>" },
    ]);
    await page.fill("#prompt", "please delete /tmp/junk");
    await page.click("#send");
    await page.waitForSelector(".approval button.approve");
    // The new chat is in the sidebar while its first turn waits on the person.
    await page.waitForSelector("#conv-list [data-conv]", { timeout: 5_000 });
    await shot(page, "03-approval");
    await page.click(".approval button.approve");
    await page.waitForSelector(".msg.assistant .meta");
    const html = await page.innerHTML("#messages");
    expect(html).toContain("<code>/tmp/junk</code>");
    expect(html).toContain("&lt;script&gt;");
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.textContent(".tool .tool-status")).toBe("ok");
    expect(await page.textContent(".tool .tool-result")).toBe("removed /tmp/junk");
    await shot(page, "04-chat-done");
    // What memory put before the model is said with the reply, and again after a reload.
    const liveMeta = await page.locator(".msg.assistant .meta").first().textContent();
    expect(liveMeta).toContain("context ~");

    // Stop cancels a turn that is still running.
    llm.script([{ text: "This answer never finishes", stall: true }]);
    await page.fill("#prompt", "tell me a long story");
    await page.click("#send");
    await page.waitForSelector("#stop:not([hidden])");
    await llm.received(3);
    await page.click("#stop");
    await page.waitForSelector("#send:not([hidden])");
    await d.waitFor(/msg="turn finished".*stop=cancelled/);

    await page.reload();
    await page.waitForSelector(".msg.user");
    expect(await page.locator(".msg.user .body").first().textContent()).toBe("please delete /tmp/junk");
    expect(await page.textContent("#messages")).toContain("is gone");
    expect(await page.textContent(".conv.active .title")).toBe("please delete /tmp/junk");
    expect(await page.locator(".msg.assistant .meta").first().textContent()).toBe(liveMeta);
    await shot(page, "05-after-reload");
    // The plugins page adds up every turn's tokens, as `homed status` does.
    await page.click("a[href='#/plugins']");
    await page.waitForSelector("#token-usage:has-text('out over')");
    expect(await page.textContent("#token-usage")).toMatch(
      /^Tokens, all turns: [1-9]\d* in .*\/ \d+ out over 2 turns\.$/,
    );
    expect(errors).toEqual([]);
  }, 60_000);

  test("the plugins page shows a killed plugin restarting, and the memory page what the model was sent", async () => {
    await using ui = await openUi();
    const { llm, url, page, errors } = ui;
    await setProviderInPage(page, llm.url);
    await page.goto(`${url}#/plugins`);
    await page.waitForSelector('tr[data-plugin="agent"] .state.ready');
    const pid = Number(await page.textContent('tr[data-plugin="agent"] td:nth-child(3)'));
    process.kill(pid, "SIGKILL");
    // The state and its detail from one drawing of the row: the page redraws it every 500 ms, and
    // read one after the other they can come from two (restarting, then started again).
    await page
      .locator('tr[data-plugin="agent"] .state.restarting + .detail', { hasText: /restarting in \d s/ })
      .waitFor();
    await shot(page, "06-plugin-restarting");
    await page.waitForSelector('tr[data-plugin="agent"] .state.ready', { timeout: 10_000 });
    expect(await page.textContent('tr[data-plugin="agent"] .restarts')).toBe("1");

    llm.script([{ text: "The garden needs water." }]);
    await page.goto(`${url}#/chat/garden`);
    await page.waitForSelector("#prompt");
    await page.fill("#prompt", "what does the garden need?");
    await page.click("#send");
    await page.waitForSelector(".msg.assistant .meta");
    await page.goto(`${url}#/memory/garden`);
    await page.waitForSelector(".ctx.user");
    expect(await page.textContent(".ctx.user pre")).toBe("what does the garden need?");
    await page.fill("#memory-search", "homed");
    expect(await page.locator(".ctx").count()).toBe(1); // only the system prompt mentions homed
    await shot(page, "07-memory");
    expect(errors).toEqual([]);
  }, 60_000);
});
