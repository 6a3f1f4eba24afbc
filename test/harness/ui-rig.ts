/**
 * The web UI as the Chromium tests open it: a daemon on a fresh data dir with the agent fixture
 * plugin, a fake LLM, and a page on the daemon's web UI (more tabs on demand); disposing it
 * closes the pages and stops everything in order.
 */
import type { Browser, Page } from "playwright-core";
import { tempDir } from "./binary.ts";
import { openPage } from "./browser.ts";
import { startDaemon, webUrlOf } from "./daemon.ts";
import { startFakeLlm } from "./fake-llm.ts";
import { installBunPlugin } from "./plugins.ts";

export async function openUiRig(browser: Browser, opts: { pluginArgs?: string[] } = {}) {
  const dir = tempDir();
  const pluginDir = installBunPlugin(dir.path, "agent", "agent.ts", {}, opts.pluginArgs ?? []);
  const llm = await startFakeLlm();
  const d = await startDaemon(dir.path);
  const url = await webUrlOf(d);
  const { page, errors } = await openPage(browser, url);
  const pages: Page[] = [page];
  return {
    llm,
    d,
    url,
    page,
    errors,
    pluginDir,
    /** Another tab on the same UI; its script errors join `errors`. */
    async tab(hash: string) {
      const t = await openPage(browser, `${url}${hash}`);
      pages.push(t.page);
      t.page.on("pageerror", (e) => errors.push(e.message));
      return t.page;
    },
    async [Symbol.asyncDispose]() {
      for (const p of pages) await p.close();
      await d[Symbol.asyncDispose]();
      await llm.stop();
      dir[Symbol.dispose]();
    },
  };
}
