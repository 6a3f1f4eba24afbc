/**
 * The browser's SSRF guard on redirects and clicks, where only an in-process session can set the
 * stage: a name the guard resolves to a public address (PUBLIC) while the test routes that
 * address to the local site, so the first hop passes and the redirect to 127.0.0.1 — or a link
 * to it — must be stopped in the browser, before the request leaves. White-box by necessity
 * (it builds a BrowserSession with an injected resolver and route instead of going through
 * dist/homed, where nothing can stand in for a public address);
 * the daemon-level behaviour is in browser.test.ts. Also the subresources of a public page that
 * reach into loopback, by address and by name, WebSockets included, and a DNS answer that
 * changes between lookups (rebinding): what the page reaches for goes to a counting server on
 * 127.0.0.2 if it gets through at all. Each session also tells Chromium's own resolver
 * (--host-resolver-rules) what an attacker's DNS would tell it: the browser must never ask it.
 * WebRTC's STUN and TURN packets (UDP, which no proxy carries) must not reach it either.
 * Also here: a missing Chromium's message and a page whose load event never comes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSocket } from "node:dgram";
import { createServer } from "node:net";
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

/** A documentation address: public to the guard; the test's route takes it to the local site. */
const PUBLIC = "93.184.216.34";

interface Naming {
  /** The guard's answer for a name (called once per lookup); undefined: the default. */
  resolve?: (host: string) => string | undefined;
  /** Chromium's own resolver rules, what it would connect to if it resolved names itself. */
  chromiumRules?: string[];
  allowPrivate?: boolean;
  /** Collects what the session logs at info level. */
  logged?: { msg: string; fields?: Record<string, unknown> }[];
}

function session(profileDir: string, naming: Naming = {}): BrowserSession {
  const rules = [`MAP public.test 127.0.0.1:${site.port}`, ...(naming.chromiumRules ?? [])];
  return new BrowserSession({
    executable: "/usr/bin/chromium",
    profileDir,
    policy: { allowPrivate: naming.allowPrivate ?? false, allowHosts: [] },
    timeoutMs: 60_000,
    // A name the test does not know has no address (as without DNS): Chromium's own background
    // requests through the proxy fail, and are not refusals a page's result would count.
    resolve: async (host) => {
      const address = naming.resolve?.(host) ?? (host === "public.test" ? PUBLIC : undefined);
      if (!address) throw new Error(`${host}: no such name here`);
      return [address];
    },
    // The stand-in for the internet: PUBLIC port 80 is the local site, other ports the same port on 127.0.0.1.
    route: (address, port) =>
      address === PUBLIC ? { address: "127.0.0.1", port: port === 80 ? site.port : port } : { address, port },
    extraArgs: [`--host-resolver-rules=${rules.join(", ")}`],
    log: {
      debug: () => {},
      info: (msg, fields) => naming.logged?.push({ msg, fields }),
      warn: () => {},
      error: () => {},
    },
  });
}

