/**
 * Image block vectors (issue 15), with the tiny generated CLIP-style pair (test/harness/tiny-onnx.ts):
 *   image_vectors.per_image_ms — one 1024×768 JPEG photo-like image (noise) per event, appended
 *     to a real Store with a Memory whose DenseIndex embeds in the background: wall time until
 *     the queue is idle, per image, text vectors of the same events included.
 *   image_vectors.text_model_per_event_ms — the same events with the same tiny text model but no
 *     image encoder: what they cost without image vectors (the baseline). The tiny model's
 *     inference is next to nothing, so this is the block read + sharp decode/resize + queue
 *     cost homed itself adds — NOT what a real CLIP encoder (ViT-B/32: far more) costs.
 *   image_vectors.preprocess_224_ms — the median of decoding and resizing one such image to the
 *     224×224 tensor a real CLIP takes (src/embed/image.ts imageTensor), for scale.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeTinyClip, writeTinyModel } from "../test/harness/tiny-onnx.ts";
import { OnnxEmbedder } from "../src/embed/onnx.ts";
import { imageTensor, sharpModule } from "../src/embed/image.ts";
import { Tokenizer } from "../src/embed/tokenizer.ts";
import { DenseIndex } from "../src/memory/dense-index.ts";
import { Memory } from "../src/memory/memory.ts";
import { BlockStore } from "../src/store/blocks.ts";
import { Store } from "../src/store/store.ts";
import { median, report } from "./report.ts";

const IMAGES = 40;

async function photo(): Promise<Uint8Array> {
  const noise = { type: "gaussian" as const, mean: 128, sigma: 40 };
  return new Uint8Array(
    await sharpModule()({ create: { width: 1024, height: 768, channels: 3, background: "#000", noise } })
      .jpeg({ quality: 85 })
      .toBuffer(),
  );
}

/** Wall time per event of appending `images` (one an event) and embedding them in the background. */
async function perEvent(dir: string, model: string, images: Uint8Array[]): Promise<{ ms: number; made: number }> {
  const store = Store.open(join(dir, `${model}.db`));
  try {
    const blocks = new BlockStore(dir);
    const memory = new Memory(store, new Tokenizer());
    const log = { warn: (m: string) => console.error(m), info: () => {} };
    const dense = new DenseIndex(store, await OnnxEmbedder.load(join(dir, model)), log, blocks);
    memory.dense = dense;
    const t0 = performance.now();
    for (const [i, bytes] of images.entries()) {
      const body = {
        turn: "t",
        callId: `c${i}`,
        name: "camera",
        status: "ok",
        content: `photo ${i}`,
        images: [{ sha256: blocks.put(bytes), mime: "image/jpeg" as const, bytes: bytes.length }],
      };
      const { id } = store.append({ conv: "c", kind: "tool-result", actor: "tool", body });
      memory.add(id);
    }
    await dense.idle();
    return { ms: (performance.now() - t0) / images.length, made: dense.imagesMade };
  } finally {
    store.close();
  }
}

export async function benchImageVectors(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "homed-bench-image-vectors-"));
  try {
    writeTinyClip(join(dir, "clip"));
    writeTinyModel(join(dir, "text"), "tiny@1");
    const images: Uint8Array[] = [];
    for (let i = 0; i < IMAGES; i++) images.push(await photo());
    const text = await perEvent(dir, "text", images);
    const clip = await perEvent(dir, "clip", images);
    if (clip.made !== IMAGES || text.made !== 0) throw new Error(`image vectors made: ${clip.made}, ${text.made}`);
    report("image_vectors.text_model_per_event_ms", text.ms, "ms", 2);
    report("image_vectors.per_image_ms", clip.ms, "ms", 2);
    const pre: number[] = [];
    const p224 = { size: 224, mean: [0.48, 0.46, 0.41], std: [0.27, 0.26, 0.28] } as const;
    for (const bytes of images.slice(0, 15)) {
      const t = performance.now();
      await imageTensor(bytes, p224);
      pre.push(performance.now() - t);
    }
    report("image_vectors.preprocess_224_ms", median(pre), "ms", 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
