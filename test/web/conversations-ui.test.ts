/**
 * Conversations and messages in real Chromium against the compiled binary and the fake LLM:
 * titles from the first message, where each conversation came from, rename, search over titles
 * and content, export, forget (out of every recall, log kept); per message copy, retry after an
 * error, edit and resend, highlighted code with a copy button, tables, safe links; token usage
 * after a reload; the phone-width layout. Screenshots land in dist/screenshots (conv-*.png).
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig, type AgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { launchBrowser, shot } from "../harness/browser.ts";

// The page's globals as the callbacks below use them (they run in Chromium; this file's lib has no DOM).
declare const document: {
  querySelectorAll(s: string): { length: number };
  getElementById(id: string): { getBoundingClientRect(): { x: number; right: number } } | null;
  documentElement: { scrollWidth: number };
};
declare let location: { hash: string };
declare const navigator: { clipboard: { readText(): Promise<string> } };

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** A page at `viewport` that records script errors, with the clipboard allowed. */
async function open(
  url: string,
  viewport = DESKTOP,
): Promise<{ ctx: BrowserContext; page: Page; errors: string[] } & AsyncDisposable> {
  const ctx = await browser.newContext({ viewport, permissions: ["clipboard-read", "clipboard-write"] });
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url);
  return { ctx, page, errors, [Symbol.asyncDispose]: () => ctx.close() };
}

type Msg = { role: string; content: string };
const sent = (rig: AgentRig) => (rig.llm.requests.at(-1)?.body as { messages?: Msg[] } | undefined)?.messages ?? [];
const sentText = (rig: AgentRig) =>
  sent(rig)
    .map((m) => m.content)
    .join("\n");

const BIKE = "My bike is a red Brompton, bought in Hangzhou last spring, and it folds into a tiny cube for the train.";

describe("conversations", () => {
  test("title, channel tags, rename, search, export, forget", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([{ text: "Noted, a red Brompton." }]);
    expect((await rig.chat(BIKE, { conv: "cli-bike" })).exitCode).toBe(0);
    rig.llm.script([{ text: "Hello API." }]);
    const url = await webUrlOf(rig.daemon);
    const apiRes = await fetch(new URL("/v1/chat/completions", url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "homed",
        user: "script",
        messages: [{ role: "user", content: "hello from a script" }],
      }),
    });
    expect(apiRes.status).toBe(200);

    await using p = await open(`${url}#/chat/cli-bike`);
    const { page, errors } = p;
    const bike = page.locator('#conv-list .conv[data-conv="cli-bike"]');
    await bike.waitFor();
    // Titles are the first message cut to 60 characters; no model call names them.
    const title = (await bike.locator(".title").textContent()) ?? "";
    expect(title.length).toBeLessThanOrEqual(60);
    expect(title.startsWith("My bike is a red Brompton")).toBe(true);
    expect(title.endsWith("…")).toBe(true);
    expect(await bike.locator(".chan-cli").count()).toBe(1);
    expect(await page.locator("#conv-list .chan-api").count()).toBeGreaterThan(0);
    expect(await bike.locator(".when").textContent()).toMatch(/· 1 turn$/);
    expect(await page.textContent("#conv-title")).toBe(title);
    await shot(page, "conv-desktop-list");

    // Rename.
    await page.click("#conv-menu summary");
    await shot(page, "conv-desktop-menu");
    await page.click("#messages"); // a click elsewhere closes the menu
    expect(await page.locator("#rename").isVisible()).toBe(false);
    await page.click("#conv-menu summary");
    await page.click("#rename");
    await page.fill("#rename-input", "Bike notes");
    await page.press("#rename-input", "Enter");
    await page.waitForSelector('#conv-title:text-is("Bike notes")');
    // The sidebar is redrawn from the server after the rename: wait for it rather than race it.
    await bike.locator('.title:text-is("Bike notes")').waitFor({ timeout: 10_000 });
    expect(await bike.locator(".title").textContent()).toBe("Bike notes");

    // Search: a title, then words only said in the conversation (memory's search).
    await page.fill("#conv-search", "bike no");
    await page.waitForFunction(() => document.querySelectorAll("#conv-list .conv").length === 1);
    expect(await page.locator('#conv-list .conv[data-conv="cli-bike"]').count()).toBe(1);
    await page.fill("#conv-search", "Hangzhou");
    await page.waitForSelector('#conv-list .convs-head:text-is("In messages")');
    expect(await page.locator('#conv-list .conv[data-conv="cli-bike"] .snippet').textContent()).toContain("Hangzhou");
    await shot(page, "conv-desktop-search");
    await page.fill("#conv-search", "xylophone");
    await page.waitForSelector("#conv-list .convs-none");
    await page.fill("#conv-search", "");

    // Export, as Markdown and as JSON, behind the same login as the rest of /api.
    const md = await page.evaluate(async () => {
      const r = await fetch("/api/conversations/cli-bike/export?format=md");
      return { type: r.headers.get("content-type"), disp: r.headers.get("content-disposition"), text: await r.text() };
    });
    expect(md.type).toContain("text/markdown");
    expect(md.disp).toContain("attachment");
    expect(md.text).toStartWith("# Bike notes\n");
    expect(md.text).toContain(BIKE);
    expect(md.text).toContain("Noted, a red Brompton.");
    const json = (await page.evaluate(async () =>
      (await fetch("/api/conversations/cli-bike/export?format=json")).json(),
    )) as { conversation: { title: string }; events: { event: { type: string } }[] };
    expect(json.conversation.title).toBe("Bike notes");
    expect(json.events.map((m) => m.event.type)).toEqual(["turn-start", "context", "done"]);
    expect(await page.getAttribute("#export-md", "href")).toBe("/api/conversations/cli-bike/export?format=md");

    // Before forgetting, another conversation recalls the bike (so the checks below can fail).
    rig.llm.script([{ text: "A Brompton." }]);
    await rig.chat("which Brompton bike do I have?", { conv: "cli-other" });
    expect(sentText(rig)).toContain("red Brompton");

    // Forget: the confirmation says the log is kept.
    await page.click("#conv-menu summary");
    await page.click("#forget");
    await page.waitForSelector("#forget-dialog");
    expect(await page.textContent("#forget-dialog")).toContain("append-only");
    await shot(page, "conv-desktop-forget");
    await page.click("#forget-confirm");
    await page.waitForFunction(() => !location.hash.includes("cli-bike"));
    await page.waitForSelector('#conv-list .conv[data-conv="cli-other"]');
    expect(await bike.count()).toBe(0);

    // Out of the search box, cross-conversation recall, memory_search and its own context.
    const hits = (await page.evaluate(async () => (await fetch("/api/memory/search?q=Brompton")).json())) as {
      conv: string;
    }[];
    expect(hits.filter((h) => h.conv === "cli-bike")).toEqual([]);
    rig.llm.script([{ text: "No idea." }]);
    await rig.chat("which Brompton bike do I have?", { conv: "cli-third" });
    expect(sentText(rig)).not.toContain("red Brompton");
    rig.llm.script([
      { toolCalls: [{ name: "memory_search", arguments: { query: "Brompton Hangzhou" } }] },
      { text: "…" },
    ]);
    await rig.chat("search your memory for my bike", { conv: "cli-fourth" });
    const tool = sent(rig).find((m) => m.role === "tool");
    expect(tool?.content).toBeDefined();
    expect(tool?.content).not.toContain("red Brompton");
    rig.llm.script([{ text: "Go on." }]);
    await rig.chat("and where did I buy it?", { conv: "cli-bike" });
    expect(sentText(rig)).not.toContain("red Brompton");

    // The log is append-only: the events are all still there.
    const db = new Database(join(dir.path, "homed.db"), { readonly: true });
    const kept = db.query<{ n: number }, []>("SELECT count(*) AS n FROM events WHERE body LIKE '%red Brompton%'").get();
    db.close();
    expect(kept?.n).toBeGreaterThanOrEqual(2);
    expect(errors).toEqual([]);
  }, 90_000);
});

