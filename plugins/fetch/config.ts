/**
 * What the fetch plugin reads of config.toml: its [tools.fetch] (settings.ts) as config/get
 * answers it, plus `search_key`, the one secret the kernel resolves for this built-in plugin
 * (DATA/secrets.json's values[search_key_secret]; "" when unset or absent).
 */
import * as v from "valibot";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import type { Plugin } from "../sdk/index.ts";
import { SETTINGS } from "./settings.ts";

const FetchSection = v.object({ ...SETTINGS.schema.entries, search_key: v.optional(v.string(), "") });
export type FetchConfig = v.InferOutput<typeof FetchSection>;

/**
 * [tools.fetch] now. Read on every call: it is one local round trip, and a key the owner has just
 * put into secrets.json is used without restarting anything.
 */
export async function readFetchConfig(plugin: Plugin): Promise<FetchConfig> {
  return await plugin.call(PluginMethod.ConfigGet, { section: "tools.fetch" }, FetchSection);
}
