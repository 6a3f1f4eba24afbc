/**
 * The browser's SSRF guard on redirects and clicks, where only an in-process session can set the
 * stage: a name the guard resolves to a public address while Chromium maps it to the local test
 * site (--host-resolver-rules), so the first hop passes and the redirect to 127.0.0.1 — or a
 * link to it — must be stopped in the browser, before the request leaves. White-box by necessity
 * (it builds a BrowserSession with an injected resolver instead of going through dist/homed);
 * the daemon-level behaviour is in browser.test.ts. Also the subresources of a public page that
 * reach into loopback. Also here: a missing Chromium's message and a
 * page whose load event never comes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BrowserSession } from "../../plugins/browser/session.ts";
import { tempDir } from "../harness/binary.ts";
import { poll } from "../harness/poll.ts";
import { pageResult } from "../../plugins/browser/page-result.ts";
import { startTestSite, type TestSite } from "./browser-page.ts";

let site: TestSite;
beforeAll(() => {
  site = startTestSite();
});
afterAll(() => site.stop());

function session(profileDir: string): BrowserSession {
  return new BrowserSession({
    executable: "/usr/bin/chromium",
    profileDir,
    allowPrivate: false,
    timeoutMs: 60_000,
    // public.test is "public" to the guard (a documentation address) but is the local site to Chromium.
    resolve: async (host) => (host === "public.test" ? ["93.184.216.34"] : ["127.0.0.1"]),
    extraArgs: [`--host-resolver-rules=MAP public.test 127.0.0.1:${site.port}`],
  });
}

describe("browser navigation guard", () => {
  test("a redirect from an allowed page to a loopback address is refused and never reaches it", async () => {
    using dir = tempDir();
    const s = session(dir.path);
    try {
      const ok = await s.open("http://public.test/about");
      expect(ok.text).toContain("About page");
      const secretBefore = site.hits.get("/secret") ?? 0;
      const err = await s.open("http://public.test/to-secret").then(
        () => null,
        (e: Error) => e,
      );
      expect(err?.message).toContain(`the page went to http://127.0.0.1:${site.port}/secret`);
      expect(err?.message).toContain("not a public address (loopback)");
      expect(site.hits.get("/to-secret")).toBeGreaterThan(0);
      expect(site.hits.get("/secret") ?? 0).toBe(secretBefore);
    } finally {
      await s.close();
    }
  }, 120_000);

  test("a link on an allowed page that leads to a loopback address is refused when clicked", async () => {
    using dir = tempDir();
    const s = session(dir.path);
    try {
      const page = await s.open("http://public.test/links");
      expect(page.text).toContain(`[1] link "Admin panel" → http://127.0.0.1:${site.port}/secret`);
      const secretBefore = site.hits.get("/secret") ?? 0;
      const err = await s.click(1).then(
        () => null,
        (e: Error) => e,
      );
      expect(err?.message).toContain(`the click led to http://127.0.0.1:${site.port}/secret`);
      expect(err?.message).toContain("not a public address (loopback)");
      expect(site.hits.get("/secret") ?? 0).toBe(secretBefore);
      // The page stays where it was.
      expect((await s.read()).url).toBe("http://public.test/links");
    } finally {
      await s.close();
    }
  }, 120_000);

  test("what a public page loads from a loopback address (image, stylesheet, fetch) is stopped; its own resources load", async () => {
    using dir = tempDir();
    const s = session(dir.path);
    try {
      const page = await s.open("http://public.test/reaches-in");
      expect(page.text).toContain("A public page");
      // The fetch's rejection is the page's own code running: it ran, and was refused.
      const again = await poll(
        () => s.read(),
        (snap) => snap.text.includes("fetch failed"),
        { timeoutMs: 10_000, what: "the page's fetch to fail" },
      );
      for (const p of ["/secret-img", "/secret-css", "/secret-fetch"]) expect(site.hits.get(p) ?? 0).toBe(0);
      expect(site.hits.get("/about-img")).toBeGreaterThan(0);
      expect(again.blocked).toEqual({ [`127.0.0.1:${site.port}`]: 3 });
      expect(pageResult(again)).toContain(
        `Blocked: requests of the page to non-public addresses (127.0.0.1:${site.port} ×3); [tools.browser] allow_private lets them through`,
      );
    } finally {
      await s.close();
    }
  }, 120_000);

  test("a missing Chromium is named, with what to do, before anything starts", async () => {
    using dir = tempDir();
    const s = new BrowserSession({
      executable: "/nonexistent/chromium",
      profileDir: dir.path,
      allowPrivate: true,
      timeoutMs: 5000,
    });
    const err = await s.open(`${site.origin}/`).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toBe(
      "Chromium is not installed at /nonexistent/chromium: install Debian's chromium package, or set [tools.browser] executable",
    );
  });

  test("a page whose load never finishes (an image that never comes) is read once its document is there", async () => {
    using dir = tempDir();
    const s = new BrowserSession({
      executable: "/usr/bin/chromium",
      profileDir: dir.path,
      allowPrivate: true,
      timeoutMs: 60_000,
    });
    try {
      const t0 = performance.now();
      const snap = await s.open(`${site.origin}/slow-image`);
      expect(snap.text).toContain("# Text first");
      expect(snap.text).toContain("[image: a picture that never comes]");
      // Bounded by the load cap (10 s) and the settle cap, far under the 60 s navigation timeout.
      expect(performance.now() - t0).toBeLessThan(20_000);
    } finally {
      await s.close();
    }
  }, 120_000);
});
