/**
 * Images for an image encoder: decoded, resized (cover, centre) and normalised by sharp into a
 * [1, 3, size, size] float tensor, channels first, as CLIP-style models take them. sharp and
 * its embedded libvips load only when an image is actually processed (src/ipc/sharp-module.ts).
 */
import { sharpModule } from "../ipc/sharp-module.ts";
import { MAX_IMAGE_PIXELS } from "../protocol/attachments.ts";
import { HomedError } from "../protocol/errors.ts";

export { sharpModule };

export interface ImagePreprocess {
  size: number;
  mean: readonly [number, number, number];
  std: readonly [number, number, number];
}

/**
 * Pixel values of `bytes` (any format sharp reads) as the model's input tensor data. Memory
 * embeds every stored picture in the background, and a small file can claim huge dimensions (a
 * decompression bomb): what an upload may decode to (MAX_IMAGE_PIXELS, 60 MP) is the limit.
 */
export async function imageTensor(bytes: Uint8Array, p: ImagePreprocess): Promise<Float32Array> {
  let raw: Buffer;
  try {
    raw = await sharpModule()(bytes, { limitInputPixels: MAX_IMAGE_PIXELS })
      .rotate()
      .resize(p.size, p.size, { fit: "cover", position: "centre" })
      .removeAlpha()
      .toColourspace("srgb")
      .raw()
      .toBuffer();
  } catch (err) {
    throw new HomedError(
      "invalid_params",
      `not an image sharp can read: ${(err as Error).message}`,
      {},
      { cause: err },
    );
  }
  const plane = p.size * p.size;
  const out = new Float32Array(3 * plane);
  for (let i = 0; i < plane; i++) {
    for (let c = 0; c < 3; c++)
      out[c * plane + i] = ((raw[i * 3 + c] as number) / 255 - (p.mean[c] as number)) / (p.std[c] as number);
  }
  return out;
}
