/** The `web` plugin: Hono on Bun.serve at the daemon's listen address. HTTP never runs in the kernel. */
import * as v from "valibot";
import { connectPlugin, PLUGIN_EXIT_CONFIG } from "../sdk/index.ts";
import { parseListen } from "../../src/shared/listen.ts";
import { LISTEN_FACILITY, LOGIN_FACILITY, PluginMethod } from "../../src/protocol/plugin.ts";
import { WebConfig } from "./settings.ts";
import { ChannelsConfig } from "../a2a/config.ts";
import { createApp } from "./app.ts";
import { guardConnections, idleTimeoutFor, MAX_OPEN_REQUESTS_PER_CLIENT, requestBudget } from "./connection-guard.ts";
import { createSecurity } from "./security.ts";

const plugin = await connectPlugin();
/** A configuration problem restarting will not fix: say it and exit 78. */
async function giveUp(msg: string, fields: Record<string, unknown>): Promise<never> {
  plugin.log.error(msg, fields);
  return await plugin.exit(PLUGIN_EXIT_CONFIG);
}
const { host, port } =
  parseListen(plugin.hello.listen) ??
  (await giveUp("listen address is not HOST:PORT", { listen: plugin.hello.listen }));
const web = await plugin.call(PluginMethod.ConfigGet, { section: "web" }, WebConfig);
const channels = await plugin.call(PluginMethod.ConfigGet, { section: "channels" }, ChannelsConfig);
/** Each request's client address, as connection-guard.ts read it from the socket. */
const addresses = new WeakMap<Request, string>();
const security = createSecurity({
  token: web.token,
  metricsToken: web.metrics_token,
  tokenSet: web.token_set,
  auth: web.auth,
  bindHost: host,
  allowedHosts: web.allowed_hosts,
  clientAddress: (req) => addresses.get(req) ?? "unknown",
});
const app = createApp(plugin, security, web.max_body_kb * 1024, { token: web.token, config: channels.a2a });
const guarded = guardConnections({
  timeoutS: web.request_timeout_s,
  maxOpen: MAX_OPEN_REQUESTS_PER_CLIENT,
  totalMax: requestBudget(),
  handle: (req, address) => {
    addresses.set(req, address);
    return app.fetch(req);
  },
});
let listening: ReturnType<typeof Bun.serve>;
try {
  listening = Bun.serve({ hostname: host, port, fetch: guarded, idleTimeout: idleTimeoutFor(web.request_timeout_s) });
} catch (err) {
  // Another program holds the port, or the address is not ours: restarting will not help.
  listening = await giveUp("cannot listen", { listen: plugin.hello.listen, err });
}
plugin.onShutdown(() => listening.stop(true));

// Where a person on this machine opens the UI (a wildcard bind is reached on loopback): the
// kernel prints it, with a one-time login link where a login is needed.
const reach = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
await plugin.call(
  PluginMethod.LoginListening,
  {
    origin: `http://${reach.includes(":") ? `[${reach}]` : reach}:${listening.port}`,
    loginRequired: security.loginRequired,
  },
  v.object({ ok: v.boolean() }),
);
await plugin.ready(LISTEN_FACILITY);
await plugin.ready(LOGIN_FACILITY);
await plugin.ready("channel.web");
await plugin.ready("channel.api");
// Announced even when [channels.a2a] enabled = false: the channel is then there and refuses.
await plugin.ready("channel.a2a");
// Logged once every channel is ready: whoever waits for this line (a test, a bench) finds the
// plugin ready too, not merely listening.
plugin.log.info("web listening", {
  url: `http://${host.includes(":") ? `[${host}]` : host}:${listening.port}/`,
  login: security.loginRequired ? "token required" : "loopback, no login",
  a2a: channels.a2a.enabled ? "/a2a" : "off",
});
