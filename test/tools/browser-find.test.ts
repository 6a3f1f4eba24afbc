/**
 * A task that needs a tool the turn was not offered, done in one turn (src/agent/tool-offer.ts):
 * "proof for the bug report of how the greeter renders" is offered browser_open but not
 * browser_screenshot (nothing in it names a picture); the scripted
 * model asks tools_find for a screenshot tool, is offered browser_screenshot on its next call,
 * opens the local page in real Chromium, takes the screenshot, and answers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import type { RecordedRequest } from "../harness/fake-llm.ts";
import { startTestSite, type TestSite } from "./browser-page.ts";

const offered = (r: RecordedRequest | undefined) =>
  ((r?.body.tools as { function: { name: string } }[] | undefined) ?? []).map((t) => t.function.name);

let site: TestSite;
beforeAll(() => {
  site = startTestSite();
});
afterAll(() => site.stop());

describe("a tool found in the turn", () => {
  test("tools_find gives browser_screenshot's arguments, and the screenshot is taken by its name in the same turn", async () => {
    using dir = tempDir();
    mkdirSync(dir.path, { recursive: true });
    writeFileSync(
      join(dir.path, "config.toml"),
      `[tools.browser]\nallow_private = true\ntimeout_ms = 60000\n\n[approval]\nallow = ["browser_*"]\n`,
    );
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([
      { toolCalls: [{ name: "tools_find", arguments: { query: "screenshot of a web page" } }] },
      { toolCalls: [{ name: "browser_open", arguments: { url: `${site.origin}/` } }] },
      { toolCalls: [{ name: "browser_screenshot", arguments: {} }] },
      { text: "Here is the greeter page." },
    ]);
    const r = await rig.chat(`I need proof for the bug report of how the greeter at ${site.origin}/ renders`);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Here is the greeter page.");
    expect(r.stderr).toContain("← browser_screenshot [ok] Screenshot of");
    const [first, second] = rig.llm.requests;
    expect(offered(first)).not.toContain("browser_screenshot");
    expect(offered(first)).toContain("tools_find");
    const sent = (second?.body.messages ?? []) as { role: string; content: string }[];
    const found = sent.findLast((m) => m.role === "tool");
    expect(found?.content).toContain("- browser_screenshot: ");
    // The calls carried the same tools throughout: the screenshot ran by its name.
    expect(offered(second)).toEqual(offered(first));
    expect(rig.llm.requests.length).toBe(4);
  }, 120_000);
});
