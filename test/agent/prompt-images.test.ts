/**
 * withImageData fills in the bytes of the newest few images and tells the request's layers when
 * it sent none, so they need not scan ~6,700 messages again. Over random prompts (images on tool
 * and user messages, old bytes left on some, readers that find a block or not), what
 * `sendsImages` answers for the result is what a scan of it finds, and at most the newest
 * `keep` readable images carry bytes.
 */
import { describe, expect, test } from "bun:test";
import { IMAGES_PER_REQUEST, withImageData } from "../../src/agent/prompt-images.ts";
import { sendsImages } from "../../src/llm/image-parts.ts";
import type { ChatImage, ChatMessage } from "../../src/llm/types.ts";
import { mulberry32 } from "../harness/prng.ts";

const scan = (ms: readonly ChatMessage[]) =>
  ms.some((m) => (m.role === "tool" || m.role === "user") && (m.images ?? []).some((i) => i.data !== undefined));

describe("withImageData", () => {
  test("sendsImages of its result is what a scan finds, over random prompts", () => {
    const rand = mulberry32(3);
    for (let round = 0; round < 400; round++) {
      const messages: ChatMessage[] = [{ role: "system", content: "sys" }];
      const n = 1 + Math.floor(rand() * 12);
      for (let i = 0; i < n; i++) {
        const images: ChatImage[] = [];
        if (rand() < 0.3)
          for (let k = Math.floor(rand() * 3); k >= 0; k--)
            images.push({
              sha256: `s${round}-${i}-${k}`,
              mime: "image/png",
              ...(rand() < 0.2 ? { data: "b2xk" } : {}),
            });
        const r = rand();
        if (r < 0.4) messages.push({ role: "user", content: `u${i}`, ...(images.length ? { images } : {}) });
        else if (r < 0.7) messages.push({ role: "assistant", content: `a${i}` });
        else
          messages.push({
            role: "tool",
            toolCallId: `c${i}`,
            name: "t",
            content: `r${i}`,
            ...(images.length ? { images } : {}),
          });
      }
      const found = rand();
      const read =
        rand() < 0.2 ? undefined : (sha: string) => (found > 0.5 && sha.endsWith("0") ? new Uint8Array([1, 2]) : null);
      const keep = rand() < 0.5 ? IMAGES_PER_REQUEST : Math.floor(rand() * 3);
      const out = withImageData(messages, read, keep);
      expect(sendsImages(out)).toBe(scan(out));
      const sent = out.flatMap((m) => (m.role === "tool" || m.role === "user" ? (m.images ?? []) : []));
      expect(sent.filter((i) => i.data !== undefined).length).toBeLessThanOrEqual(keep);
    }
  });
});
