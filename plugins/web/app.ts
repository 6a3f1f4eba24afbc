/** The HTTP surface of the web plugin: UI shell and assets, /api, /v1, A2A, /healthz, /metrics. */
import * as v from "valibot";
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { StatusResult } from "../../src/protocol/control.ts";
import { ERROR_MAPPING, errorCodeOf, HomedError, RpcError } from "../../src/protocol/errors.ts";
import {
  KernelMetricsResult,
  PluginMethod,
  LoginRedeemResult,
  PROMETHEUS_TEXT_TYPE,
} from "../../src/protocol/plugin.ts";
import type { A2aChannelConfig } from "../a2a/config.ts";
import type { Plugin } from "../sdk/index.ts";
import { a2aRoutes } from "./a2a-routes.ts";
import { apiRoutes } from "./api.ts";
import { ChatHub } from "./chat-hub.ts";
import { openAiRoutes } from "./openai-api.ts";
import { isOpenAiPath, openAiErrorBody } from "./openai-error.ts";
import { type Security, tooManyAttempts } from "./security.ts";
import { APP_CSS, APP_JS, INDEX_HTML } from "./generated/assets.ts";

/** Plugin states that count as healthy: running, or deliberately not running. */
const HEALTHY = new Set(["ready", "idle", "disabled"]);

export function createApp(
  plugin: Plugin,
  security: Security,
  maxBodyBytes: number,
  /** The login token in force and [channels.a2a]. */
  a2a: { token: string; config: A2aChannelConfig },
): Hono {
  const app = new Hono();
  const hub = new ChatHub(plugin);
  const status = () => plugin.call(PluginMethod.KernelStatus, {}, StatusResult);

  app.use(security.middleware);
  const limit = bodyLimit({
    maxSize: maxBodyBytes,
    onError: (c) => {
      const message = `request body larger than ${Math.round(maxBodyBytes / 1024)} KiB`;
      return c.json(isOpenAiPath(c.req.path) ? openAiErrorBody(413, message) : { error: message }, 413);
    },
  });
  // An upload holds itself to the attachment limit as it reads (uploads.ts), not to [web] max_body_kb.
  app.use((c, next) => (c.req.method === "POST" && c.req.path === "/api/uploads" ? next() : limit(c, next)));

  app.get("/healthz", async (c) => {
    const st = await status();
    const ok = st.failClosed.length === 0 && st.plugins.every((p) => HEALTHY.has(p.state));
    // Login required and not logged in: say only whether all is well.
    if (security.loginRequired && !(await security.authenticated(c))) return c.json({ ok }, ok ? 200 : 503);
    return c.json(
      {
        ok,
        kernel: { version: st.version, pid: st.pid, uptimeMs: st.uptimeMs, store: st.store },
        plugins: st.plugins,
        failClosed: st.failClosed,
      },
      ok ? 200 : 503,
    );
  });

  // The daemon's metrics for a Prometheus scraper (docs/metrics.md), behind the API's login (security.ts).
  app.get("/metrics", async (c) => {
    const { text } = await plugin.call(PluginMethod.KernelMetrics, {}, KernelMetricsResult);
    return c.body(text, 200, { "content-type": PROMETHEUS_TEXT_TYPE, "cache-control": "no-store" });
  });

  app.route("/api", apiRoutes(plugin, hub, security));
  app.route("/v1", openAiRoutes(hub, plugin));
  app.route("/", a2aRoutes({ plugin, hub, security, ...a2a }));

  // A one-time login link (`homed open`, or the one the daemon printed): a session, then the UI.
  app.get("/login", async (c) => {
    if (!security.loginRequired) return c.redirect("/", 303);
    const code = c.req.query("code") ?? "";
    const r = await security.guard(c, async () =>
      code === "" ? false : (await plugin.call(PluginMethod.LoginRedeem, { code }, LoginRedeemResult)).ok,
    );
    if (r.result === "blocked") return tooManyAttempts(c, r.retryAfter);
    if (r.result !== "ok")
      return c.text(
        "This login link was used already, has expired or is not one: run `homed open` on the daemon's machine for a new one, or log in with the token from DATA/web-token.\n",
        401,
      );
    await security.startSession(c);
    return c.redirect("/", 303);
  });
  app.get("/", (c) => c.html(INDEX_HTML));
  app.get("/favicon.ico", (c) => c.body(null, 204));
  app.get("/assets/app.js", (c) =>
    c.body(APP_JS, 200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" }),
  );
  app.get("/assets/app.css", (c) =>
    c.body(APP_CSS, 200, { "content-type": "text/css; charset=utf-8", "cache-control": "no-cache" }),
  );

  // Under /v1 every error takes OpenAI's shape (openai-error.ts); elsewhere `{ error }`.
  const fail = (c: Context, status: ContentfulStatusCode, message: string) =>
    c.json(isOpenAiPath(c.req.path) ? openAiErrorBody(status, message) : { error: message }, status);
  app.notFound((c) =>
    isOpenAiPath(c.req.path)
      ? c.json(openAiErrorBody(404, `no route for ${c.req.method} ${c.req.path}`), 404)
      : c.json({ error: "not found", path: c.req.path }, 404),
  );
  app.onError((err, c) => {
    if (err instanceof HTTPException) return fail(c, err.status as ContentfulStatusCode, err.message);
    if (err instanceof v.ValiError) return fail(c, 400, err.message);
    if (err instanceof RpcError || err instanceof HomedError) {
      // A refusal, ours or the kernel's, keeps its meaning (src/protocol/errors.ts): 404 for no
      // such plugin, 503 for one that cannot answer now. A kernel failure without a code
      // (timeout, disconnect) is the gateway's: 502.
      const code = errorCodeOf(err);
      return fail(c, (code ? ERROR_MAPPING[code].http : 502) as ContentfulStatusCode, err.message);
    }
    plugin.log.warn("request failed", { path: c.req.path, err });
    return fail(c, 500, err.message);
  });
  return app;
}
