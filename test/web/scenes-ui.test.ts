/**
 * The scenes page in real Chromium against the compiled binary: a group chat's declared scene
 * and the narrower one found inside it are listed with strength, members and settings; the
 * member turns open on demand; a persona and a tool list saved in the form are kept (a reload
 * shows them). Screenshots land in dist/screenshots (scenes-*.png).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { launchBrowser, openPage, shot } from "../harness/browser.ts";
import { connectUnixRpc } from "../../src/ipc/unix-rpc.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const GROUP = "chan:qq/peer:group_1";

describe("scenes page", () => {
  test("lists scenes with strength, members and settings; settings saved from the form stay", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const c = await connectUnixRpc(
      rig.daemon.socket,
      { warn: () => {}, debug: () => {} },
      { onRequest: () => ({ approved: false }) },
    );
    rig.llm.script([1, 2, 3].map(() => ({ text: "ok" })));
    for (const text of [
      "board game night on friday?",
      "board game night again this friday",
      "who brings board games friday",
    ])
      await c.peer.request("chat.send", { text, conv: "qq:group_1", channel: "qq", untrusted: true, scene: GROUP });
    c.close();

    const url = await webUrlOf(rig.daemon);
    const { page, errors } = await openPage(browser, `${url}#/scenes`);
    await page.waitForSelector("#scenes .scene");
    const declared = page.locator(".scene", { hasText: GROUP }).first();
    expect(await declared.textContent()).toContain("declared");
    expect(await declared.textContent()).toContain("members 3 turns");
    expect(await declared.textContent()).toMatch(/strength 3\.00/);
    expect(await page.locator(".scene", { hasText: `in ${GROUP}` }).count()).toBeGreaterThan(0);

    await declared.locator("summary").click();
    await declared.locator(".scene-members li").first().waitFor();
    expect(await declared.locator(".scene-members li").count()).toBe(3);

    await declared.locator(".scene-persona").fill("You are the group's game master.");
    await declared.locator(".scene-tools").fill("memory_search");
    await declared.locator("button[type=submit]").click();
    await declared.locator(".form-msg.ok").waitFor();
    await shot(page, "scenes-page");

    await page.reload();
    await page.waitForSelector("#scenes .scene");
    const again = page.locator(".scene", { hasText: GROUP }).first();
    expect(await again.locator(".scene-persona").inputValue()).toBe("You are the group's game master.");
    expect(await again.locator(".scene-tools").inputValue()).toBe("memory_search");
    expect(await again.textContent()).toContain("settings");
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
