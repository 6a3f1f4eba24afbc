/**
 * The settings page in real Chromium against the compiled binary and the fake LLM: the model
 * picker offers the provider's models (and each conversation may use another), a changed base URL keeps the stored key, a Save applies
 * the system prompt at once and says so, a bad rule is refused with its reason, and "Always
 * allow" on an approval card means the next call is not asked about. Screenshots at 1280 and
 * 390 px land in dist/screenshots.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { launchBrowser, openPage, shot } from "../harness/browser.ts";
import { MCP_TOKEN, startHttpMcp } from "../harness/http-mcp.ts";
import { poll } from "../harness/poll.ts";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

type Messages = { messages: { role: string; content: string }[] };

describe("settings page", () => {
  test("model picker, key kept across a base URL change, system prompt saved and applied, always allow", async () => {
    using dir = tempDir();
    using mcp = startHttpMcp();
    writeFileSync(join(dir.path, "secrets.json"), JSON.stringify({ values: { "fixture-token": MCP_TOKEN } }), {
      mode: 0o600,
    });
    await Bun.write(
      `${dir.path}/config.toml`,
      `[[mcp.servers]]\nname = "remote"\nurl = "http://127.0.0.1:9/mcp"\nheader_secrets = { Authorization = "absent" }\n`,
    );
    await using rig = await startAgentRig(dir.path);
    rig.llm.models(["fake-model", "fake-model-large"]);
    const url = await webUrlOf(rig.daemon);
    const { page, errors } = await openPage(browser, `${url}#/settings`);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.waitForSelector("#settings-form");
    await page.waitForSelector("#model-list option[value='fake-model-large']", { state: "attached" });
    expect(await page.inputValue("#system-prompt")).toStartWith("You are homed");
    // The MCP servers, as the mcp plugin's settings declare the list: each item's fields but those kept to config.toml.
    const servers = ".item-list[data-list='mcp_servers']";
    expect(await page.textContent(`${servers} li[data-item='remote']`)).toBe(
      "remoteurl http://127.0.0.1:9/mcpheader_secrets Authorization = absentRemove",
    );

    // A new base URL with no key typed keeps the stored key (the placeholder's promise).
    await page.fill("#base-url", `${rig.llm.url}/`);
    rig.llm.script([{ text: "ok" }]);
    await page.click("#save-provider");
    await page.waitForSelector("#provider-msg.ok");
    expect(await page.textContent("#provider-msg")).toContain("key …1234");

    await page.fill("#system-prompt", "You are a careful pirate.");
    await page.click("#save-settings");
    await page.waitForSelector("#settings-msg.ok");
    expect(await page.textContent("#settings-msg")).toBe("Applied now: agent.system_prompt.");
    expect(await page.textContent(".source[data-field='system_prompt']")).toBe("settings.json");
    // Only the changed field was written: the others still follow config.toml.
    expect(await page.textContent(".source[data-field='approval_default']")).toBe("default");
    await page.locator("#settings-form").scrollIntoViewIfNeeded();
    await shot(page, "settings-1280");
    // The phone width on a page of its own: resizing a wide page would catch the drawer mid-slide.
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.goto(`${url}#/settings`);
    await phone.waitForSelector("#settings-form");
    await phone.locator("#system-prompt").scrollIntoViewIfNeeded();
    await shot(phone, "settings-390");
    expect(
      await phone.evaluate(
        () =>
          (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement
            .scrollWidth,
      ),
    ).toBeLessThanOrEqual(390);
    await phone.close();

    await page.fill("#approval-deny", "risk:bogus");
    await page.click("#save-settings");
    await page.waitForSelector("#settings-msg.bad");
    expect(await page.textContent("#settings-msg")).toContain("risk:<class>");
    await page.fill("#approval-deny", "");

    // A chat: the saved prompt reaches the model; "Always allow" runs the tool and remembers it.
    await page.goto(`${url}#/chat/settings-ui`);
    await page.waitForSelector("#prompt");
    rig.llm.script([
      { toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/a" } }] },
      { text: "removed a" },
      { toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/b" } }] },
      { text: "removed b" },
    ]);
    await page.fill("#prompt", "delete /tmp/a");
    await page.click("#send");
    await page.waitForSelector(".approval button.always-allow");
    await shot(page, "settings-always-allow");
    await page.click(".approval button.always-allow");
    await page.waitForSelector(".msg.assistant .meta");
    const first = rig.llm.requests.at(-1)!.body as Messages;
    expect(first.messages.find((m) => m.role === "system")?.content).toStartWith("You are a careful pirate.");
    expect(first.messages.find((m) => m.role === "tool")?.content).toBe("removed /tmp/a");

    await page.fill("#prompt", "delete /tmp/b");
    await page.click("#send");
    await page.waitForFunction(
      () =>
        (
          globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }
        ).document.querySelectorAll(".msg.assistant .meta").length >= 2,
    );
    expect(await page.locator(".approval").count()).toBe(0);
    const second = rig.llm.requests.at(-1)!.body as Messages;
    expect(second.messages.filter((m) => m.role === "tool").at(-1)?.content).toBe("removed /tmp/b");
    const settings = await page.evaluate(async () => (await fetch("/api/settings")).json());
    expect((settings as { approval_allow: string[] }).approval_allow).toEqual(["danger_rm"]);

    // This conversation switches to another model the provider lists; a new one keeps the configured model.
    await page.selectOption("#conv-model", "fake-model-large");
    rig.llm.script([{ text: "big" }, { text: "small" }]);
    await page.fill("#prompt", "which model?");
    await page.click("#send");
    await page.waitForFunction(
      () =>
        (
          globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }
        ).document.querySelectorAll(".msg.assistant .meta").length >= 3,
    );
    expect(rig.llm.requests.at(-1)!.body.model).toBe("fake-model-large");
    await shot(page, "settings-conv-model");
    // The daemon keeps the choice: the terminal continuing this conversation runs on it too.
    const conv = decodeURIComponent(new URL(page.url()).hash.replace(/^#\/chat\//, ""));
    rig.llm.script([{ text: "big from the terminal" }]);
    expect((await rig.chat("and from the CLI?", { conv })).exitCode).toBe(0);
    expect(rig.llm.requests.at(-1)!.body.model).toBe("fake-model-large");
    await page.reload();
    await page.waitForFunction(
      () =>
        (
          globalThis as unknown as { document: { querySelector(s: string): { value: string } | null } }
        ).document.querySelector("#conv-model")?.value === "fake-model-large",
    );
    await page.goto(`${url}#/chat/other`);
    await page.reload();
    await page.waitForSelector("#conv-model");
    expect(await page.inputValue("#conv-model")).toBe("");
    await page.fill("#prompt", "and here?");
    await page.click("#send");
    await page.waitForSelector(".msg.assistant .meta");
    expect(rig.llm.requests.at(-1)!.body.model).toBe("test-model");
    const refused = await page.evaluate(async () => {
      const r = await fetch("/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json", "x-homed": "1" },
        body: JSON.stringify({ conv: "x", text: "hi", model: "no-such-model" }),
      });
      return [r.status, await r.text()] as const;
    });
    expect(refused[0]).toBe(404);
    expect(refused[1]).toContain("does not offer the model no-such-model");

    // MCP servers: one added over Streamable HTTP (its key from secrets.json) offers its tools; one removed is gone.
    await page.goto(`${url}#/settings`);
    await page.waitForSelector("#settings-form");
    await page.fill("#add-mcp_servers-name", "second");
    await page.fill("#add-mcp_servers-url", mcp.url);
    await page.fill("#add-mcp_servers-header_secrets", "Authorization = fixture-token");
    await page.click(".item-add[data-list='mcp_servers'] .add-item");
    await page.waitForSelector(`${servers} li[data-item='second']`);
    expect(await page.textContent("#settings-msg")).toBe("Applied now: mcp.servers.");
    expect(await page.inputValue("#add-mcp_servers-name")).toBe("");
    await poll(
      async () => (await rig.status()).tools.map((t) => t.name),
      (names) => names.includes("second_whoami"),
      { timeoutMs: 20_000, intervalMs: 50, what: "second_whoami after adding the server" },
    );
    await page.click(`${servers} li[data-item='remote'] .remove-item`);
    await page.waitForSelector(`${servers} li[data-item='remote']`, { state: "detached" });
    await page.locator(servers).scrollIntoViewIfNeeded();
    await shot(page, "settings-mcp");
    expect(await page.textContent(".source[data-field='mcp_servers']")).toBe("settings.json");
    await page.fill("#add-mcp_servers-name", "bad name!");
    await page.fill("#add-mcp_servers-command", "true");
    await page.click(".item-add[data-list='mcp_servers'] .add-item");
    await page.waitForSelector("#settings-msg.bad");
    expect(await page.textContent("#settings-msg")).toBe("mcp.servers.1.name: must be 1-32 letters, digits or dashes");
    // Refused, the form keeps what was typed.
    expect(await page.inputValue("#add-mcp_servers-name")).toBe("bad name!");

    // Private hosts: one control for fetch's and the browser's fields, under the heading their settings give.
    expect(await page.textContent("label[for='page-allow_hosts']")).toStartWith(
      "Hosts on your network that fetch_url and the browser may open",
    );
    await page.fill("#page-allow_hosts", "nas.lan\n*.lan");
    await page.click("#save-settings");
    await page.waitForSelector("#settings-msg.ok");
    expect(await page.textContent("#settings-msg")).toBe(
      "Applied now: tools.browser.allow_hosts, tools.fetch.allow_hosts.",
    );
    expect(await page.textContent(".source[data-field='allow_hosts']")).toBe("settings.json");
    expect(await page.inputValue("#page-allow_hosts")).toBe("nas.lan\n*.lan");
    expect(errors).toEqual([]);
  }, 90_000);
});
