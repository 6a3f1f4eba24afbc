/**
 * The `rss` plugin (lazy): feeds in DATA/rss/feeds.json, polled every [tools.rss] poll_minutes
 * while it runs. While it follows a feed and polls on a timer it asks to keep running
 * (plugin/keep-running), so polls go on when idle; with no feeds it may be stopped.
 */
import { join } from "node:path";
import * as v from "valibot";
import { connectPlugin, withRun } from "../sdk/index.ts";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import { FeedBook } from "./feeds.ts";
import { rssTools } from "./rss-tools.ts";
import { TOOLS } from "./tools.ts";

const Section = v.object({
  rss: v.object({ poll_minutes: v.number(), max_feeds: v.number(), max_items: v.number() }),
  fetch: v.object({
    allow_private: v.boolean(),
    allow_hosts: v.array(v.string()),
    max_kb: v.number(),
    timeout_ms: v.number(),
  }),
});

const plugin = await connectPlugin();
const read = () => plugin.call(PluginMethod.ConfigGet, { section: "tools" }, Section);
const { rss: cfg } = await read();
const book = new FeedBook(join(plugin.hello.dataDir, "rss", "feeds.json"));
if (book.setAside)
  plugin.log.warn("rss state did not parse; moved aside, starting with no feeds", { file: book.setAside });

let keeping: boolean | null = null;
function changed(): void {
  const on = book.feeds.length > 0 && cfg.poll_minutes > 0;
  if (on === keeping) return;
  keeping = on;
  void plugin.keepRunning(on).catch((err) => plugin.log.warn("keep-running not sent", { err: (err as Error).message }));
}

const { tools: t, refreshAll } = rssTools({
  book,
  limits: cfg,
  fetch: async () => (await read()).fetch,
  userAgent: `homed/${plugin.hello.kernelVersion} (rss plugin; a feed reader for its owner)`,
  now: () => Date.now(),
  changed,
});

await plugin.tools([
  withRun(TOOLS.rss_subscribe, (a, ctx) => t.subscribe(a, ctx.signal)),
  withRun(TOOLS.rss_unsubscribe, (a) => t.unsubscribe(a)),
  withRun(TOOLS.rss_feeds, () => t.feeds()),
  withRun(TOOLS.rss_items, (a) => t.items(a)),
  withRun(TOOLS.rss_read, (a) => t.read(a)),
  withRun(TOOLS.rss_refresh, (a, ctx) => t.refresh(a, ctx.signal)),
  withRun(TOOLS.rss_digest, (a, ctx) => t.digest(a, ctx.signal)),
]);

if (cfg.poll_minutes > 0) {
  let polling = false;
  const timer = setInterval(() => {
    if (polling || book.feeds.length === 0) return;
    polling = true;
    refreshAll()
      .then((lines) => plugin.log.info("feeds polled", { feeds: lines.length }))
      .catch((err) => plugin.log.warn("poll failed", { err: (err as Error).message }))
      .finally(() => {
        polling = false;
      });
  }, cfg.poll_minutes * 60_000);
  plugin.onShutdown(() => clearInterval(timer));
}
await plugin.ready();
changed();
