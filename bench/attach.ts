/**
 * Attachment figures (issue 16):
 *   media.image_ingest_ms — one phone-sized photo (4032×3024 JPEG, EXIF orientation 6, ~MBs
 *     of detail) through the web plugin's upload path of the real daemon (dist/homed): POST
 *     /api/uploads → sniffed, decoded by sharp within the pixel limit, turned upright, shrunk
 *     to 2048 px, re-encoded without metadata → blocks/put over the shm arena → a stored block.
 *     The median of ROUNDS uploads, each a different photo (so every one is stored anew), after
 *     one warm-up; the photo's size and the stored block's are printed beside it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { startDaemon, webUrlOf } from "../test/harness/daemon.ts";
import { median, report } from "./report.ts";

const ROUNDS = 7;
const W = 4032;
const H = 3024;

/** A 12 MP photo-like JPEG: smooth light with fine grain (which is what makes real photos large). */
async function phonePhoto(seed: number): Promise<Uint8Array> {
  const raw = Buffer.alloc(W * H * 3);
  let x = seed * 2654435761;
  for (let i = 0; i < raw.length; i += 3) {
    x = (x * 1103515245 + 12345) >>> 0;
    const p = i / 3;
    const grain = (x >>> 24) & 31;
    raw[i] = (((p % W) * 200) / W + grain) & 255;
    raw[i + 1] = ((Math.floor(p / W) * 180) / H + grain) & 255;
    raw[i + 2] = (90 + grain + seed) & 255;
  }
  return new Uint8Array(
    await sharp(raw, { raw: { width: W, height: H, channels: 3 } })
      .withMetadata({ orientation: 6 })
      .jpeg({ quality: 88 })
      .toBuffer(),
  );
}

export async function benchAttach(): Promise<void> {
  const data = mkdtempSync(join(tmpdir(), "homed-bench-attach-"));
  try {
    await using d = await startDaemon(data);
    const web = await webUrlOf(d);
    const times: number[] = [];
    let sizes = "";
    for (let i = 0; i <= ROUNDS; i++) {
      const photo = await phonePhoto(i + 1);
      const t0 = performance.now();
      const res = await fetch(`${web}api/uploads?name=IMG_${i}.jpg`, {
        method: "POST",
        headers: { "x-homed": "1" },
        body: photo,
      });
      const body = (await res.json()) as { bytes?: number; width?: number; height?: number; error?: string };
      const ms = performance.now() - t0;
      if (!res.ok || body.width !== 1536 || body.height !== 2048)
        throw new Error(`upload ${i}: ${res.status} ${JSON.stringify(body)}`);
      if (i > 0) times.push(ms); // the first round warms sharp up
      sizes = `${(photo.length / 1024 / 1024).toFixed(1)} MiB photo → ${((body.bytes ?? 0) / 1024).toFixed(0)} KiB block, ${body.width}×${body.height}`;
    }
    report("media.image_ingest_ms", median(times), "ms");
    console.error(`media.image_ingest: ${sizes}; ${ROUNDS} rounds, min ${Math.min(...times).toFixed(1)} ms`);
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}
