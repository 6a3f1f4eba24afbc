/**
 * Turns that outlive the page, in real Chromium against the compiled binary and the fake LLM: a
 * reload mid-reply re-attaches to the live stream and the reply completes there and in the log;
 * a second tab sees the same stream and the approval still open; Stop during a slow tool ends
 * the tool's process (SIGTERM, then SIGKILL), every page shows the card cancelled, and the next
 * message runs only after the stopped turn ended; a message sent while a freshly opened page
 * still looks for a live turn is sent, not dropped. Screenshots land in dist/screenshots.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { tempDir } from "../harness/binary.ts";
import { startDaemon, webUrlOf } from "../harness/daemon.ts";
import { launchBrowser, shot, setProviderInPage } from "../harness/browser.ts";
import { openUiRig } from "../harness/ui-rig.ts";
import { poll } from "../harness/poll.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** A daemon with the agent fixture plugin, a fake LLM configured as its provider, and a page. */
async function openUi() {
  const ui = await openUiRig(browser, { pluginArgs: ["--process-tool"] });
  const status = await setProviderInPage(ui.page, ui.llm.url);
  expect(status).toBe(200);
  return ui;
}

const streamingText = (p: Page) => p.locator(".msg.assistant.streaming .body").textContent();

describe("turns that outlive the page", () => {
  test("a reload mid-reply re-attaches; a second tab sees the same stream; the reply completes in both and in the log", async () => {
    await using ui = await openUi();
    const { llm, d, url, page, errors } = ui;
    await page.goto(`${url}#/chat/live-reload`);
    await page.waitForSelector("#prompt");
    llm.script([{ text: "The first part arrives now and the rest only much later.", stall: true }]);
    await page.fill("#prompt", "tell me slowly");
    await page.click("#send");
    await llm.received(1);
    await poll(
      () => streamingText(page),
      (t) => (t ?? "").length > 0,
      { what: "the first words on the page" },
    );
    const before = (await streamingText(page)) ?? "";

    await page.reload();
    // The reloaded page shows the turn still running, with what was streamed before the reload.
    await page.waitForSelector(".msg.assistant.streaming");
    await page.waitForSelector("#stop:not([hidden])");
    expect(await streamingText(page)).toBe(before);
    expect(await page.locator(".msg.user").count()).toBe(1);
    const other = await ui.tab("#/chat/live-reload");
    await other.waitForSelector(".msg.assistant.streaming");
    expect(await streamingText(other)).toBe(before);
    await shot(page, "live-01-reattached-after-reload");

    llm.resume();
    for (const p of [page, other]) {
      await p.waitForSelector(".msg.assistant .meta");
      expect((await p.textContent(".msg.assistant .body"))?.trim()).toBe(
        "The first part arrives now and the rest only much later.",
      );
      expect(await p.locator(".msg.user").count()).toBe(1);
      await p.waitForSelector("#send:not([hidden])");
    }
    await d.waitFor(/msg="turn finished".*stop=done/);
    expect(d.stderr()).not.toMatch(/stop=cancelled/);
    const log = await page.evaluate(async () => (await fetch("/api/conversations/live-reload")).json());
    expect(log).toContainEqual(
      expect.objectContaining({
        event: expect.objectContaining({
          type: "done",
          result: expect.objectContaining({
            text: "The first part arrives now and the rest only much later.",
            stopReason: "done",
          }),
        }),
      }),
    );
    await shot(other, "live-02-second-tab-done");
    expect(errors).toEqual([]);
  }, 60_000);

  test("an approval still open is shown on a reloaded page and can be answered there", async () => {
    await using ui = await openUi();
    const { llm, url, page, errors } = ui;
    await page.goto(`${url}#/chat/live-approve`);
    await page.waitForSelector("#prompt");
    llm.script([{ toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/x" } }] }, { text: "Removed it." }]);
    await page.fill("#prompt", "remove /tmp/x");
    await page.click("#send");
    await page.waitForSelector(".approval button.approve");
    await page.reload();
    await page.waitForSelector(".approval button.approve");
    const other = await ui.tab("#/chat/live-approve");
    await other.waitForSelector(".approval button.approve");
    await page.click(".approval button.approve");
    // The other tab is told the question was answered.
    await other.waitForSelector(".tool .tool-status.ok");
    for (const p of [page, other]) {
      await p.waitForSelector(".msg.assistant .meta");
      expect(await p.textContent(".tool .tool-result")).toBe("removed /tmp/x");
      expect(await p.locator(".tool").count()).toBe(1);
    }
    expect(errors).toEqual([]);
  }, 60_000);

  test("Stop during a slow tool ends its process, shows the card cancelled everywhere, and the next message waits", async () => {
    await using ui = await openUi();
    const { llm, d, url, page, errors, pluginDir } = ui;
    await page.goto(`${url}#/chat/live-stop`);
    await page.waitForSelector("#prompt");
    llm.script([{ toolCalls: [{ name: "slow_process", arguments: { seconds: 12 } }] }, { text: "Next answer." }]);
    await page.fill("#prompt", "run the slow thing");
    await page.click("#send");
    await page.waitForSelector(".tool .tool-status.running");
    const seen = () =>
      existsSync(join(pluginDir, "seen.jsonl"))
        ? readFileSync(join(pluginDir, "seen.jsonl"), "utf8")
            .trim()
            .split("\n")
            .map((l) => JSON.parse(l) as Record<string, unknown>)
            .filter((e) => e.tool === "slow_process")
        : [];
    const started = await poll(seen, (s) => s.some((e) => typeof e.pid === "number"), { what: "the tool's pid" });
    const pid = started.find((e) => typeof e.pid === "number")!.pid as number;
    expect(() => process.kill(pid, 0)).not.toThrow();
    const other = await ui.tab("#/chat/live-stop");
    await other.waitForSelector(".tool .tool-status.running");

    const stoppedAt = Date.now();
    await page.click("#stop");
    for (const p of [page, other]) {
      await p.waitForSelector(".tool .tool-status.cancelled");
      await p.waitForSelector("#send:not([hidden])");
    }
    await d.waitFor(/msg="turn finished".*stop=cancelled/);
    // The process ignores SIGTERM: it is gone only because SIGKILL followed the grace period.
    await poll(
      () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      (gone) => gone,
      { what: `the tool's process ${pid} to end`, timeoutMs: 5000 },
    );
    expect(Date.now() - stoppedAt).toBeLessThan(8000);
    await poll(seen, (s) => s.some((e) => e.ended === "SIGKILL" && e.cancelled === true), {
      what: "the tool to report its process killed",
    });
    await shot(other, "live-03-tool-cancelled");

    // The next message starts after the stopped turn ended, and the model sees the tool stopped.
    expect(llm.requests.length).toBe(1);
    await page.fill("#prompt", "and now?");
    await page.click("#send");
    await page.waitForSelector(".msg.assistant .meta");
    await poll(
      () => page.locator(".msg.assistant .body").last().textContent(),
      (t) => t?.trim() === "Next answer.",
      {
        what: "the next answer",
      },
    );
    expect(llm.requests.length).toBe(2);
    expect(JSON.stringify(llm.requests[1]!.body.messages)).toContain("cancelled: the turn was stopped");
    const log = await page.evaluate(async () => (await fetch("/api/conversations/live-stop")).json());
    expect(log).toContainEqual(
      expect.objectContaining({ event: expect.objectContaining({ type: "tool-result", status: "cancelled" }) }),
    );
    expect(errors).toEqual([]);
  }, 60_000);

  test("a message sent while the page still looks for a live turn is sent when the look is over, not dropped", async () => {
    await using ui = await openUi();
    const { llm, url, page, errors } = ui;
    // Every look for a live turn (GET /api/chat/live, which an opened conversation makes) is
    // held back 1.5 s on its way to the daemon: Send is pressed while it is still under way, as
    // it can be on a busy machine.
    let looks = 0;
    await page.route(/\/api\/chat\/live\?/, async (route) => {
      looks++;
      await Bun.sleep(1500);
      await route.continue();
    });
    await page.goto(`${url}#/chat/look-first`);
    await poll(
      () => looks,
      (n) => n > 0,
      { what: "the pane's look for a live turn" },
    );
    llm.script([{ text: "Heard you." }]);
    await page.fill("#prompt", "are you there?");
    await page.click("#send");
    await page.waitForSelector(".msg.assistant .meta");
    expect((await page.textContent(".msg.assistant .body"))?.trim()).toBe("Heard you.");
    expect(await page.locator(".msg.user").count()).toBe(1);
    expect(await page.inputValue("#prompt")).toBe("");
    expect(llm.requests.length).toBe(1);
    expect(errors).toEqual([]);
  }, 60_000);

  test("the live stream needs the token when exposed, and a bad conversation id is a clear 400", async () => {
    await using ui = await openUi();
    const { page } = ui;
    const bad = await page.evaluate(async () => {
      const r = await fetch("/api/chat/live?conv=..%2F%20x", { headers: { "x-homed": "1" } });
      return { status: r.status, body: await r.json() };
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("conversation ids");
    const missing = await page.evaluate(
      async () => (await fetch("/api/chat/live", { headers: { "x-homed": "1" } })).status,
    );
    expect(missing).toBe(400);
    const none = await page.evaluate(
      async () => (await fetch("/api/chat/live?conv=nothing-running", { headers: { "x-homed": "1" } })).status,
    );
    expect(none).toBe(204);

    // With a web token, watching a conversation's turn needs it like every other route.
    using tokenDir = tempDir();
    const token = "correct-horse-battery-staple-42";
    await using guarded = await startDaemon(tokenDir.path, { env: { HOMED_WEB_TOKEN: token } });
    const guardedUrl = await webUrlOf(guarded);
    const live = `${guardedUrl}api/chat/live?conv=anything`;
    expect((await fetch(live, { headers: { "x-homed": "1" } })).status).toBe(401);
    expect((await fetch(live, { headers: { "x-homed": "1", authorization: `Bearer ${token}` } })).status).toBe(204);
  }, 60_000);
});
