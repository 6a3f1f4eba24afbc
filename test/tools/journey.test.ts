/**
 * Issue 13 as a person meets it, in the web UI (Chromium) of the compiled daemon with a scripted
 * model: write a file, run a script over it, fetch a local page and screenshot it in the browser,
 * schedule a reminder — every step a tool card with its approval, answered in the page. Then,
 * with the owner having allowed the tools outright, an escape attempt from each confined tool is
 * refused: files_read of ../../etc/passwd, shell_run of `touch /tmp/<name>`, code_run reading the
 * data dir, fetch_url and browser_open of a private address the owner did not allow.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { tempDir } from "../harness/binary.ts";
import { launchBrowser, openPage, shot } from "../harness/browser.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** A local site: one page with a heading the model will read back. */
function startSite() {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () =>
      new Response(
        "<!doctype html><title>Fruit stall</title><main><h1>Fruit prices</h1><p>Apples cost 2 coins, pears 3.</p><button>Buy</button></main>",
        { headers: { "content-type": "text/html; charset=utf-8" } },
      ),
  });
  return { url: `http://127.0.0.1:${server.port}/`, [Symbol.dispose]: () => server.stop(true) };
}

/** Wait for the approval card of the running turn, check it names `tool`, and approve it. */
async function approve(page: Page, tool: string): Promise<void> {
  const card = page.locator(".approval").last();
  await card.waitFor({ timeout: 30_000 });
  expect(await card.textContent()).toContain(tool);
  await card.locator("button.approve").click();
  await card.waitFor({ state: "detached", timeout: 30_000 }).catch(() => {});
}

const cardOf = (page: Page, tool: string) => page.locator(".tool", { hasText: tool }).last();

describe("tools as a person uses them from the web UI", () => {
  test("write, run, fetch, browse and screenshot, schedule: each step asked and shown", async () => {
    using dir = tempDir();
    using site = startSite();
    writeFileSync(
      join(dir.path, "config.toml"),
      `[tools.fetch]\nallow_hosts = ["127.0.0.1"]\n\n[tools.browser]\nallow_private = true\n`,
    );
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const url = await webUrlOf(rig.daemon);
    const { page, errors } = await openPage(browser, `${url}#/chat/journey`);
    await page.waitForSelector("#prompt");

    const script =
      'const t = await Bun.file("fruit.txt").text(); console.log("total", t.split("\\n").filter(Boolean).map((l) => Number(l.split(" ")[1])).reduce((a, b) => a + b, 0));';
    rig.llm.script([
      {
        text: "Writing the list.",
        toolCalls: [{ name: "files_write", arguments: { path: "fruit.txt", content: "apples 3\npears 5\n" } }],
      },
      { text: "Adding it up.", toolCalls: [{ name: "code_run", arguments: { language: "typescript", code: script } }] },
      { text: "Checking prices.", toolCalls: [{ name: "fetch_url", arguments: { url: site.url } }] },
      { text: "Opening it.", toolCalls: [{ name: "browser_open", arguments: { url: site.url } }] },
      { text: "A picture.", toolCalls: [{ name: "browser_screenshot", arguments: {} }] },
      {
        text: "And a reminder.",
        toolCalls: [{ name: "schedule_create", arguments: { prompt: "Remind me to buy pears", in_minutes: 20 } }],
      },
      { text: "All done: 8 fruit, apples 2 coins, a screenshot, and a reminder in 20 minutes." },
    ]);
    await page.fill("#prompt", "list my fruit, total it, check the stall's prices, show me the page, remind me later");
    await page.click("#send");

    await approve(page, "files_write");
    await approve(page, "code_run");
    await approve(page, "fetch_url");
    await approve(page, "browser_open");
    // browser_screenshot is a read: it runs unasked.
    await approve(page, "schedule_create");
    await page.waitForSelector(".msg.assistant .meta", { timeout: 60_000 });
    await shot(page, "tools-journey");

    expect(readFileSync(join(dir.path, "workspace", "fruit.txt"), "utf8")).toBe("apples 3\npears 5\n");
    expect(await cardOf(page, "code_run").textContent()).toContain("total 8");
    expect(await cardOf(page, "fetch_url").textContent()).toContain("Apples cost 2 coins");
    expect(await cardOf(page, "browser_open").textContent()).toContain("Fruit prices");
    const img = cardOf(page, "browser_screenshot").locator("img");
    await img.waitFor({ timeout: 15_000 });
    expect(await img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(100);
    expect(await cardOf(page, "schedule_create").textContent()).toMatch(/pears/i);
    for (const tool of [
      "files_write",
      "code_run",
      "fetch_url",
      "browser_open",
      "browser_screenshot",
      "schedule_create",
    ])
      expect([tool, await cardOf(page, tool).locator(".tool-status").textContent()]).toEqual([tool, "ok"]);
    // The model saw the screenshot as an image.
    expect(JSON.stringify(rig.llm.requests.at(-2)?.body)).toContain("image_url");
    expect(errors).toEqual([]);
    await page.close();
  }, 240_000);

  test("allowed outright, each confined tool still refuses to escape", async () => {
    using dir = tempDir();
    const outside = `/tmp/homed-escape-${crypto.randomUUID()}`;
    writeFileSync(
      join(dir.path, "config.toml"),
      `[approval]\nallow = ["files_read", "shell_run", "code_run", "fetch_url", "browser_open"]\n\n[trust]\ntools = ["shell_run", "code_run"]\n`,
    );
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([
      { toolCalls: [{ name: "files_read", arguments: { path: "../../etc/passwd" } }] },
      { toolCalls: [{ name: "shell_run", arguments: { command: `touch ${outside}` } }] },
      {
        toolCalls: [
          {
            name: "code_run",
            arguments: {
              language: "javascript",
              code: `console.log(require("fs").readFileSync("${join(dir.path, "secrets.json")}", "utf8"))`,
            },
          },
        ],
      },
      { toolCalls: [{ name: "fetch_url", arguments: { url: "http://127.0.0.1:9/" } }] },
      { toolCalls: [{ name: "browser_open", arguments: { url: "http://127.0.0.1:9/" } }] },
      { text: "none of that worked" },
    ]);
    writeFileSync(join(dir.path, "secrets.json"), JSON.stringify({ values: { x: "hunter2-secret" } }), { mode: 0o600 });
    const r = await rig.chat("try to get out", { json: true });
    expect(r.exitCode).toBe(0);
    const results = rig.llm.requests
      .flatMap((q) => (q.body as { messages: { role: string; content: unknown }[] }).messages)
      .filter((m) => m.role === "tool")
      .map((m) => String(m.content));
    const last = results.slice(-5);
    expect(last[0]).toMatch(/outside|not allowed|escape/i);
    expect(last[0]).not.toContain("root:");
    expect(existsSync(outside)).toBe(false);
    expect(last[2]).not.toContain("hunter2-secret");
    expect(last[3]).toMatch(/private|loopback|refused/i);
    expect(last[4]).toMatch(/private|loopback|refused/i);
  }, 120_000);
});