describe("messages", () => {
  test("markdown, highlighted code with copy, safe links, copy, retry after an error, edit, usage after reload", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const url = await webUrlOf(rig.daemon);
    await using p = await open(`${url}#/chat/web-md`);
    const { page, errors } = p;
    await page.waitForSelector("#prompt");

    const reply = [
      "Here you go:",
      "",
      "| tool | speed |",
      "|------|-------|",
      "| bun  | fast  |",
      "",
      "```ts",
      "const answer: number = 42;",
      "```",
      "",
      '<img src=x onerror="window.__pwned=1">',
      "",
      "[click me](javascript:window.__pwned=2) and [docs](https://example.com/docs).",
    ].join("\n");
    rig.llm.script([{ text: reply, usage: { input: 123, output: 45 } }]);
    await page.fill("#prompt", "show me a table");
    await page.click("#send");
    await page.waitForSelector(".msg.assistant .meta");
    expect(await page.textContent(".msg.assistant td")).toBe("bun");
    expect(await page.locator(".msg.assistant .code code.language-ts .hljs-keyword").count()).toBeGreaterThan(0);
    expect(await page.locator(".msg.assistant img").count()).toBe(0);
    expect(await page.textContent(".msg.assistant")).toContain("<img src=x");
    expect(await page.locator('.msg.assistant a[href^="javascript"]').count()).toBe(0);
    const docs = page.locator('.msg.assistant a[href="https://example.com/docs"]');
    expect(await docs.getAttribute("rel")).toBe("noopener noreferrer");
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.textContent(".msg.assistant .meta")).toContain("123 in / 45 out tokens");

    // Copy: the code block's button, then a whole message.
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
    await page.click(".msg.assistant .copy-code");
    expect(await clipboard()).toBe("const answer: number = 42;\n");
    await page.click(".msg.user .msg-copy");
    expect(await clipboard()).toBe("show me a table");
    await page.click(".msg.assistant .msg-copy");
    expect(await clipboard()).toBe(reply);
    await shot(page, "conv-desktop-markdown");

    // Token usage survives a reload.
    await page.reload();
    await page.waitForSelector(".msg.assistant .meta");
    expect(await page.textContent(".msg.assistant .meta")).toContain("123 in / 45 out tokens");

    // A failed reply offers Retry, which sends the same message again.
    rig.llm.script([{ status: 400 }]);
    await page.fill("#prompt", "try something risky");
    await page.click("#send");
    await page.waitForSelector(".msg-retry");
    await shot(page, "conv-desktop-error");
    const before = rig.llm.requests.length;
    rig.llm.script([{ text: "Recovered." }]);
    await page.locator(".msg-retry").last().click();
    await page.waitForSelector('.msg.assistant .body:has-text("Recovered.")');
    expect(rig.llm.requests.length).toBe(before + 1);
    expect(sent(rig).at(-1)).toEqual({ role: "user", content: "try something risky" });
    // After a reload the message shows once, answered: the failed try that did nothing is gone.
    await page.reload();
    await page.waitForSelector('.msg.assistant .body:has-text("Recovered.")');
    expect(await page.locator('.msg.user:has-text("try something risky")').count()).toBe(1);
    expect(await page.locator(".msg-retry").count()).toBe(0);

    // Edit and resend: the edited text goes out as a new message.
    rig.llm.script([{ text: "Edited answer." }]);
    await page.locator(".msg.user .msg-edit").first().click();
    await page.fill(".edit-area", "show me a list instead");
    await page.click(".edit-send");
    await page.waitForSelector('.msg.assistant .body:has-text("Edited answer.")');
    expect(sent(rig).at(-1)).toEqual({ role: "user", content: "show me a list instead" });
    expect(errors).toEqual([]);
  }, 90_000);
});

