/**
 * [channels.a2a]: the A2A (Agent2Agent) channel the web plugin serves and the agents this
 * plugin's `a2a_send` tool may call. Closed by default where it matters: beyond loopback a caller
 * needs a token, every caller's input is untrusted until the owner names it in `trusted_peers`,
 * and `a2a_send` reaches no agent until one is listed in `agents`. The web plugin reads it when
 * it starts, so a change waits for homed's next start.
 */
import * as v from "valibot";
import { A2A_ANON_PEER, A2A_OWNER_PEER } from "./config.ts";
import { defineSettings, setting } from "../../src/protocol/plugin-settings.ts";

const bool = v.boolean("must be true or false");
/** A name that may appear in a scene key (`chan:a2a/peer:<name>`) and in logs. */
const PeerName = v.pipe(
  v.string("must be names"),
  v.regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be names of 1-64 letters, digits, _ . or -"),
);
/** A bearer token another agent presents; as long as the login token must be. */
const Token = v.pipe(v.string(), v.minLength(16, "must be at least 16 characters"), v.maxLength(512));

export const A2aConfig = v.pipe(
  v.strictObject({
    enabled: setting(bool, true, "Serve the agent card and the JSON-RPC endpoint on the web listener."),
    name: setting(
      v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
      "homed",
      "What the agent card tells other agents.",
    ),
    description: setting(
      v.pipe(v.string(), v.maxLength(2000)),
      "A personal agent running on its owner's machine: ask it questions or give it tasks in plain text.",
      "The agent card's description of this agent.",
    ),
    peers: setting(
      v.pipe(
        v.array(v.strictObject({ name: PeerName, token: Token })),
        v.check((ps) => new Set(ps.map((p) => p.name)).size === ps.length, "must have distinct names"),
        v.check((ps) => new Set(ps.map((p) => p.token)).size === ps.length, "must have distinct tokens"),
        v.check(
          (ps) => ps.every((p) => p.name !== A2A_OWNER_PEER && p.name !== A2A_ANON_PEER),
          `must not use the names "${A2A_OWNER_PEER}" and "${A2A_ANON_PEER}"`,
        ),
      ),
      [],
      `Agents that call with a token of their own (at least 16 characters), named in logs and in
the conversation's scene (chan:a2a/peer:<name>), e.g.
peers = [{ name = "laptop", token = "a-long-random-token-for-the-laptop" }]`,
    ),
    trusted_peers: setting(
      v.array(PeerName),
      [],
      `A2A input is untrusted (it never approves a tool; its recall stays in its own conversation)
unless its caller is named here: a name from peers, or "owner" for the login token's holder.`,
    ),
    agents: setting(
      v.pipe(
        v.array(
          v.strictObject({
            name: PeerName,
            url: v.pipe(v.string(), v.url("must be URLs"), v.regex(/^https?:\/\//i, "must be http or https URLs")),
            /** Sent as `Authorization: Bearer`; "" for an agent that needs none (loopback). */
            token: v.optional(v.pipe(v.string(), v.maxLength(512)), ""),
          }),
        ),
        v.check((as) => new Set(as.map((a) => a.name)).size === as.length, "must have distinct names"),
      ),
      [],
      `Agents the a2a_send tool may call (none by default), e.g.
agents = [{ name = "laptop", url = "http://10.0.0.5:8080", token = "the laptop's token for us" }]`,
    ),
  }),
  v.check(
    (c) => c.trusted_peers.every((n) => n === A2A_OWNER_PEER || c.peers.some((p) => p.name === n)),
    `trusted_peers must name peers listed in peers, or "${A2A_OWNER_PEER}"`,
  ),
);
export type A2aConfig = v.InferOutput<typeof A2aConfig>;

export const SETTINGS = defineSettings({
  doc: `A2A (Agent2Agent): other agents talk to homed on the web listener. The agent card is at
/.well-known/agent-card.json, the JSON-RPC endpoint at /a2a (A2A 1.0 and 0.3). On a loopback
listen it is open like the web UI; beyond loopback a caller needs the login token or a
token of its own from peers.`,
  schema: A2aConfig,
  reload: "daemon-restart",
  builtinOnly: true,
});
