/** The HTTP surface of the web plugin. Everything it knows comes from the kernel over RPC. */
import { Hono } from "hono";
import { StatusResult } from "../../src/protocol/control.ts";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import type { Plugin } from "../sdk/index.ts";
import { renderStatusPage } from "./status-page.ts";

/** Plugin states that count as healthy: running, or deliberately not running. */
const HEALTHY = new Set(["ready", "idle", "disabled"]);

export function createApp(plugin: Pick<Plugin, "call" | "log">): Hono {
  const app = new Hono();
  const status = () => plugin.call(PluginMethod.KernelStatus, {}, StatusResult);

  app.get("/healthz", async (c) => {
    const st = await status();
    const ok = st.failClosed.length === 0 && st.plugins.every((p) => HEALTHY.has(p.state));
    return c.json({ ok, kernel: { version: st.version, pid: st.pid, uptimeMs: st.uptimeMs, store: st.store }, plugins: st.plugins, failClosed: st.failClosed }, ok ? 200 : 503);
  });

  app.get("/", async (c) => c.html(renderStatusPage(await status())));

  app.notFound((c) => c.json({ error: "not found", path: c.req.path }, 404));
  app.onError((err, c) => {
    plugin.log.warn("request failed", { path: c.req.path, err });
    return c.json({ error: err.message }, 502);
  });
  return app;
}
