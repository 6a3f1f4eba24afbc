/**
 * One browser for the plugin: Debian's Chromium with one persistent profile (DATA/browser),
 * started on the first tool call and closed when the plugin stops (the kernel stops a lazy
 * plugin after its idle time). One page is "the page" every tool acts on; pop-ups are refused
 * (links meant for a new tab open in this one). Element numbers are per page and per reading:
 * each browser_read/open/click/type numbers the page anew and keeps the map of what each
 * number was, so a stale number gets an error the model can act on, not a click elsewhere.
 */
import { existsSync, mkdirSync } from "node:fs";
import { chromium, type BrowserContext, type Locator, type Page } from "playwright-core";
import type { PluginLogger } from "../sdk/index.ts";
import { type GuardProxy, type Route, startGuardProxy } from "./guard-proxy.ts";
import type { AddressPolicy } from "../../src/shared/ip-range.ts";
import { cachedResolve, guardNavigations, refusalOf, type Resolve, systemResolve } from "./nav-guard.ts";
import {
  MAX_ELEMENTS,
  type PageSnapshot,
  type SnapshotElement,
  scrollInPage,
  snapshotInPage,
} from "./page-snapshot.ts";

export interface BrowserOptions {
  executable: string;
  /** DATA/browser: cookies, storage and cache survive restarts. */
  profileDir: string;
  /** Private addresses the owner lets pages reach ([tools.browser] allow_private, allow_hosts). */
  policy: AddressPolicy;
  timeoutMs: number;
  /** Name resolution for the guard (tests inject one; default the system's). */
  resolve?: Resolve;
  /** Where the guard's proxy connects for a checked address (tests stand the local site in for a public one). */
  route?: Route;
  /** Extra Chromium flags. */
  extraArgs?: string[];
  /** Where refusals are logged. */
  log?: PluginLogger;
}

/** A tool's failure, worded for the model. */
export class BrowserError extends Error {}

/** Chromium's flags: no sandbox inside containers, no GPU, no chatter with Google, /tmp over /dev/shm. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-dev-shm-usage",
  "--no-first-run",
  "--no-default-browser-check",
  "--block-new-web-contents",
];

/**
 * Everything Chromium fetches goes through the guard's proxy, loopback included (Chromium
 * otherwise exempts it): Chromium never resolves a page's host, the proxy does, once. WebRTC
 * would still send UDP (STUN, TURN) to any address a page names, since no HTTP proxy carries
 * UDP: it is held to what can go through the proxy.
 */
function proxyArgs(port: number): string[] {
  return [
    `--proxy-server=http://127.0.0.1:${port}`,
    "--proxy-bypass-list=<-loopback>",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
  ];
}

/** The only variables Chromium sees (no secrets of the daemon's environment). */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ["PATH", "HOME", "LANG", "TZ", "TMPDIR"]) if (process.env[k]) env[k] = process.env[k] as string;
  return env;
}

export class BrowserSession {
  private context: BrowserContext | null = null;
  /** The guard's proxy the running browser sends everything through. */
  private proxy: GuardProxy | null = null;
  private starting: Promise<BrowserContext> | null = null;
  private page: Page | null = null;
  /** What each number of the latest reading was, per page. */
  private readonly numbered = new WeakMap<Page, Map<number, SnapshotElement>>();
  /** The attribute that carries the numbers in the page. */
  private readonly marker = `data-homed-${crypto.randomUUID().slice(0, 8)}`;
  /** The last navigation the guard refused: browser_open says why. */
  private refused: { url: string; why: string } | null = null;
  /** Requests the guard stopped since the last browser_open, per host (documents the proxy refused too). */
  private blocked: Record<string, number> = {};
  /** The last request the proxy refused: browser_open names it when its page did not open. */
  private proxyRefused: { host: string; why: string } | null = null;

  constructor(private readonly o: BrowserOptions) {}

  /** What the guard refused since the action began (set from its CDP listener). */
  private lastRefusal(): { url: string; why: string } | null {
    return this.refused;
  }

  /** What the proxy refused since the action began (set from its callback). */
  private lastProxyRefusal(): { host: string; why: string } | null {
    return this.proxyRefused;
  }

  /** The browser, started on first use. */
  private async browser(): Promise<BrowserContext> {
    if (this.context) return this.context;
    this.starting ??= this.launch().finally(() => {
      this.starting = null;
    });
    return await this.starting;
  }

