/**
 * Opening a conversation sends nothing anywhere the person did not choose: a reply full of
 * remote images, raw HTML, CSS and SVG pointing at a counting server is opened in real Chromium
 * and the server hears nothing; links stay links to click. The pages carry the
 * Content-Security-Policy that backs this up.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { tempDir } from "../harness/binary.ts";
import { launchBrowser } from "../harness/browser.ts";
import { startDaemon, webUrlOf } from "../harness/daemon.ts";
import { probeExfil } from "../harness/exfil-probe.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe("a reply cannot make the browser send anything", () => {
  test("remote images, inline HTML, CSS and SVG fetch nothing; the link and the image are shown as links", async () => {
    const probe = await probeExfil(browser);
    expect(probe.requests).toEqual([]);
    expect(probe.attempted).toEqual([]);
    const origin = probe.links.find((l) => l.includes("/link?"))?.split("/link?")[0] ?? "(no link shown)";
    // Raw HTML shows as text, so its URLs are linkified too: links, never fetched.
    expect(probe.links.slice(0, 3)).toEqual([
      `${origin}/md-image?d=SECRET-4242`,
      `${origin}/md-image.svg?d=SECRET-4242`,
      `${origin}/link?d=SECRET-4242`,
    ]);
    expect(probe.errors).toEqual([]);
  }, 60_000);

  test("the page, its assets and the API carry the Content-Security-Policy", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    for (const path of ["", "assets/app.js", "api/status"]) {
      const csp = (await fetch(`${url}${path}`)).headers.get("content-security-policy") ?? "";
      expect({ path, csp }).toEqual({
        path,
        csp: "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; object-src 'none'; base-uri 'none'; form-action 'self'",
      });
    }
  }, 30_000);
});