/** A TCP server on 127.0.0.2 that notes each connection's request line and closes it. */
async function startCounter(): Promise<{ port: number; requests: string[]; [Symbol.dispose](): void }> {
  const requests: string[] = [];
  const server = createServer((socket) => {
    socket.on("error", () => {});
    socket.once("data", (d) => {
      requests.push(d.toString("latin1").split("\r\n")[0] as string);
      socket.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.2", resolve));
  const port = (server.address() as { port: number }).port;
  return { port, requests, [Symbol.dispose]: () => server.close() };
}

/** /reach-out on public.test, reaching for `host:port` by image, fetch and WebSocket. */
function reachOut(origin: string, img: string, fetchUrl: string, ws: string): string {
  const q = new URLSearchParams({ img, fetch: fetchUrl, ws });
  return `${origin}/reach-out?${q}`;
}

/** Read the page until the image, fetch and both WebSockets have ended. */
async function ended(s: BrowserSession) {
  return await poll(
    () => s.read(),
    (snap) =>
      !snap.text.includes(": waiting") &&
      ["img: ", "fetch: ", "ws: ", "own-ws: echo hi"].every((t) => snap.text.includes(t)),
    { timeoutMs: 30_000, what: "the page's image, fetch and WebSockets to end" },
  );
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

  test("a page reaching by name for an address the guard sees as loopback — image, fetch, WebSocket — connects nowhere; its own WebSocket works", async () => {
    using dir = tempDir();
    using counter = await startCounter();
    const logged: { msg: string; fields?: Record<string, unknown> }[] = [];
    const s = session(dir.path, {
      resolve: (host) => (host === "inside.test" ? "127.0.0.2" : undefined),
      chromiumRules: ["MAP inside.test 127.0.0.2"],
      logged,
    });
    try {
      const inside = `inside.test:${counter.port}`;
      await s.open(
        reachOut("http://public.test", `http://${inside}/img`, `http://${inside}/fetch`, `ws://${inside}/ws`),
      );
      const snap = await ended(s);
      expect(snap.text).toContain("own-ws: echo hi");
      expect(snap.text).toContain("img: failed");
      expect(snap.text).toContain("fetch: failed");
      expect(snap.text).toContain("ws: closed unopened");
      expect(counter.requests).toEqual([]);
      // The WebSocket is counted with the image and the fetch, and each refusal is logged.
      expect(snap.blocked).toEqual({ [inside]: 3 });
      const refusals = logged.filter((l) => l.msg === "browser request refused" && l.fields?.host === inside);
      expect(refusals.map((l) => l.fields?.by).sort()).toEqual(["cdp", "cdp", "proxy"]);
      expect(refusals[0]?.fields?.reason).toContain(
        "inside.test resolves to 127.0.0.2, which is not a public address (loopback)",
      );
    } finally {
      await s.close();
    }
  }, 120_000);

  test("a name whose DNS answer turns from public to loopback (rebinding) never reaches loopback", async () => {
    using dir = tempDir();
    using counter = await startCounter();
    const lookups = new Map<string, number>();
    const s = session(dir.path, {
      // The first answer is public, every later one loopback: whoever checks and then asks again loses.
      resolve: (host) => {
        if (!host.startsWith("rebind-")) return undefined;
        const n = (lookups.get(host) ?? 0) + 1;
        lookups.set(host, n);
        return n === 1 ? PUBLIC : "127.0.0.2";
      },
      chromiumRules: ["MAP rebind-*.test 127.0.0.2"],
    });
    try {
      const at = (name: string) => `rebind-${name}.test:${counter.port}`;
      await s.open(
        reachOut("http://public.test", `http://${at("img")}/img`, `http://${at("fetch")}/fetch`, `ws://${at("ws")}/ws`),
      );
      const snap = await ended(s);
      expect(snap.text).toContain("own-ws: echo hi");
      expect(counter.requests).toEqual([]);
      // The WebSocket's name was looked up once, and that answer is where it went (nothing listens there).
      expect(lookups.get(at("ws").split(":")[0] as string)).toBe(1);
      expect(snap.text).toContain("ws: closed unopened");
    } finally {
      await s.close();
    }
  }, 120_000);

  test("with allow_private the same page reaches loopback: image, fetch and WebSocket all connect", async () => {
    using dir = tempDir();
    using counter = await startCounter();
    const s = session(dir.path, { allowPrivate: true });
    try {
      const inside = `127.0.0.2:${counter.port}`;
      await s.open(reachOut(site.origin, `http://${inside}/img`, `http://${inside}/fetch`, `ws://${inside}/ws`));
      await ended(s);
      for (const line of ["GET /img HTTP/1.1", "GET /fetch HTTP/1.1", "GET /ws HTTP/1.1"])
        expect(counter.requests).toContain(line);
    } finally {
      await s.close();
    }
  }, 120_000);

  test("WebRTC on a public page sends no UDP to a loopback STUN/TURN server", async () => {
    using dir = tempDir();
    const packets: Buffer[] = [];
    const udp = createSocket("udp4");
    udp.on("message", (m) => packets.push(m));
    await new Promise<void>((resolve) => udp.bind(0, "127.0.0.2", resolve));
    const s = session(dir.path);
    try {
      await s.open(`http://public.test/webrtc?stun=127.0.0.2:${udp.address().port}`);
      // Unproxied, the first STUN request arrives long before gathering gives up.
      await poll(
        () => s.read(),
        (snap) => snap.text.includes("ice: gathered") || packets.length > 0,
        { timeoutMs: 60_000, what: "ICE gathering to end" },
      );
      expect(packets.map((p) => p.subarray(0, 2).toString("hex"))).toEqual([]);
    } finally {
      await s.close();
      udp.close();
    }
  }, 120_000);

  test("a missing Chromium is named, with what to do, before anything starts", async () => {
    using dir = tempDir();
    const s = new BrowserSession({
      executable: "/nonexistent/chromium",
      profileDir: dir.path,
      policy: { allowPrivate: true, allowHosts: [] },
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
      policy: { allowPrivate: true, allowHosts: [] },
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
