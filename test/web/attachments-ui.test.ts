/**
 * Attachments in the web UI, in real Chromium against dist/homed: files picked with Attach and
 * pasted into the chat are uploaded at once and previewed in the composer (a thumbnail the
 * browser decoded, a player, a document chip); sent, they show in the person's bubble and go to
 * the model; after a reload the transcript shows them again. A voice message is recorded with
 * Record (Chromium's fake microphone) and arrives as an audio attachment. The memory page finds
 * the messages and shows their files.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chromium, type Browser, type Page } from "playwright-core";
import sharp from "sharp";
import { tempDir } from "../harness/binary.ts";
import { CHROMIUM, openPage, setProviderInPage, shot } from "../harness/browser.ts";
import { startDaemon, webUrlOf } from "../harness/daemon.ts";
import { startFakeLlm } from "../harness/fake-llm.ts";
import { poll } from "../harness/poll.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--no-first-run",
      // A microphone that plays a beep, granted without asking.
      "--use-fake-device-for-media-stream",
      "--use-fake-ui-for-media-stream",
    ],
  });
});
afterAll(async () => {
  await browser?.close();
});

/** Each attachment shown in `scope`: its kind, and for an image whether the browser decoded it. */
async function shown(page: Page, scope: string) {
  return await page.locator(`${scope} .att`).evaluateAll((els) =>
    els.map((el) => {
      const img = el.querySelector("img") as unknown as { naturalWidth: number; complete: boolean } | null;
      return {
        cls: el.className,
        text: el.textContent ?? "",
        decoded: img ? img.complete && img.naturalWidth > 0 : null,
        audio: el.querySelector("audio") !== null,
      };
    }),
  );
}

