/**
 * The `browser` plugin: a real Chromium the agent drives (browsers belong to plugins, not the kernel).
 * Lazy: the kernel starts it on the first browser_* call and stops it when idle; the browser
 * starts with the first call and closes with the plugin. Everything a page says comes back
 * marked as untrusted data (a page cannot approve anything: approvals come only from the
 * person, through the kernel's gate).
 */
import { join } from "node:path";
import { connectPlugin, MAX_TOOL_IMAGE_BYTES, withRun } from "../sdk/index.ts";
import { readBrowserConfig } from "./config.ts";
import { BrowserError, BrowserSession } from "./session.ts";
import { pageResult } from "./page-result.ts";
import { TOOLS } from "./tools.ts";

const plugin = await connectPlugin();
const config = await readBrowserConfig(plugin);
const session = new BrowserSession({
  executable: config.executable,
  profileDir: join(plugin.hello.dataDir, "browser"),
  policy: { allowPrivate: config.allow_private, allowHosts: config.allow_hosts },
  timeoutMs: config.timeout_ms,
  log: plugin.log,
});
plugin.onShutdown(() => session.close());

/**
 * Calls run one at a time: they share one page, and a click from one conversation in the middle
 * of another's typing would act on a page neither expects.
 */
let queue: Promise<unknown> = Promise.resolve();

/**
 * Run `work` in turn; a failure the model can act on is its result, anything else is said as it
 * is. A call whose turn was stopped while it waited does not run at all (a click nobody wants any
 * more must not happen later).
 */
function guarded<T>(tool: string, signal: AbortSignal, work: () => Promise<T>) {
  const run = async () => {
    if (signal.aborted) return { content: `${tool}: cancelled before it ran`, isError: true };
    try {
      return await work();
    } catch (err) {
      const msg = err instanceof BrowserError ? err.message : `${tool}: ${(err as Error).message.split("\n")[0]}`;
      return { content: `error: ${msg}`, isError: true };
    }
  };
  const next = queue.then(run, run);
  queue = next;
  return next;
}

await plugin.tools([
  withRun(
    TOOLS.browser_open,
    (args, ctx) => guarded("browser_open", ctx.signal, async () => pageResult(await session.open(args.url))),
    async (args) => {
      const why = await session.refusal(args.url);
      return why && `browser_open: ${why}`;
    },
  ),
  withRun(TOOLS.browser_read, (args, ctx) =>
    guarded("browser_read", ctx.signal, async () => pageResult(await session.read(), args.from ?? 0)),
  ),
  withRun(TOOLS.browser_click, (args, ctx) =>
    guarded("browser_click", ctx.signal, async () => {
      const r = await session.click(args.element);
      return pageResult(r.snapshot, 0, `Clicked [${args.element}] ${r.el.role} "${r.el.name}".`);
    }),
  ),
  withRun(TOOLS.browser_type, (args, ctx) =>
    guarded("browser_type", ctx.signal, async () => {
      const r = await session.type(args.element, args.text, args.submit ?? false);
      const how = args.submit ? " and pressed Enter" : "";
      return pageResult(r.snapshot, 0, `Typed into [${args.element}] ${r.el.role} "${r.el.name}"${how}.`);
    }),
  ),
  withRun(TOOLS.browser_scroll, (args, ctx) =>
    guarded("browser_scroll", ctx.signal, async () => {
      const r = await session.scroll(args.direction, args.screens ?? 1);
      const bottom = r.y + r.view >= r.height - 2;
      return `Scrolled ${args.direction}: now at ${r.y} of ${r.height} pixels (the screen shows ${r.view})${r.y === 0 ? ", the top" : bottom ? ", the bottom" : ""}. browser_read gives the text, browser_screenshot what is shown.`;
    }),
  ),
  withRun(TOOLS.browser_screenshot, (args, ctx) =>
    guarded("browser_screenshot", ctx.signal, async () => {
      const s = await session.screenshot(args.full_page ?? false, MAX_TOOL_IMAGE_BYTES);
      return {
        content: `Screenshot of ${s.url} (${s.width}×${s.height} PNG${args.full_page ? ", full page" : ""}).`,
        images: [{ mime: "image/png" as const, data: s.png, alt: `Screenshot of ${s.url}` }],
      };
    }),
  ),
]);
await plugin.ready();
