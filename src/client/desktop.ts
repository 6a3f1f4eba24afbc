/**
 * `waiter desktop` (installed as `homed-desktop`): a window onto the web UI of a local or a
 * remote homed, with the login handled. webview-bun would need the system's webkit2gtk and a
 * display server this build machine lacks (so it could not be shown to work here), so the window is a Chromium, Chrome or Edge in
 * `--app` mode with a profile of its own (under the user's config folder, so its session
 * cookie outlives the window). The login token (from -token-file, $HOMED_TOKEN, DATA/web-token,
 * the one remembered for this homed, or asked once at the terminal and remembered 0600) is
 * checked against /api/session, then handed to the page over the browser's private debugging
 * pipe, where the page logs in through the web UI's own POST /api/login — never on a command
 * line or in a URL other users could read in `ps`. Without a token the web UI's login page asks.
 */
import { join } from "node:path";
import * as v from "valibot";
import { HomedError } from "../protocol/errors.ts";
import { type CdpBrowser, launchWithPipe } from "./cdp-pipe.ts";
import { configDir, rememberedToken, rememberToken } from "./desktop-env.ts";

const Session = v.object({ exposed: v.boolean(), authenticated: v.boolean() });

/** GET /api/session with `token` as a bearer token (or none): does the web UI let this in? */
async function authenticated(base: URL, token: string | null): Promise<boolean> {
  let res: Response;
  try {
    res = await fetch(new URL("/api/session", base), {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    throw new HomedError("unavailable", `cannot reach homed's web UI at ${base.origin}: ${(err as Error).message}`);
  }
  if (res.status === 429)
    throw new HomedError("unavailable", `${base.origin} refuses logins for now (too many wrong tokens)`);
  if (!res.ok) throw new HomedError("unavailable", `${base.origin}/api/session answered HTTP ${res.status}`);
  return v.parse(Session, await res.json()).authenticated;
}

export interface DesktopOptions {
  base: URL;
  /** Tokens to try in order (flag, environment, data dir); null entries are skipped. */
  tokens: (string | null)[];
  browser: string;
  /** Ask the person for the token once (at a terminal); null when nobody can be asked. */
  ask: () => Promise<string | null>;
  err: (text: string) => void;
}

/** The token the page should log in with, or null when none is needed or none is known. */
export async function loginToken(o: DesktopOptions): Promise<string | null> {
  if (await authenticated(o.base, null)) return null; // loopback without a token: no login at all
  const remembered = rememberedToken(o.base.origin);
  for (const t of [...o.tokens, remembered]) {
    if (t && (await authenticated(o.base, t))) return t;
  }
  if (remembered) o.err(`the token remembered for ${o.base.origin} is no longer accepted\n`);
  const asked = (await o.ask())?.trim();
  if (!asked) return null;
  if (!(await authenticated(o.base, asked))) throw new HomedError("forbidden", `${o.base.origin} refused that token`);
  rememberToken(o.base.origin, asked);
  return asked;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The page showing `origin` (attached, flat session), once its document has loaded. */
async function attachedPage(b: CdpBrowser, origin: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { targetInfos } = (await b.send("Target.getTargets")) as {
      targetInfos: { targetId: string; type: string; url: string }[];
    };
    const page = targetInfos.find((t) => t.type === "page" && t.url.startsWith(origin));
    if (page) {
      const { sessionId } = (await b.send("Target.attachToTarget", { targetId: page.targetId, flatten: true })) as {
        sessionId: string;
      };
      while (Date.now() < deadline) {
        const r = (await b.send(
          "Runtime.evaluate",
          { expression: "[location.origin, document.readyState]", returnByValue: true },
          sessionId,
        )) as {
          result: { value?: [string, string] };
        };
        const [at, state] = r.result.value ?? ["", ""];
        if (at === origin && state !== "loading") return sessionId;
        await sleep(100);
      }
    }
    await sleep(100);
  }
  throw new HomedError("unavailable", `the browser did not show ${origin} within 30 s`);
}

/** In the page: log in through the web UI's API unless already in; "ok", "already" or why not. */
const LOGIN = `(async (token) => {
  const s = await (await fetch("/api/session")).json();
  if (s.authenticated) return "already";
  const r = await fetch("/api/login", { method: "POST", headers: { "content-type": "application/json", "x-homed": "1" }, body: JSON.stringify({ token }) });
  return r.ok ? "ok" : "HTTP " + r.status;
})`;

async function logIn(b: CdpBrowser, origin: string, token: string): Promise<void> {
  const session = await attachedPage(b, origin);
  const r = (await b.send(
    "Runtime.evaluate",
    { expression: `${LOGIN}(${JSON.stringify(token)})`, awaitPromise: true, returnByValue: true },
    session,
  )) as { result: { value?: string } };
  const outcome = r.result.value ?? "no answer";
  if (outcome === "ok") await b.send("Page.reload", {}, session);
  else if (outcome !== "already") throw new HomedError("forbidden", `logging in to ${origin} failed: ${outcome}`);
  await b.send("Target.detachFromTarget", { sessionId: session });
}

/** Open the window and wait until the person closes it; returns the browser's exit code. */
export async function runDesktop(o: DesktopOptions): Promise<number> {
  const token = await loginToken(o);
  const args = [
    `--app=${o.base.href}`,
    `--user-data-dir=${join(configDir(), "desktop", "profile")}`,
    "--no-first-run",
    "--no-default-browser-check",
  ];
  // Chromium refuses to run as root with its sandbox; say so rather than fail.
  if (process.getuid?.() === 0) {
    o.err("homed-desktop: running as root, so the browser's sandbox is off\n");
    args.push("--no-sandbox");
  }
  const b = launchWithPipe(o.browser, args);
  const stop = () => b.proc.kill("SIGTERM");
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  if (token) {
    try {
      await logIn(b, o.base.origin, token);
    } catch (err) {
      // A window of this profile was open already: the browser handed it the URL and exited 0,
      // and that window's profile holds the session cookie of its own login.
      if (b.proc.exitCode === 0) return 0;
      stop();
      await b.exited;
      throw err;
    }
  }
  return await b.exited;
}
