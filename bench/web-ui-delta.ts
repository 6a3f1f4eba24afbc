/**
 * `web.ui_delta_ms_1k`, `web.ui_delta_ms_20k`: the time the web UI takes to apply one streamed
 * delta to a reply already 1,000 and 20,000 characters long, in headless Chromium: the UI's own
 * renderer (MarkdownStream, plugins/web/ui/markdown-stream.ts) appends 5 characters and the page lays
 * the message out again (reading the list's height, as the chat pane does to scroll). The reply
 * is markdown of the usual kinds — headings, paragraphs, lists, code blocks — and the mean is
 * over the 200 deltas that follow each length. `web.ui_delta_ms_20k_whole` is the same delta
 * rendered as the UI used to, the whole reply's markdown again, for the ratio in one run.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchBrowser } from "../test/harness/browser.ts";
import { ROOT } from "../test/harness/binary.ts";
import { report } from "./report.ts";
import { sampleReply } from "../test/harness/sample-reply.ts";

const DELTA = 5;
const DELTAS = 200;

/**
 * In the page: the reply so far streamed in (as it arrived, in deltas), then DELTAS more deltas
 * timed, each applied and laid out; the mean per delta in ms. `whole`: each delta re-renders
 * the whole reply, as the chat pane did before MarkdownStream.
 */
const PAGE_SCRIPT = `
globalThis.timeAt = (text, at, whole, step, count) => {
  const list = document.querySelector(".list");
  const body = document.querySelector(".body");
  const done = document.createElement("div");
  const tail = document.createElement("div");
  done.className = "md-done";
  tail.className = "md-tail";
  body.replaceChildren(done, tail);
  const stream = new MarkdownStream(done, tail, renderMarkdown);
  for (let i = 0; i < at; i += step) stream.append(text.slice(i, i + step));
  let shown = text.slice(0, at);
  void list.scrollHeight;
  const t0 = performance.now();
  for (let d = 0; d < count; d++) {
    const delta = text.slice(at + d * step, at + (d + 1) * step);
    if (whole) {
      shown += delta;
      body.innerHTML = renderMarkdown(shown);
    } else stream.append(delta);
    list.scrollTop = list.scrollHeight;
  }
  return (performance.now() - t0) / count;
};`;

export async function benchWebUiDelta(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "homed-bench-ui-"));
  const browser = await launchBrowser();
  try {
    const entry = join(dir, "entry.ts");
    writeFileSync(
      entry,
      [
        `import { renderMarkdown } from ${JSON.stringify(join(ROOT, "plugins/web/ui/markdown.ts"))};`,
        `import { MarkdownStream } from ${JSON.stringify(join(ROOT, "plugins/web/ui/markdown-stream.ts"))};`,
        PAGE_SCRIPT,
      ].join("\n"),
    );
    const built = await Bun.build({ entrypoints: [entry], target: "browser", format: "iife", minify: true });
    if (!built.success) throw new Error(`bundle: ${built.logs.join("\n")}`);
    const script = await built.outputs[0]?.text();
    const css = readFileSync(join(ROOT, "plugins/web/ui/app.css"), "utf8");
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.setContent(
      `<!doctype html><html><head><style>${css}</style></head><body><div class="list" style="height:800px;overflow:auto"><div class="msg assistant"><div class="body"></div></div></div></body></html>`,
    );
    await page.addScriptTag({ content: script as string });
    const text = sampleReply(20_000 + DELTA * DELTAS);
    const timeAt = (at: number, whole: boolean) =>
      page.evaluate(
        (a) =>
          (globalThis as unknown as { timeAt(...x: unknown[]): number }).timeAt(a.text, a.at, a.whole, a.step, a.count),
        { text, at, whole, step: DELTA, count: DELTAS },
      );
    await timeAt(2000, false); // the engine's warm-up, not counted
    const small = await timeAt(1000, false);
    const large = await timeAt(20_000, false);
    const whole = await timeAt(20_000, true);
    report("web.ui_delta_ms_1k", small, "ms", 3);
    report("web.ui_delta_ms_20k", large, "ms", 3);
    report("web.ui_delta_ms_20k_whole", whole, "ms", 3);
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchWebUiDelta();
