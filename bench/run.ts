/** `make bench`: every benchmark, one `bench: NAME VALUE UNIT` line per figure. */
import { benchIpc } from "./ipc.ts";
import { benchStartup } from "./startup.ts";

const t0 = performance.now();
await benchStartup();
await benchIpc();
console.error(`bench run finished in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
