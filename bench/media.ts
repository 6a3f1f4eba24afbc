/**
 * Media figures (issue 16), through the compiled plugin as the kernel drives it
 * (test/harness/media-rig.ts, stdio):
 *   media.ocr_ms — media_ocr of one 1280×670 screenshot-like PNG (22 lines of 16 px UI text
 *     drawn by ffmpeg in DejaVu Sans) with the default languages eng+chi_sim; median of ROUNDS after one
 *     warm-up. media.ocr_eng_ms — the same with eng only (no Chinese model to load).
 *   media.ocr_word_accuracy — the share of the drawn words tesseract gave back (eng+chi_sim).
 *   media.pdf_pages_s — pages per second of media/extract on a PDF_PAGES-page PDF the bench
 *     writes (two lines of text a page): pdfinfo + one pdftotext run + anchors; median of ROUNDS.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makePdf, textPng } from "../test/harness/media-fixtures.ts";
import { startMediaPlugin } from "../test/harness/media-rig.ts";
import { median, report } from "./report.ts";

const ROUNDS = 5;
const PDF_PAGES = 500;

/** What a settings screen says: menu items, labels, values, a status line. */
const SCREEN = [
  "File   Edit   View   Window   Help",
  "Settings > Network > Proxy",
  "Connection name: office-wifi-5g",
  "Address: 192.168.20.41   Gateway: 192.168.20.1",
  "DNS servers: 9.9.9.9, 149.112.112.112",
  "Proxy mode: Manual   Port: 3128",
  "Bypass for: localhost, *.internal.example",
  "Last sync: Tuesday 14:32, 2 warnings",
  "Warning: certificate expires in 12 days",
  "Download 48.3 MB/s   Upload 11.7 MB/s",
  "Apply     Cancel     Restore defaults",
  "Account: maria.lopez@example.org",
  "Storage used: 71% of 512 GB",
  "Battery 84% - about 5 hours left",
  "Notifications: 3 unread messages",
  "Search settings",
  "Bluetooth: off   Airplane mode: off",
  "Updates: version 4.18.2 is ready to install",
  "Privacy > Location services: while using",
  "Display brightness 65%   Night light: on",
  "Keyboard layout: English (US), Deutsch",
  "Status: connected, signal strong",
];

const words = (s: string) => s.split(/\s+/).filter((w) => w.length > 0);

export async function benchMedia(): Promise<void> {
  const data = mkdtempSync(join(tmpdir(), "homed-bench-media-"));
  try {
    const ws = join(data, "workspace");
    mkdirSync(ws);
    await textPng(SCREEN, join(ws, "screen.png"), 1280, 16);
    await using rig = await startMediaPlugin(data);
    const ocr = async (languages?: string) => {
      const times: number[] = [];
      let text = "";
      for (let i = 0; i <= ROUNDS; i++) {
        const t0 = performance.now();
        const r = await rig.tool("media_ocr", { path: "screen.png", ...(languages ? { languages } : {}) });
        if (r.isError) throw new Error(r.content);
        if (i > 0) times.push(performance.now() - t0);
        text = r.content;
      }
      return { ms: median(times), text };
    };
    const both = await ocr();
    const eng = await ocr("eng");
    const got = new Set(words(both.text));
    const expected = SCREEN.flatMap(words);
    const right = expected.filter((w) => got.has(w)).length;
    report("media.ocr_ms", both.ms, "ms");
    report("media.ocr_eng_ms", eng.ms, "ms");
    report("media.ocr_word_accuracy", (100 * right) / expected.length, "%");

    const blocks = join(data, "blocks");
    mkdirSync(blocks);
    const pages = Array.from({ length: PDF_PAGES }, (_, i) => [
      `Chapter ${Math.floor(i / 20) + 1}, page ${i + 1}`,
      "The quick brown fox jumps over the lazy dog, again and again, on every page of this report.",
    ]);
    writeFileSync(join(blocks, "book"), makePdf(pages));
    const rates: number[] = [];
    for (let i = 0; i <= ROUNDS; i++) {
      const t0 = performance.now();
      const f = await rig.request("media/extract", { path: join(blocks, "book"), mime: "application/pdf" });
      const s = (performance.now() - t0) / 1000;
      const anchors = (f.result as { anchors?: unknown[] } | undefined)?.anchors?.length;
      if (anchors !== PDF_PAGES) throw new Error(`media/extract gave ${anchors} page anchors, not ${PDF_PAGES}`);
      if (i > 0) rates.push(PDF_PAGES / s);
    }
    report("media.pdf_pages_s", median(rates), "pages/s", 0);
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchMedia();