  private async launch(): Promise<BrowserContext> {
    if (!existsSync(this.o.executable))
      throw new BrowserError(
        `Chromium is not installed at ${this.o.executable}: install Debian's chromium package, or set [tools.browser] executable`,
      );
    mkdirSync(this.o.profileDir, { recursive: true, mode: 0o700 });
    const proxy = await startGuardProxy({
      policy: this.o.policy,
      resolve: cachedResolve(this.o.resolve ?? systemResolve),
      route: this.o.route,
      onRefused: (host, why) => {
        this.proxyRefused = { host, why };
        this.count(host, why, "proxy");
      },
    });
    let context: BrowserContext;
    try {
      context = await chromium.launchPersistentContext(this.o.profileDir, {
        executablePath: this.o.executable,
        headless: true,
        args: [...CHROMIUM_ARGS, ...proxyArgs(proxy.port), ...(this.o.extraArgs ?? [])],
        env: cleanEnv(),
        viewport: { width: 1280, height: 800 },
        timeout: Math.max(this.o.timeoutMs, 30_000),
        // The plugin's own shutdown closes the browser; Playwright must not exit the process on signals.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (err) {
      await proxy.close();
      throw err;
    }
    context.setDefaultTimeout(this.o.timeoutMs);
    context.setDefaultNavigationTimeout(this.o.timeoutMs);
    context.on("close", () => {
      if (this.context === context) {
        this.context = null;
        this.page = null;
        this.proxy = null;
      }
      void proxy.close();
    });
    this.context = context;
    this.proxy = proxy;
    return context;
  }

  /** Count a refused request under its host, and log it. */
  private count(host: string, why: string, by: "proxy" | "cdp"): void {
    this.blocked[host] = (this.blocked[host] ?? 0) + 1;
    this.o.log?.info("browser request refused", { host, by, reason: why });
  }

  /** The page the tools act on (the profile's first tab, guarded). */
  private async current(): Promise<Page> {
    const context = await this.browser();
    if (this.page && !this.page.isClosed()) return this.page;
    const page = context.pages()[0] ?? (await context.newPage());
    track(page);
    if (!this.o.policy.allowPrivate) {
      const cdp = await context.newCDPSession(page);
      await guardNavigations(
        cdp,
        this.o.policy,
        (url, why) => {
          this.refused = { url, why };
          this.o.log?.info("browser navigation refused", { url: url.slice(0, 200), reason: why });
        },
        this.o.resolve,
        (url, why) => this.count(URL.canParse(url) ? new URL(url).host : url.slice(0, 80), why, "cdp"),
      );
    }
    this.page = page;
    return page;
  }

  /** The page the tools act on, when one was opened. */
  private async opened(tool: string): Promise<Page> {
    const page = await this.current();
    if (page.url() === "about:blank") throw new BrowserError(`${tool}: no page is open; call browser_open first`);
    return page;
  }

  /** Why `url` may not be opened, or null (browser_open's check, before anyone is asked). */
  refusal(url: string): Promise<string | null> {
    return refusalOf(url, this.o.policy, this.o.resolve);
  }

  async open(url: string): Promise<PageSnapshot> {
    const why = await this.refusal(url);
    if (why) throw new BrowserError(`browser_open: ${why}`);
    const page = await this.current();
    this.refused = null;
    this.proxyRefused = null;
    this.blocked = {};
    try {
      await page.goto(url, { waitUntil: "domcontentloaded" });
    } catch (err) {
      const refused = this.lastRefusal();
      if (refused) await backFromError(page);
      if (refused) throw new BrowserError(`browser_open: the page went to ${refused.url}, and ${refused.why}`);
      const byProxy = this.lastProxyRefusal();
      const why = byProxy ? ` (the browser's guard refused ${byProxy.host}: ${byProxy.why})` : "";
      throw new BrowserError(`browser_open: ${url} did not open: ${firstLine(err)}${why}`);
    }
    await settle(page);
    return await this.read(page);
  }

  /** Number the page anew and return its text. */
  async read(page?: Page): Promise<PageSnapshot> {
    const p = page ?? (await this.opened("browser_read"));
    const snap = await p.evaluate(snapshotInPage, { marker: this.marker, max: MAX_ELEMENTS }).catch(async (err) => {
      // A navigation that was just refused or redirected can replace the page's context under the
      // reading (seen right after a refused click): read again once the page has settled.
      if (!/Execution context was destroyed/.test(String(err))) throw err;
      await settle(p);
      return await p.evaluate(snapshotInPage, { marker: this.marker, max: MAX_ELEMENTS });
    });
    this.numbered.set(p, new Map(snap.elements.map((e) => [e.n, e])));
    return Object.keys(this.blocked).length ? { ...snap, blocked: { ...this.blocked } } : snap;
  }

  /** The element numbered `n` at the last reading, or an error saying what to do. */
  private async element(tool: string, n: number): Promise<{ page: Page; locator: Locator; el: SnapshotElement }> {
    const page = await this.opened(tool);
    const el = this.numbered.get(page)?.get(n);
    if (!el)
      throw new BrowserError(`${tool}: there is no element [${n}] on this page; browser_read lists the current ones`);
    const locator = page.locator(`[${this.marker}="${n}"]`);
    if ((await locator.count()) === 0)
      throw new BrowserError(
        `${tool}: element [${n}] (${el.role} "${el.name}") is gone, the page changed; call browser_read again`,
      );
    return { page, locator: locator.first(), el };
  }

  async click(n: number): Promise<{ el: SnapshotElement; snapshot: PageSnapshot }> {
    const { page, locator, el } = await this.element("browser_click", n);
    this.refused = null;
    // A link or form meant for a new tab opens here: pop-ups are refused.
    await locator.evaluate((node) => {
      node.closest("a[target], form[target]")?.removeAttribute("target");
    });
    try {
      await locator.click();
    } catch (err) {
      throw new BrowserError(`browser_click: [${n}] ${el.role} "${el.name}" could not be clicked: ${firstLine(err)}`);
    }
    await settle(page);
    const refused = this.lastRefusal();
    if (refused) await backFromError(page);
    if (refused) throw new BrowserError(`browser_click: the click led to ${refused.url}, and ${refused.why}`);
    return { el, snapshot: await this.read(page) };
  }

  async type(n: number, text: string, submit: boolean): Promise<{ el: SnapshotElement; snapshot: PageSnapshot }> {
    const { page, locator, el } = await this.element("browser_type", n);
    this.refused = null;
    try {
      if (el.role === "select") await locator.selectOption([{ label: text }]).catch(() => locator.selectOption(text));
      else await locator.fill(text);
      if (submit) await locator.press("Enter");
    } catch (err) {
      throw new BrowserError(`browser_type: cannot type into [${n}] ${el.role} "${el.name}": ${firstLine(err)}`);
    }
    await settle(page);
    const refused = this.lastRefusal();
    if (refused) await backFromError(page);
    if (refused) throw new BrowserError(`browser_type: submitting led to ${refused.url}, and ${refused.why}`);
    return { el, snapshot: await this.read(page) };
  }

  async scroll(direction: "up" | "down", screens: number): Promise<{ y: number; height: number; view: number }> {
    const page = await this.opened("browser_scroll");
    return await page.evaluate(scrollInPage, { sign: direction === "down" ? 1 : -1, screens });
  }

  async screenshot(
    fullPage: boolean,
    maxBytes: number,
  ): Promise<{ png: Uint8Array; url: string; width: number; height: number }> {
    const page = await this.opened("browser_screenshot");
    const png = new Uint8Array(await page.screenshot({ type: "png", fullPage }));
    if (png.length > maxBytes)
      throw new BrowserError(
        `browser_screenshot: the ${fullPage ? "full-page " : ""}screenshot is ${png.length} bytes, over the ${maxBytes}-byte image limit${fullPage ? "; take it without full_page" : ""}`,
      );
    // PNG: width and height are the IHDR's first two big-endian words.
    const dv = new DataView(png.buffer, png.byteOffset, png.byteLength);
    return { png, url: page.url(), width: dv.getUint32(16), height: dv.getUint32(20) };
  }

  /** Close the browser (the plugin stops); the profile stays. */
  async close(): Promise<void> {
    const context = this.context ?? (await this.starting?.catch(() => null)) ?? null;
    const proxy = this.proxy;
    this.context = null;
    this.page = null;
    this.proxy = null;
    await context?.close().catch(() => {});
    await proxy?.close();
  }
}

/** Requests in flight per page (what `settle` waits out). */
const inFlight = new WeakMap<Page, { n: number; quiet: (() => void)[] }>();

/** Count a page's requests, so `settle` knows when the network is quiet. */
function track(page: Page): void {
  if (inFlight.has(page)) return;
  const t = { n: 0, quiet: [] as (() => void)[] };
  inFlight.set(page, t);
  const done = () => {
    t.n = Math.max(0, t.n - 1);
    if (t.n === 0) for (const f of t.quiet.splice(0)) f();
  };
  page.on("request", () => t.n++);
  page.on("requestfinished", done);
  page.on("requestfailed", done);
}

/** Longest wait for the load event once the document is there (a slow tracker must not hold the tool). */
const LOAD_MS = 10_000;
/** Longest wait for the requests an action started (some pages never go quiet). */
const SETTLE_MS = 1500;

/**
 * After an action, let what it started happen: a navigation's document loads (at most LOAD_MS),
 * then the requests still in flight (scripts fetching content) finish — at once when there are
 * none, never longer than SETTLE_MS.
 */
async function settle(page: Page): Promise<void> {
  await page.waitForLoadState("load", { timeout: LOAD_MS }).catch(() => {});
  const t = inFlight.get(page);
  if (!t || t.n === 0) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, SETTLE_MS);
    t.quiet.push(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** After a refused navigation the tab shows Chromium's error page: go back to where it was. */
async function backFromError(page: Page): Promise<void> {
  if (page.url().startsWith("chrome-error:")) await page.goBack({ waitUntil: "load" }).catch(() => {});
}

function firstLine(err: unknown): string {
  return ((err as Error).message ?? String(err)).split("\n")[0] as string;
}
