/**
 * The Skills page in real Chromium against the compiled binary: the skills found are listed with
 * where they are, trusted or not, enabled or not, and a malformed one with its reason; SKILL.md
 * opens on demand; Disable, Trust and Remove change DATA/skills.json and DATA/skills as
 * `homed skills` does (`homed skills list` sees it). The routes refuse a POST without the
 * X-Homed header. Screenshot: dist/screenshots/skills-page.png.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { launchBrowser, openPage, shot } from "../harness/browser.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

function writeSkill(root: string, name: string, front: string, body = "# Steps\n1. Do it.") {
  mkdirSync(join(root, name), { recursive: true });
  writeFileSync(join(root, name, "SKILL.md"), `---\n${front}\n---\n${body}\n`);
  return join(root, name);
}

describe("skills page", () => {
  test("lists skills with source, trust, state and reasons; disable, trust and remove act", async () => {
    using dir = tempDir();
    using src = tempDir("homed-skill-src-");
    const skills = join(dir.path, "skills");
    writeSkill(skills, "pdf-forms", "name: pdf-forms\ndescription: Fill in PDF forms and save a filled copy.");
    writeSkill(skills, "broken", "name: broken");
    const foreign = writeSkill(src.path, "tidy-notes", "name: tidy-notes\ndescription: Tidy up notes files.");
    await using rig = await startAgentRig(dir.path, { plugin: false });
    expect((await run([HOMED, "skills", "add", foreign, "-yes", "-data", dir.path])).exitCode).toBe(0);

    const url = await webUrlOf(rig.daemon);
    const { page, errors } = await openPage(browser, `${url}#/skills`);
    await page.waitForSelector("#skills .skill");
    const pdf = page.locator(".skill[data-skill=pdf-forms]");
    const broken = page.locator(".skill[data-skill=broken]");
    const tidy = page.locator(".skill[data-skill=tidy-notes]");
    expect(await pdf.locator(".ctx-head").textContent()).toBe("pdf-formsenabledtrustedDATA/skills");
    expect(await broken.locator(".skill-problem").textContent()).toBe("front matter has no description");
    expect(await tidy.locator(".ctx-head").textContent()).toContain("untrusted");
    expect(await tidy.textContent()).toContain(`installed from ${foreign}`);

    await pdf.locator("summary").click();
    await pdf.locator(".skill-text", { hasText: "# Steps" }).waitFor();
    await shot(page, "skills-page");

    await pdf.locator("button", { hasText: "Disable" }).click();
    await pdf.locator(".form-msg.ok", { hasText: "Disabled." }).waitFor();
    await tidy.locator("button", { hasText: "Trust" }).click();
    await tidy.locator(".form-msg.ok", { hasText: "Trusted." }).waitFor();
    const listed = JSON.parse((await run([HOMED, "skills", "list", "-json", "-data", dir.path])).stdout) as {
      name: string;
      enabled: boolean;
      trusted: boolean;
    }[];
    expect(listed.find((s) => s.name === "pdf-forms")?.enabled).toBe(false);
    expect(listed.find((s) => s.name === "tidy-notes")?.trusted).toBe(true);

    page.once("dialog", (d) => void d.accept());
    await tidy.locator("button", { hasText: "Remove" }).click();
    await tidy.waitFor({ state: "detached" });
    expect(existsSync(join(skills, "tidy-notes"))).toBe(false);
    expect(errors).toEqual([]);

    // A POST without the header a page's script sends is refused like every other.
    const bare = await fetch(`${url}api/skills/pdf-forms`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ enabled: true }),
    });
    expect(bare.status).toBe(403);
  }, 90_000);
});
