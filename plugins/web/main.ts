/** The `web` plugin: Hono on Bun.serve at the daemon's listen address. HTTP never runs in the kernel. */
import { connectPlugin, PLUGIN_EXIT_CONFIG } from "../sdk/index.ts";
import { parseListen } from "../../src/protocol/listen.ts";
import { PluginMethod, WebConfig } from "../../src/protocol/plugin.ts";
import { createApp } from "./app.ts";
import { createSecurity } from "./security.ts";

const plugin = await connectPlugin();
const addr = parseListen(plugin.hello.listen);
if (!addr) {
  plugin.log.error("listen address is not HOST:PORT", { listen: plugin.hello.listen });
  await plugin.exit(PLUGIN_EXIT_CONFIG);
}
const { host, port } = addr!;
const web = await plugin.call(PluginMethod.ConfigGet, { section: "web" }, WebConfig);
let server: ReturnType<typeof Bun.serve>;
const security = createSecurity({
  token: web.token,
  tokenSet: web.token_set,
  bindHost: host,
  allowedHosts: web.allowed_hosts,
  clientAddress: (req) => server.requestIP(req)?.address ?? "unknown",
});
const app = createApp(plugin, security, web.max_body_kb * 1024);
try {
  // idleTimeout 0: a turn's event stream may stay quiet while a person reads an approval question.
  server = Bun.serve({ hostname: host, port, fetch: app.fetch, idleTimeout: 0 });
} catch (err) {
  // Another program holds the port, or the address is not ours: restarting will not help.
  plugin.log.error("cannot listen", { listen: plugin.hello.listen, err });
  await plugin.exit(PLUGIN_EXIT_CONFIG);
}
plugin.onShutdown(() => server.stop(true));
plugin.log.info("web listening", { url: `http://${host.includes(":") ? `[${host}]` : host}:${server!.port}/`, login: security.loginRequired ? "token required" : "loopback, no login" });
await plugin.ready("channel.web");