describe("phone width", () => {
  test("390 px: the sidebar opens from the menu button; messages and composer fit", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([{ text: "Noted." }]);
    await rig.chat("Remember that the spare key is under the blue flowerpot by the door.", { conv: "cli-key" });
    const url = await webUrlOf(rig.daemon);
    await using p = await open(`${url}#/chat/web-phone`, PHONE);
    const { page, errors } = p;
    await page.waitForSelector("#prompt");
    const inView = async (sel: string) => {
      const b = await page.locator(sel).first().boundingBox();
      return b !== null && b.x >= 0 && b.x + b.width <= PHONE.width + 1 && b.width > 0;
    };
    expect(await inView("#side")).toBe(false);
    expect(await inView("#menu")).toBe(true);
    expect(await inView("#send")).toBe(true);
    expect((await page.locator("#prompt").boundingBox())!.width).toBeGreaterThan(220);

    rig.llm.script([
      {
        text: "A long answer:\n\n```bash\necho 'a line that is much wider than a phone screen, so the block must scroll sideways'\n```",
      },
    ]);
    await page.fill("#prompt", "hello from a phone");
    await page.click("#send");
    await page.waitForSelector(".msg.assistant .meta");
    expect(await inView(".msg.assistant .body")).toBe(true);
    // The composer's placeholder fits: the keys it names are for a keyboard and a wide window.
    expect(await page.getAttribute("#prompt", "placeholder")).toBe("Message homed…");
    // Nothing is wider than the screen: no sideways scroll of the page.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await shot(page, "conv-phone-chat");

    await page.click("#menu");
    await page.waitForFunction(() => {
      const r = document.getElementById("side")?.getBoundingClientRect();
      return r !== undefined && r.x >= 0;
    });
    expect(await inView('#conv-list .conv[data-conv="cli-key"]')).toBe(true);
    await shot(page, "conv-phone-sidebar");
    await page.click('#conv-list .conv[data-conv="cli-key"]');
    await page.waitForSelector('.msg.user .body:has-text("spare key")');
    await page.waitForFunction(() => (document.getElementById("side")?.getBoundingClientRect().right ?? 1) <= 0);
    expect(await inView("#conv-menu summary")).toBe(true);
    await page.click("#conv-menu summary");
    expect(await inView("#forget")).toBe(true);
    await shot(page, "conv-phone-menu");

    // The other pages fit too, each with the menu button in its bar.
    for (const [hash, name, ready] of [
      ["#/memory/cli-key", "memory", "#recall-search"],
      ["#/plugins", "plugins", 'tr[data-plugin="web"]'],
      ["#/settings", "settings", "#provider-form"],
    ] as const) {
      await page.evaluate((h) => {
        location.hash = h;
      }, hash);
      await page.waitForSelector(ready);
      expect([name, await inView(".page-bar #menu")]).toEqual([name, true]);
      expect([name, await page.evaluate(() => document.documentElement.scrollWidth)]).toEqual([name, PHONE.width]);
      await shot(page, `conv-phone-${name}`);
    }
    expect(errors).toEqual([]);
  }, 90_000);
});
