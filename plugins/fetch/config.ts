/**
 * What the fetch plugin reads of config.toml: [tools.fetch] as the kernel's config/get "tools"
 * answers it, plus `search_key`, the one secret the kernel resolves for this built-in plugin
 * (DATA/secrets.json's values[search_key_secret]; "" when unset or absent).
 */
import * as v from "valibot";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import type { Plugin } from "../sdk/index.ts";

const FetchSection = v.object({
  allow_private: v.boolean(),
  allow_hosts: v.array(v.string()),
  max_kb: v.number(),
  timeout_ms: v.number(),
  search_provider: v.picklist(["", "searxng", "brave"]),
  search_url: v.string(),
  search_key_secret: v.string(),
  search_key: v.optional(v.string(), ""),
});
export type FetchConfig = v.InferOutput<typeof FetchSection>;

const ToolsSection = v.object({ fetch: FetchSection });

/**
 * [tools.fetch] now. Read on every call: it is one local round trip, and a key the owner has just
 * put into secrets.json is used without restarting anything.
 */
export async function readFetchConfig(plugin: Plugin): Promise<FetchConfig> {
  return (await plugin.call(PluginMethod.ConfigGet, { section: "tools" }, ToolsSection)).fetch;
}
