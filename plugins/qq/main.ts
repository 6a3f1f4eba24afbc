/**
 * The `qq` plugin: QQ over OneBot v11. Started only when [channels.qq] enabled = true (its
 * manifest's enabled_by); a configuration that cannot work (a listener beyond loopback without an
 * access token, a port taken) exits 78 and is not restarted.
 */
import { connectPlugin, PLUGIN_EXIT_CONFIG } from "../sdk/index.ts";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import { isLoopback, parseListen } from "../../src/shared/listen.ts";
import { QqConfig } from "./settings.ts";
import { ForwardWs } from "./ws-forward.ts";
import { ReverseWs } from "./ws-reverse.ts";
import { HttpTransport } from "./http-transport.ts";
import { QqChannel } from "./qq-channel.ts";
import type { OneBotTransport, TransportOptions } from "./transport.ts";

const plugin = await connectPlugin();
async function giveUp(msg: string, fields: Record<string, unknown> = {}): Promise<never> {
  plugin.log.error(msg, fields);
  return await plugin.exit(PLUGIN_EXIT_CONFIG);
}

const cfg = await plugin.call(PluginMethod.ConfigGet, { section: "channels.qq" }, QqConfig);
const { host, port } = parseListen(cfg.listen) ?? (await giveUp("[channels.qq] listen is not HOST:PORT"));
if (cfg.mode !== "ws" && !cfg.access_token && !(cfg.mode === "http" && cfg.secret) && !isLoopback(host))
  await giveUp("[channels.qq] listen is not a loopback address: set access_token", { listen: cfg.listen });
if (cfg.mode === "ws" && !/^wss?:\/\//.test(cfg.url))
  await giveUp("[channels.qq] mode ws needs a ws:// url", { url: cfg.url });
if (cfg.mode === "http" && !/^https?:\/\//.test(cfg.url))
  await giveUp("[channels.qq] mode http needs the API's http:// url", { url: cfg.url });

let transport: OneBotTransport | null = null;
const channel = new QqChannel(plugin, cfg, () => transport as OneBotTransport);
const options: TransportOptions = {
  url: cfg.url,
  host,
  port,
  accessToken: cfg.access_token,
  secret: cfg.secret || cfg.access_token,
  reconnectMs: cfg.reconnect_ms,
  onEvent: (e) => channel.event(e),
  log: plugin.log,
};
transport =
  cfg.mode === "ws"
    ? new ForwardWs(options)
    : cfg.mode === "reverse"
      ? new ReverseWs(options)
      : new HttpTransport(options);
try {
  await transport.start();
} catch (err) {
  await giveUp("qq cannot listen", { listen: cfg.listen, err: (err as Error).message });
}
plugin.onShutdown(() => transport?.stop());
plugin.log.info("qq channel ready", {
  mode: cfg.mode,
  owners: cfg.owners.length,
  groups: cfg.groups.length || "all",
});
await plugin.ready("channel.qq");
