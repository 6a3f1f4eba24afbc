/**
 * What the built-in plugins read of config.toml's [channels.a2a] (config/get "channels"): the web
 * plugin serves A2A with it (importing this file, the one it shares with this plugin), the a2a
 * plugin calls other agents with it. The kernel checks the section fully (settings.ts); these
 * schemas only check what crosses the boundary.
 */
import * as v from "valibot";

export const A2aChannelConfig = v.object({
  enabled: v.boolean(),
  name: v.string(),
  description: v.string(),
  peers: v.array(v.object({ name: v.string(), token: v.string() })),
  trusted_peers: v.array(v.string()),
  agents: v.array(v.object({ name: v.string(), url: v.string(), token: v.string() })),
});
export type A2aChannelConfig = v.InferOutput<typeof A2aChannelConfig>;

/** The answer to config/get "channels". */
export const ChannelsConfig = v.object({ a2a: A2aChannelConfig });

/** The A2A caller name of whoever presents the login token. */
export const A2A_OWNER_PEER = "owner";
/** The A2A caller name of a caller with no credentials (a loopback listen asks for none). */
export const A2A_ANON_PEER = "anon";
