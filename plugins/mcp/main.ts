/**
 * The `mcp` plugin: the MCP client of homed. Each server in config.toml's [[mcp.servers]] is
 * started over stdio, or reached over Streamable HTTP, and supervised; its tools appear to the
 * model like any other tool.
 */
import * as v from "valibot";
import { connectPlugin } from "../sdk/index.ts";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import { RiskClass } from "../../src/protocol/agent.ts";
import { McpServer } from "./server.ts";

const McpSection = v.object({
  servers: v.array(
    v.object({
      name: v.string(),
      /** Either a command (stdio) or a url (Streamable HTTP). */
      command: v.string(),
      url: v.string(),
      /** By value and from secrets, resolved by the kernel. */
      headers: v.record(v.string(), v.string()),
      /** Secret names header_secrets gives that DATA/secrets.json does not hold. */
      missing_secrets: v.array(v.string()),
      args: v.array(v.string()),
      /** What the owner configured, passthrough names already resolved by the kernel. */
      env: v.record(v.string(), v.string()),
      risk: RiskClass,
      read_only_hint: v.boolean(),
    }),
  ),
});

const plugin = await connectPlugin();
const section = await plugin.call(PluginMethod.ConfigGet, { section: "mcp" }, McpSection);
const servers = section.servers.map((cfg) => new McpServer(cfg, plugin));
plugin.onShutdown(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});
// Servers start in the background: a slow or broken one must not hold the plugin's readiness.
for (const s of servers) void s.start();
await plugin.ready("tool.mcp");
plugin.log.info("mcp plugin ready", { servers: servers.length });
