/** What the browser plugin reads of config.toml: [tools.browser], as the kernel's config/get "tools" answers it. */
import * as v from "valibot";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import type { Plugin } from "../sdk/index.ts";

const BrowserSection = v.object({
  /** Debian's chromium; the browser is never downloaded. */
  executable: v.string(),
  /** Let pages on private, loopback and link-local addresses open (a home server, a test page). */
  allow_private: v.boolean(),
  /** Private hosts (names, "*.example.org", addresses, CIDR ranges) pages may open all the same. */
  allow_hosts: v.array(v.string()),
  /** Longest wait for one navigation or action. */
  timeout_ms: v.number(),
});
export type BrowserConfig = v.InferOutput<typeof BrowserSection>;

const ToolsSection = v.object({ browser: BrowserSection });

export async function readBrowserConfig(plugin: Plugin): Promise<BrowserConfig> {
  return (await plugin.call(PluginMethod.ConfigGet, { section: "tools" }, ToolsSection)).browser;
}
