/** `make bench`: every benchmark, one `bench: NAME VALUE UNIT` line per figure. */
import { benchIpc } from "./ipc.ts";
import { benchStartup } from "./startup.ts";
import { benchTurn } from "./turn.ts";
import { benchRecall } from "./recall.ts";
import { benchLeak } from "./leak.ts";
import { benchLoad } from "./load.ts";
import { benchTools } from "./tools.ts";
import { benchChannelAcp } from "./channel-acp.ts";
import { benchChannelA2a } from "./channel-a2a.ts";
import { benchDist } from "./dist.ts";
import { benchChannelQq } from "./channel-qq.ts";
import { benchChannelWaiter } from "./channel-waiter.ts";

const t0 = performance.now();
await benchStartup();
await benchIpc();
await benchTurn();
await benchRecall();
await benchLeak();
await benchLoad();
await benchTools();
await benchChannelAcp();
await benchChannelA2a();
benchDist();
await benchChannelQq();
await benchChannelWaiter();
console.error(`bench run finished in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
