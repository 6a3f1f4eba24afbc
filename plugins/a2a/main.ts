/**
 * The `a2a` plugin (lazy; not started at all while [channels.a2a] agents is empty): the a2a_send
 * tool. The agent list is read on each call; a name that is not listed is refused, so the model
 * can reach only the agents the owner named.
 */
import { ChannelsConfig } from "./config.ts";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import { connectPlugin, withRun } from "../sdk/index.ts";
import { sendToAgent } from "./a2a-client.ts";
import { TOOLS } from "./tools.ts";

const plugin = await connectPlugin();
/** A reply may take as long as the other agent's turn; this bounds a stuck one. */
const CALL_TIMEOUT_MS = 10 * 60 * 1000;

await plugin.tools([
  withRun(TOOLS.a2a_send, async (args, ctx) => {
    const { a2a } = await plugin.call(PluginMethod.ConfigGet, { section: "channels" }, ChannelsConfig);
    const agent = a2a.agents.find((a) => a.name === args.agent);
    if (!agent) {
      const known = a2a.agents.map((a) => a.name).join(", ") || "none";
      return { content: `a2a_send: no agent named ${args.agent} is configured (known: ${known})`, isError: true };
    }
    try {
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]);
      const r = await sendToAgent(agent, args.text, args.context_id, signal);
      const head = `${agent.name} (context_id ${r.contextId || "none"}, task ${r.state}):`;
      return { content: `${head}\n${r.text || "(no text in the reply)"}`, isError: r.state !== "completed" };
    } catch (err) {
      return { content: `a2a_send: ${(err as Error).message}`, isError: true };
    }
  }),
]);
await plugin.ready();
