/**
 * Who may use the web plugin's HTTP surface.
 *
 * - Loopback bind (the default): no login, but the Host header must be a loopback IP literal,
 *   localhost or a name in `[web] allowed_hosts`, so a web page cannot reach us through DNS
 *   rebinding (host-check.ts).
 * - Any bind: a malformed or repeated Host header is refused.
 * - Any other bind, or a token the owner set ([web] token, HOMED_WEB_TOKEN) on any bind:
 *   everything but the page shell (which is the login page) and a bare /healthz needs the
 *   token (/api, /v1, /metrics) — `Authorization: Bearer <token>` (API clients) or the session
 *   cookie that POST /api/login sets (the browser). No default password exists anywhere. Wrong tokens are
 *   rate-limited per client (plugins/sdk/guess-limiter.ts: 429 with Retry-After), together with
 *   every other secret this listener checks (A2A peer tokens, through `guard`). When no token is required
 *   credentials are not looked at, so a client's made-up API key neither counts nor matters.
 * - GET /metrics is the API's to read, with one more way in: `[web] metrics_token`, a bearer token
 *   that opens it and nothing else (a scraper need not hold the token that opens every API).
 * - CSRF: a request that changes something and is not authenticated by a bearer token must carry
 *   `X-Homed: 1` (/api) or `Content-Type: application/json` (/v1) — neither can be sent cross-site
 *   without a CORS preflight, which we never answer — and a foreign Origin is refused outright.
 * - No request the person did not make: every response carries CONTENT_SECURITY_POLICY, so even
 *   markup that slipped past the UI's rendering cannot load an image, style, script or frame
 *   from elsewhere, nor connect anywhere but here.
 */
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { isLoopback } from "../../src/shared/listen.ts";
import { type GuessCheck, GuessLimiter } from "../sdk/index.ts";
import { hostHeaderName, loopbackHostAllowed } from "./host-check.ts";
import { isJsonContentType } from "./http-util.ts";
import { isOpenAiPath, openAiErrorBody } from "./openai-error.ts";

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

/** What a check of presented credentials found; blocked: not checked (too many wrong ones). */
export type CredentialCheck = { result: "none" } | GuessCheck;

export interface Security {
  /** Bound beyond loopback. */
  exposed: boolean;
  /** /api and /v1 need the token: exposed, or the owner set one. */
  loginRequired: boolean;
  middleware: MiddlewareHandler;
  /** Check a token from the login form; when right, the session cookie is set. */
  login(c: Context, token: string): Promise<CredentialCheck>;
  /** Set the session cookie: the request proved itself another way (a one-time login link). */
  startSession(c: Context): Promise<void>;
  /** Whether the request's bearer token or cookie is right (a wrong one counts as a guess). */
  authenticated(c: Context): Promise<boolean>;
  /**
   * Check some other secret the request presents (an A2A peer token) against the same per-client
   * limit: `verify` runs only when the client is not blocked, and its answer counts.
   */
  guard(c: Context, verify: () => boolean | Promise<boolean>): Promise<GuessCheck>;
}

/** A refusal: `{ error }`, or OpenAI's error shape under /v1 (its clients read that one). */
function refuse(c: Context, status: 401 | 403 | 415 | 429, message: string): Response {
  return c.json(isOpenAiPath(c.req.path) ? openAiErrorBody(status, message) : { error: message }, status);
}

/** 429 for a client that must wait `seconds` before its credentials are checked again. */
export function tooManyAttempts(c: Context, seconds: number): Response {
  c.header("retry-after", String(seconds));
  return refuse(c, 429, `too many wrong tokens from this address; try again in ${seconds} s`);
}

/**
 * What the UI may load: its own script, stylesheet, API and blocks; images also from data: and
 * blob: URLs (pasted and recorded attachments). No inline script or style attribute is needed:
 * the UI builds its DOM through createElement and styles through app.css. Links may still be
 * followed, since that is a request the person makes.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

const mutating = (method: string) => !["GET", "HEAD", "OPTIONS"].includes(method);

export interface SecurityOptions {
  token: string;
  /** A bearer token for GET /metrics alone ("" for none): `[web] metrics_token`. */
  metricsToken?: string;
  /** The owner set the token; it is then required on a loopback bind too. */
  tokenSet: boolean;
  /**
   * `[web] auth`: "token" (the default) asks for a login on a loopback bind too — another account
   * on the same machine reaches 127.0.0.1 as well; "none" is the owner's opt-out, trusting every
   * local client. Beyond loopback the token is always required.
   */
  auth: "token" | "none";
  /** The address the server binds; anything but loopback is "exposed". */
  bindHost: string;
  /** Host names besides loopback ones that a loopback bind answers (`[web] allowed_hosts`). */
  allowedHosts: readonly string[];
  /** The client's source address (from the socket, never a header), the unit the guess limit counts. */
  clientAddress(req: Request): string;
}