describe("attachments in the web UI", () => {
  test("pick, paste, preview, send, see them in the bubble and after a reload; record a voice message", async () => {
    using dir = tempDir();
    await using llm = await startFakeLlm();
    // The built-in media plugin off: what a file is kept as when nothing reads its text.
    await using d = await startDaemon(dir.path, { env: { HOMED_PLUGINS_DISABLED: "media" } });
    const url = await webUrlOf(d);
    const { page, errors } = await openPage(browser, url);
    try {
      expect(await setProviderInPage(page, llm.url)).toBe(200);
      await page.goto(`${url}#/chat/pictures`);
      await page.waitForSelector("#prompt");

      const photo = await sharp({ create: { width: 320, height: 200, channels: 3, background: "#2a8f4a" } })
        .jpeg()
        .toBuffer();
      await page.setInputFiles("#attach-input", [
        { name: "garden.jpg", mimeType: "image/jpeg", buffer: photo },
        { name: "list.txt", mimeType: "text/plain", buffer: Buffer.from("tomatoes, basil, chard\n") },
      ]);
      // A file pasted into the page (as a screenshot tool would put it on the clipboard).
      const pasted = await sharp({ create: { width: 90, height: 60, channels: 3, background: "#aa3355" } })
        .png()
        .toBuffer();
      // Runs in the page: the test's own lib has no DOM types, so the page's globals are reached through globalThis.
      await page.evaluate((b64) => {
        type Page = {
          DataTransfer: new () => { items: { add(f: File): void } };
          ClipboardEvent: new (type: string, init: unknown) => unknown;
          document: { querySelector(s: string): { dispatchEvent(e: unknown): void } | null };
        };
        const w = globalThis as unknown as Page;
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const dt = new w.DataTransfer();
        dt.items.add(new File([bytes], "clip.png", { type: "image/png" }));
        w.document
          .querySelector("#prompt")
          ?.dispatchEvent(new w.ClipboardEvent("paste", { clipboardData: dt, bubbles: true }));
      }, pasted.toString("base64"));

      const tray = await poll(
        () => shown(page, ".attach-tray"),
        (l) => l.length === 3 && l.every((a) => a.decoded !== false),
        { what: "three previews in the tray" },
      );
      expect(tray.map((a) => a.cls)).toEqual(["att att-image", "att att-file", "att att-image"]);
      await shot(page, "attach-composer");

      llm.script([{ text: "A green garden photo, a pink square and your list." }]);
      await page.fill("#prompt", "what do you see?");
      await page.click("#send");
      await page.waitForSelector(".msg.assistant .meta");
      const sent = await poll(
        () => shown(page, ".msg.user"),
        (l) => l.length === 3 && l.every((a) => a.decoded !== false),
        { what: "the bubble's attachments" },
      );
      expect(sent[1]?.text).toContain("list.txt");
      expect(await page.locator(".attach-tray").isHidden()).toBe(true);
      const messages = llm.requests[0]?.body.messages as { role: string; content: unknown }[];
      const user = messages.at(-1) as { content: { type: string; text?: string }[] };
      expect(user.content.filter((p) => p.type === "image_url")).toHaveLength(2);
      expect(user.content[0]?.text).toContain("text not extracted: no plugin provides media.extract");
      expect(user.content[0]?.text).toContain('[attached document "list.txt" (text/plain');
      await shot(page, "attach-sent");

      await page.reload();
      await page.waitForSelector(".msg.assistant");
      const again = await poll(
        () => shown(page, ".msg.user"),
        (l) => l.length === 3 && l.every((a) => a.decoded !== false),
        { what: "the attachments after a reload" },
      );
      expect(again.map((a) => a.cls)).toEqual(["att att-image", "att att-file", "att att-image"]);

      // A voice message: record a second of the fake microphone, stop, send.
      await page.click("#record");
      await page.waitForSelector("#record.recording");
      await Bun.sleep(1200);
      await page.click("#record");
      const voice = await poll(
        () => shown(page, ".attach-tray"),
        (l) => l.length === 1 && l[0]?.audio === true,
        { what: "the recording in the tray" },
      );
      expect(voice[0]?.text).toMatch(/^voice-.*\.(webm|ogg)$/);
      llm.script([{ text: "I heard a beep." }]);
      await page.click("#send");
      await poll(
        () => page.locator(".msg.assistant .meta").count(),
        (n) => n === 2,
        { what: "the second reply" },
      );
      const last = (llm.requests[1]?.body.messages as { role: string; content: unknown }[] | undefined)?.at(-1) as {
        content: string;
      };
      expect(last.content).toMatch(/\[attached audio "voice-.*" \(audio\/(webm|ogg)/);
      await shot(page, "attach-voice");

      // A message of files alone whose turn failed: Retry sends the files again.
      llm.script([{ status: 400 }, { text: "Now I have it." }]);
      await page.setInputFiles("#attach-input", [
        { name: "again.txt", mimeType: "text/plain", buffer: Buffer.from("x\n") },
      ]);
      await poll(
        () => shown(page, ".attach-tray"),
        (l) => l.length === 1 && l[0]?.cls === "att att-file",
        { what: "the file in the tray" },
      );
      await page.click("#send");
      await page.click(".msg-retry");
      await poll(
        () => llm.requests.length,
        (n) => n === 4,
        { what: "the retried request" },
      );
      const retried = (llm.requests[3]?.body.messages as { role: string; content: string }[] | undefined)?.at(-1);
      expect(retried?.content).toContain('[attached document "again.txt"');

      // The memory page finds the messages by their files' names and shows the files with the hit.
      await page.goto(`${url}#/memory/pictures`);
      await page.waitForSelector("#recall-search");
      await page.fill("#recall-search", "garden");
      await page.click("#recall-go");
      await page.waitForSelector("#recall-results .hit .hit-files .att-file");
      expect(await page.locator("#recall-results .hit .hit-blocks img").count()).toBe(2);
      expect(await page.locator("#recall-results .hit .hit-files .att-file").textContent()).toContain("list.txt");
      // Its date reads as the notes the model gets write it (src/shared/time-format.ts).
      expect(await page.locator("#recall-results .hit .when").first().textContent()).toMatch(
        /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
      );
      await page.fill("#recall-search", "voice");
      await page.click("#recall-go");
      await page.waitForSelector("#recall-results .hit .hit-files .att-audio audio");
      await shot(page, "attach-memory");
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);
});
