/**
 * The `fetch` plugin (lazy): fetch_url and fetch_search. [tools.fetch] is read on each call, so
 * a search key put into DATA/secrets.json is used at once.
 */
import { connectPlugin, withRun } from "../sdk/index.ts";
import { readFetchConfig } from "./config.ts";
import { fetchRefusal, fetchUrl } from "./fetch-url.ts";
import { webSearch } from "./search.ts";
import { TOOLS } from "./tools.ts";

const plugin = await connectPlugin();
/** Says who is asking, so a site's owner can tell an agent from a browser. */
const userAgent = `homed/${plugin.hello.kernelVersion} (fetch plugin; a self-hosted agent fetching for its owner)`;

await plugin.tools([
  withRun(
    TOOLS.fetch_url,
    async (args, ctx) => fetchUrl(args, { config: await readFetchConfig(plugin), userAgent, signal: ctx.signal }),
    async (args) => fetchRefusal(args.url, await readFetchConfig(plugin)),
  ),
  withRun(TOOLS.fetch_search, async (args, ctx) =>
    webSearch(args, { config: await readFetchConfig(plugin), userAgent, signal: ctx.signal }),
  ),
]);
await plugin.ready();