export function createSecurity(opts: SecurityOptions): Security {
  const { token } = opts;
  const exposed = !isLoopback(opts.bindHost);
  const loginRequired = exposed || opts.tokenSet || opts.auth === "token";
  const allowedHosts = new Set(opts.allowedHosts.map((h) => h.toLowerCase()));
  const sessionValue = sha256(`homed-session:${token}`);
  const limiter = new GuessLimiter();

  type Credential = { kind: "bearer" | "login" | "cookie"; value: string };
  const credential = (c: Context): Credential | null => {
    const h = c.req.header("authorization") ?? "";
    if (h.toLowerCase().startsWith("bearer ")) return { kind: "bearer", value: h.slice(7).trim() };
    const cookie = getCookie(c, SESSION_COOKIE);
    return cookie === undefined ? null : { kind: "cookie", value: cookie };
  };
  const metricsToken = opts.metricsToken ?? "";
  /**
   * Every credential check goes through here, so each one counts against the client's limit.
   * `metrics`: the request is for GET /metrics, which the metrics token opens too.
   */
  const check = async (c: Context, cred: Credential | null, metrics = false): Promise<CredentialCheck> => {
    if (cred === null) return { result: "none" };
    return await limiter.check(opts.clientAddress(c.req.raw), async () => {
      if (cred.kind === "cookie") return sameBytes(cred.value, await sessionValue);
      if (sameBytes(cred.value, token)) return true;
      return metrics && cred.kind === "bearer" && metricsToken !== "" && sameBytes(cred.value, metricsToken);
    });
  };

  const startSession = async (c: Context) => {
    setCookie(c, SESSION_COOKIE, await sessionValue, {
      httpOnly: true,
      sameSite: "Strict",
      path: "/",
      secure: c.req.url.startsWith("https:"),
      maxAge: 60 * 60 * 24 * 30,
    });
  };

  const middleware: MiddlewareHandler = async (c, next) => {
    const path = c.req.path;
    const host = c.req.header("host") ?? "";
    const name = hostHeaderName(host);
    if (name === null) return refuse(c, 403, "a request needs exactly one well-formed Host header");
    if (!exposed && !loopbackHostAllowed(name, allowedHosts)) {
      return refuse(
        c,
        403,
        `this homed listens on a loopback address and answers only 127.0.0.1, [::1], localhost and the names in [web] allowed_hosts; requests for host "${name}" are refused`,
      );
    }
    const origin = c.req.header("origin");
    if (origin && mutating(c.req.method)) {
      let originHost = "";
      try {
        originHost = new URL(origin).host;
      } catch {
        // An unparsable Origin is a foreign one.
      }
      if (originHost !== host) return refuse(c, 403, "cross-origin requests are refused");
    }
    const api = path.startsWith("/api/");
    const v1 = path.startsWith("/v1/");
    const open = path === "/api/login" || path === "/api/session";
    // The metrics (counts of turns, tools, channels) are the API's to read: the same login, or the metrics token.
    const metrics = path === "/metrics" && c.req.method === "GET";
    if ((api || v1 || path === "/metrics") && !open) {
      let viaBearer = false;
      if (loginRequired) {
        const cred = credential(c);
        const r = await check(c, cred, metrics);
        if (r.result === "blocked") return tooManyAttempts(c, r.retryAfter);
        if (r.result !== "ok") {
          // A stale cookie (the token changed) would otherwise be sent, and counted, again and again.
          if (cred?.kind === "cookie") deleteCookie(c, SESSION_COOKIE, { path: "/" });
          return refuse(c, 401, "login required: send the token as a bearer token or log in at /");
        }
        viaBearer = cred?.kind === "bearer";
      }
      if (mutating(c.req.method) && !viaBearer) {
        if (api && c.req.header("x-homed") !== "1")
          return refuse(c, 403, "missing X-Homed: 1 header (cross-site request protection)");
        if (v1 && !isJsonContentType(c.req.header("content-type"))) {
          return refuse(c, 415, "send the body as JSON (Content-Type: application/json)");
        }
      }
    }
    await next();
    c.header("x-content-type-options", "nosniff");
    c.header("referrer-policy", "no-referrer");
    c.header("x-frame-options", "DENY");
    c.header("content-security-policy", CONTENT_SECURITY_POLICY);
  };

  return {
    exposed,
    loginRequired,
    middleware,
    authenticated: async (c) => (await check(c, credential(c))).result === "ok",
    guard: (c, verify) => limiter.check(opts.clientAddress(c.req.raw), verify),
    async login(c, given) {
      const r = await check(c, { kind: "login", value: given });
      if (r.result === "ok") await startSession(c);
      return r;
    },
    startSession,
  };
}
