/** What the browser plugin reads of config.toml: its [tools.browser] (settings.ts), read when it starts. */
import type * as v from "valibot";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import type { Plugin } from "../sdk/index.ts";
import { SETTINGS } from "./settings.ts";

export type BrowserConfig = v.InferOutput<typeof SETTINGS.schema>;

export async function readBrowserConfig(plugin: Plugin): Promise<BrowserConfig> {
  return await plugin.call(PluginMethod.ConfigGet, { section: "tools.browser" }, SETTINGS.schema);
}
