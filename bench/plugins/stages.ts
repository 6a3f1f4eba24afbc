/** One no-op handler at each of the seven stages: the plugin side of turn.overhead_ms. */
import { connectPlugin } from "../../plugins/sdk/index.ts";
import { STAGES } from "../../src/protocol/agent.ts";

const plugin = await connectPlugin();
for (const stage of STAGES) await plugin.stage(stage, () => ({}));
await plugin.ready();
