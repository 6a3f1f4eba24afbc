/**
 * L3 end to end against the compiled binary: turns pushed out of a small window go cold; "Distill
 * now" (/api/facts/distill, the same job the timer runs) sends them to the scripted model, whose
 * facts enter the graph — "lives in Paris" supersedes "lives in London" — and the cold turns
 * leave L2. A later trusted turn in another conversation is told the current fact with its
 * history; an untrusted one is not. The Knowledge page in real Chromium shows the graph, the
 * provenance and the superseded history; a correction from the page supersedes the fact and the
 * next turn is told the corrected value; a deletion hides it. Screenshots: dist/screenshots/knowledge-*.png.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { HOMED, run as runBinary, tempDir } from "../harness/binary.ts";
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

const quiet = { warn: () => {}, debug: () => {} };
const TOPICS = [
  "sailing harbour mast wind knots",
  "baking sourdough flour oven crust",
  "chess opening gambit endgame rook",
];
const filler = (topic: string, words: number) =>
  Array.from({ length: words }, (_, i) => topic.split(" ")[i % 5]).join(" ");

type Messages = { messages: { role: string; content: string }[] };
const systemText = (body: unknown) =>
  (body as Messages).messages
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n");

describe("knowledge (L3)", () => {
  test("cold turns are distilled, the current fact reaches later turns in scope, and the page corrects and deletes", async () => {
    using dir = tempDir();
    await Bun.write(
      join(dir.path, "config.toml"),
      // The test's own peeks (to learn the turns' ids) count as accesses, as does the chat's
      // recall of a cold turn: allow a few, so what is distilled does not hang on which turns
      // those peeks happened to list.
      "[memory.distill]\nidle_hours = 0\nretries = 0\nbatch_tokens = 100000\nmax_accesses = 5\n",
    );
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const c = await connectUnixRpc(rig.daemon.socket, quiet, { onRequest: () => ({ approved: false }) });
    await c.peer.request("llm.set", {
      provider: "openai",
      baseURL: rig.llm.url,
      model: "test-model",
      contextWindow: 1800,
      maxOutputTokens: 200,
    });
    const says = [
      `I live in London, in a flat by the river. ${filler(TOPICS[0] as string, 150)}`,
      `Unrelated: ${filler(TOPICS[1] as string, 250)}`,
      `News: I moved to Paris last week. ${filler(TOPICS[2] as string, 150)}`,
      `More: ${filler(TOPICS[0] as string, 250)}`,
      `Again: ${filler(TOPICS[1] as string, 250)}`,
      `Then: ${filler(TOPICS[2] as string, 250)}`,
      `And: ${filler(TOPICS[0] as string, 250)}`,
      `Last: ${filler(TOPICS[1] as string, 250)}`,
    ];
    for (const text of says) {
      rig.llm.script([{ text: "Noted." }]);
      await c.peer.request("chat.send", { text, conv: "home", channel: "cli" });
    }
    const peek = async (text: string) =>
      (await c.peer.request("memory.peek", { conv: "home", text, k: 3 })) as {
        l2: number;
        candidates: { id: number; preview: string }[];
      };
    const london = (await peek("I live in London flat river")).candidates.find((x) => x.preview.includes("London"));
    const paris = (await peek("I moved to Paris last week")).candidates.find((x) => x.preview.includes("Paris"));
    expect(london).toBeDefined();
    expect(paris).toBeDefined();
    const coldBefore = (await peek("x")).l2;
    expect(coldBefore).toBeGreaterThanOrEqual(4);

    const url = await webUrlOf(rig.daemon);
    const token = (await Bun.file(join(dir.path, "web-token")).text()).trim();
    const web = (path: string, body?: unknown) =>
      fetch(`${url}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "X-Homed": "1" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, json: (await r.json()) as Record<string, unknown> }));

    // A window that takes every cold turn in one batch (a batch is at most half the window).
    await c.peer.request("llm.set", {
      provider: "openai",
      baseURL: rig.llm.url,
      model: "test-model",
      contextWindow: 100_000,
      maxOutputTokens: 2000,
    });
    const asked = rig.llm.requests.length;
    rig.llm.script([
      {
        text: JSON.stringify({
          facts: [
            { subject: "user", predicate: "lives in", object: "London", source: london?.id },
            { subject: "user", predicate: "lives in", object: "Paris", source: paris?.id },
            { subject: "Paris", predicate: "is in", object: "France", source: paris?.id },
          ],
        }),
      },
    ]);
    const run = await web("/api/facts/distill", {});
    expect(run.status).toBe(200);
    expect(run.json).toMatchObject({ facts: 3, batches: 1, skipped: 0, stopped: "" });
    expect(run.json.turns as number).toBeGreaterThanOrEqual(2);
    expect(systemText(rig.llm.requests[asked]?.body)).toContain("stable facts for a personal knowledge graph");
    expect((await peek("x")).l2).toBeLessThan(coldBefore);

    const facts = await web("/api/facts?superseded=1");
    const list = facts.json.facts as { id: number; object: { label: string }; supersededBy: number | null }[];
    expect(list.map((f) => [f.object.label, f.supersededBy === null])).toEqual([
      ["France", true],
      ["Paris", true],
      ["London", false],
    ]);

    // Bad input is refused with a reason; the daemon carries on.
    expect((await web("/api/facts/abc/history")).status).toBe(400);
    const empty = await web(`/api/facts/${list[1]?.id}/correct`, { object: "  " });
    expect(empty.status).toBe(400);
    expect(JSON.stringify(empty.json)).toContain("say what is right");
    expect((await web("/api/facts/999999/delete", {})).status).toBe(404);
    const preview = await web(`/api/facts/recall?q=${encodeURIComponent("where do I live?")}`);
    expect(preview.json.note).toContain("- user lives in Paris");

    // `homed status` counts the graph.
    const status = await runBinary([HOMED, "status", "-data", dir.path]);
    expect(status.stdout).toContain("L3 2 current facts (3 in all), 4 nodes");

    // A trusted turn elsewhere is told the current fact and what it replaced.
    rig.llm.script([{ text: "Paris." }]);
    await c.peer.request("chat.send", { text: "Where do I live now?", conv: "other", channel: "cli" });
    const told = systemText(rig.llm.requests.at(-1)?.body);
    expect(told).toContain("Known facts");
    expect(told).toMatch(/- user lives in Paris \(since \d{4}-\d\d-\d\d, conversation home; earlier: London\)/);
    // An untrusted conversation has no source of these facts: it is told none.
    rig.llm.script([{ text: "?" }]);
    await c.peer.request("chat.send", { text: "Where do I live?", conv: "group", channel: "qq", untrusted: true });
    expect(systemText(rig.llm.requests.at(-1)?.body)).not.toContain("Known facts");

    // The page: graph, provenance, history; correct, then delete.
    const { page, errors } = await openPage(browser, `${url}#/knowledge`);
    await page.waitForSelector("#knowledge .kg-fact");
    expect(await page.locator("svg.kg .kg-node").count()).toBe(3);
    expect(await page.locator("svg.kg .kg-edge").count()).toBe(2);
    const row = page.locator(".kg-fact", { hasText: "Paris" }).filter({ hasText: "lives in" });
    expect(await row.textContent()).toContain("from home");
    await row.locator("summary").click();
    await row.locator(".kg-history li.old").first().waitFor();
    expect(await row.locator(".kg-history").textContent()).toMatch(/London · since .* superseded by #\d+/);
    await shot(page, "knowledge-page");
    await page.locator(".kg-preview-box summary").click();
    await page.locator(".kg-ask").fill("where do I live?");
    await page.locator(".kg-preview-box button").click();
    await page.locator(".kg-preview", { hasText: "user lives in Paris" }).waitFor();
    await page.locator(".kg-preview-box").scrollIntoViewIfNeeded();
    await shot(page, "knowledge-preview");
    await row.locator(".kg-correct").fill("Lyon");
    await row.locator("button[type=submit]").click();
    await page.locator(".kg-fact", { hasText: "Lyon" }).waitFor();
    const fixed = page.locator(".kg-fact", { hasText: "Lyon" });
    expect(await fixed.textContent()).toContain("corrected by you");
    expect(await page.locator(".kg-fact", { hasText: "lives in" }).count()).toBe(1);
    await shot(page, "knowledge-corrected");

    rig.llm.script([{ text: "Lyon." }]);
    await c.peer.request("chat.send", { text: "Where do I live now?", conv: "other2", channel: "cli" });
    expect(systemText(rig.llm.requests.at(-1)?.body)).toMatch(
      /- user lives in Lyon \(since [^)]*corrected by the person; earlier: Paris, London\)/,
    );

    page.on("dialog", (d) => void d.accept());
    await fixed.locator("button.danger").click();
    await page.locator(".kg-fact", { hasText: "Lyon" }).waitFor({ state: "detached" });
    const after = await web("/api/facts?hidden=1&superseded=1");
    const lyon = (after.json.facts as { object: { label: string }; hiddenAt: number | null; hiddenBy: string }[]).find(
      (f) => f.object.label === "Lyon",
    );
    expect(lyon?.hiddenAt).toBeGreaterThan(0);
    expect(lyon?.hiddenBy).toBe("web");
    // Distilling again with nothing cold says so, rather than nothing at all.
    await page.locator("button", { hasText: "Distill now" }).click();
    await page.locator(".distill-outcome", { hasText: "Nothing to distill" }).waitFor();
    expect(errors).toEqual([]);
    await page.close();
    c.close();
  }, 90_000);
});
