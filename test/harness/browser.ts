/** Real Chromium (Debian's, never a downloaded one) driven by playwright-core. */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { ROOT } from "./binary.ts";

export const CHROMIUM = "/usr/bin/chromium";
export const SHOTS = join(ROOT, "dist/screenshots");

export async function launchBrowser(): Promise<Browser> {
  return await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-dev-shm-usage",
      "--no-first-run",
    ],
  });
}

/** A page that fails the test on any script error in the UI. */
export async function openPage(browser: Browser, url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 780 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url);
  return { page, errors };
}

export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/** Point the daemon behind `page` at an OpenAI-compatible provider through the UI's own API; the HTTP status. */
export async function setProviderInPage(page: Page, baseURL: string, model = "m"): Promise<number> {
  return await page.evaluate(
    async ([base, name]) =>
      (
        await fetch("/api/provider", {
          method: "POST",
          headers: { "content-type": "application/json", "x-homed": "1" },
          body: JSON.stringify({ provider: "openai", baseURL: base, model: name }),
        })
      ).status,
    [baseURL, model] as const,
  );
}
