/**
 * The settings page's "Plugins" part in real Chromium against the compiled binary: a block per
 * plugin section the kernel lists (none for a section carrying secrets), a control per field by
 * its kind; one Save sends only the changed fields and shows the answer; a refused value shows
 * the kernel's message and writes nothing; "Use config.toml" gives a field back on the next Save.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { launchBrowser, openPage, setProviderInPage, shot } from "../harness/browser.ts";
import { startDaemon, webUrlOf } from "../harness/daemon.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe("plugins on the settings page", () => {
  test("a field by its kind, saved alone, refused with the kernel's message, given back to config.toml", async () => {
    using dir = tempDir();
    // Values of every kind set in config.toml, a text with a line break among them: a Save must
    // send none of them back unchanged (a one-line input would have dropped the break).
    writeFileSync(
      join(dir.path, "config.toml"),
      '[tools.media]\ntts_voice = """\nline one\nline two"""\n\n[tools.music]\nlibrary = ["music", "more music"]\n\n[tools.sandbox]\nmode = "none"\nnetwork = true\ntimeout_ms = 5000\n',
    );
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    const { page, errors } = await openPage(browser, url);
    expect(await setProviderInPage(page, "http://127.0.0.1:9/v1")).toBe(200);
    await page.goto(`${url}#/settings`);
    await page.waitForSelector("#plugin-settings details[data-section='tools.fetch']");
    // Sections carrying tokens or secrets are not shown; an external one would be, like fetch.
    expect(await page.locator("#plugin-settings details[data-section='channels.qq']").count()).toBe(0);

    await page.click("details[data-section='tools.fetch'] summary");
    const maxKb = "[data-setting='tools.fetch.max_kb']";
    expect(await page.getAttribute(maxKb, "type")).toBe("number");
    expect(await page.getAttribute(maxKb, "min")).toBe("1");
    expect(await page.inputValue(maxKb)).toBe("4096");
    expect(await page.getAttribute("[data-setting='tools.fetch.allow_private']", "type")).toBe("checkbox");
    expect(await page.locator("select[data-setting='tools.fetch.search_provider'] option").allTextContents()).toEqual([
      "(none)",
      "searxng",
      "brave",
    ]);
    expect(await page.textContent(".source[data-field='tools.fetch.max_kb']")).toBe("default");
    expect(await page.textContent(".source[data-field='tools.media.tts_voice']")).toBe("config.toml");
    expect(await page.inputValue("[data-setting='tools.media.tts_voice']")).toBe("line one\nline two");
    // Which program runs and how commands are confined stay in config.toml (configFileOnly).
    expect(await page.locator("[data-setting='tools.sandbox.mode']").count()).toBe(0);
    expect(await page.locator("[data-setting='tools.browser.executable']").count()).toBe(0);
    expect(await page.inputValue("[data-setting='tools.music.library']")).toBe("music\nmore music");

    // A refused value: the kernel's message in the form, nothing written.
    await page.fill(maxKb, "-1");
    await page.click("#save-settings");
    await page.waitForSelector("#settings-msg.bad");
    expect(await page.textContent("#settings-msg")).toContain("tools.fetch.max_kb:");
    expect(existsSync(join(dir.path, "settings.json"))).toBe(false);

    await page.fill(maxKb, "512");
    await page.click("#save-settings");
    await page.waitForSelector("#settings-msg.ok");
    expect(await page.textContent("#settings-msg")).toBe("Applied now: tools.fetch.max_kb.");
    expect(await page.textContent(".source[data-field='tools.fetch.max_kb']")).toBe("settings.json");
    // Only the changed field went to settings.json; the block stayed open.
    expect(JSON.parse(readFileSync(join(dir.path, "settings.json"), "utf8"))).toEqual({
      sections: { "tools.fetch": { max_kb: 512 } },
    });
    expect(await page.isVisible(maxKb)).toBe(true);
    await page.locator("details[data-section='tools.fetch']").scrollIntoViewIfNeeded();
    await shot(page, "settings-plugins-1280");

    await page.click(".source[data-field='tools.fetch.max_kb'] + button.use-config");
    await page.click("#save-settings");
    await page.waitForSelector("#settings-msg.ok");
    expect(await page.textContent(".source[data-field='tools.fetch.max_kb']")).toBe("default");
    expect(await page.inputValue(maxKb)).toBe("4096");
    expect(JSON.parse(readFileSync(join(dir.path, "settings.json"), "utf8"))).toEqual({});
    expect(errors).toEqual([]);
  }, 60_000);

  test("settings.json's fields for a plugin no longer there are named, and a Save can remove them", async () => {
    using dir = tempDir();
    const file = join(dir.path, "settings.json");
    writeFileSync(file, JSON.stringify({ sections: { "tools.fetch": { max_kb: 256 }, "tools.gone": { depth: 3 } } }));
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    const { page, errors } = await openPage(browser, url);
    expect(await setProviderInPage(page, "http://127.0.0.1:9/v1")).toBe(200);
    await page.goto(`${url}#/settings`);
    await page.waitForSelector("#plugin-settings .unused-settings");
    expect(await page.textContent("#plugin-settings .unused-settings code")).toBe("tools.gone.depth");
    await page.locator("#plugin-settings .unused-settings").scrollIntoViewIfNeeded();
    await shot(page, "settings-unused-1280");

    // Not marked: a Save of another field leaves them.
    await page.click("details[data-section='tools.fetch'] summary");
    await page.fill("[data-setting='tools.fetch.max_kb']", "300");
    await page.click("#save-settings");
    await page.waitForSelector("#settings-msg.ok");
    expect(JSON.parse(readFileSync(file, "utf8")).sections["tools.gone"]).toEqual({ depth: 3 });

    await page.check("#remove-unused");
    await page.click("#save-settings");
    await page.waitForSelector("#plugin-settings .unused-settings", { state: "detached" });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ sections: { "tools.fetch": { max_kb: 300 } } });
    expect(errors).toEqual([]);
  }, 60_000);
});
