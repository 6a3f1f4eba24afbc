/**
 * Who may use the web plugin's HTTP surface.
 *
 * - Loopback bind (the default): no login, but the Host header must be a loopback IP literal,
 *   localhost or a name in `[web] allowed_hosts`, so a web page cannot reach us through DNS
 *   rebinding (host-check.ts).
 * - Any bind: a malformed or repeated Host header is refused.
 * - Any other bind, or a token the owner set ([web] token, HOMED_WEB_TOKEN) on any bind:
 *   everything but the page shell (which is the login page) and a bare /healthz needs the token — `Authorization: Bearer <token>` (API clients) or the session cookie that
 *   POST /api/login sets (the browser). No default password exists anywhere.
 * - CSRF: a request that changes something and is not authenticated by a bearer token must carry
 *   `X-Homed: 1` (/api) or `Content-Type: application/json` (/v1) — neither can be sent cross-site
 *   without a CORS preflight, which we never answer — and a foreign Origin is refused outright.
 */
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { isLoopback } from "../../src/protocol/listen.ts";
import { hostHeaderName, loopbackHostAllowed } from "./host-check.ts";
import { isJsonContentType } from "./http-util.ts";

export const SESSION_COOKIE = "homed_session";

async function sha256(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Buffer.from(d).toString("hex");
}

function sameBytes(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

export interface Security {
  /** Bound beyond loopback. */
  exposed: boolean;
  /** /api and /v1 need the token: exposed, or the owner set one. */
  loginRequired: boolean;
  middleware: MiddlewareHandler;
  /** Check a token and set the session cookie; false when wrong. */
  login(c: Context, token: string): Promise<boolean>;
  authenticated(c: Context): Promise<boolean>;
}

const mutating = (method: string) => !["GET", "HEAD", "OPTIONS"].includes(method);

export interface SecurityOptions {
  token: string;
  /** The owner set the token; it is then required on a loopback bind too. */
  tokenSet: boolean;
  /** The address the server binds; anything but loopback is "exposed". */
  bindHost: string;
  /** Host names besides loopback ones that a loopback bind answers (`[web] allowed_hosts`). */
  allowedHosts: readonly string[];
}

export function createSecurity(opts: SecurityOptions): Security {
  const { token } = opts;
  const exposed = !isLoopback(opts.bindHost);
  const loginRequired = exposed || opts.tokenSet;
  const allowedHosts = new Set(opts.allowedHosts.map((h) => h.toLowerCase()));
  const sessionValue = sha256(`homed-session:${token}`);

  const bearer = (c: Context) => {
    const h = c.req.header("authorization") ?? "";
    return h.toLowerCase().startsWith("bearer ") ? h.slice(7).trim() : null;
  };
  const authenticated = async (c: Context) => {
    const b = bearer(c);
    if (b !== null) return sameBytes(b, token);
    const cookie = getCookie(c, SESSION_COOKIE);
    return cookie !== undefined && sameBytes(cookie, await sessionValue);
  };

  const middleware: MiddlewareHandler = async (c, next) => {
    const path = c.req.path;
    const host = c.req.header("host") ?? "";
    const name = hostHeaderName(host);
    if (name === null) return c.json({ error: "a request needs exactly one well-formed Host header" }, 403);
    if (!exposed && !loopbackHostAllowed(name, allowedHosts)) {
      return c.json({ error: `this homed listens on a loopback address and answers only 127.0.0.1, [::1], localhost and the names in [web] allowed_hosts; requests for host "${name}" are refused` }, 403);
    }
    const origin = c.req.header("origin");
    if (origin && mutating(c.req.method)) {
      let originHost = "";
      try {
        originHost = new URL(origin).host;
      } catch {
        // An unparsable Origin is a foreign one.
      }
      if (originHost !== host) return c.json({ error: "cross-origin requests are refused" }, 403);
    }
    const api = path.startsWith("/api/");
    const v1 = path.startsWith("/v1/");
    const open = path === "/api/login" || path === "/api/session";
    if ((api || v1) && !open) {
      const ok = await authenticated(c);
      if (loginRequired && !ok) return c.json({ error: "login required: send the token as a bearer token or log in at /" }, 401);
      const viaBearer = bearer(c) !== null && ok;
      if (mutating(c.req.method) && !viaBearer) {
        if (api && c.req.header("x-homed") !== "1") return c.json({ error: "missing X-Homed: 1 header (cross-site request protection)" }, 403);
        if (v1 && !isJsonContentType(c.req.header("content-type"))) {
          return c.json({ error: "send the body as JSON (Content-Type: application/json)" }, 415);
        }
      }
    }
    await next();
    c.header("x-content-type-options", "nosniff");
    c.header("referrer-policy", "no-referrer");
    c.header("x-frame-options", "DENY");
  };

  return {
    exposed,
    loginRequired,
    middleware,
    authenticated,
    async login(c, given) {
      if (!sameBytes(given, token)) return false;
      setCookie(c, SESSION_COOKIE, await sessionValue, { httpOnly: true, sameSite: "Strict", path: "/", secure: c.req.url.startsWith("https:"), maxAge: 60 * 60 * 24 * 30 });
      return true;
    },
  };
}
