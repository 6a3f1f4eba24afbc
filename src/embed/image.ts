/**
 * Images for an image encoder: decoded, resized (cover, centre) and normalised by sharp into a
 * [1, 3, size, size] float tensor, channels first, as CLIP-style models take them. sharp and
 * its embedded libvips load only when an image is actually processed (src/ipc/sharp-module.ts).
 */
import { sharpModule } from "../ipc/sharp-module.ts";
import { HomedError } from "../protocol/errors.ts";

export { sharpModule };

export interface ImagePreprocess {
  size: number;
  mean: readonly [number, number, number];
  std: readonly [number, number, number];
}

/**
 * The most pixels an image may have to be embedded: memory embeds every stored picture in the
 * background, and a small file can claim huge dimensions (a decompression bomb); 40 MP is more
 * than a phone's photo and bounds the decode at ~120 MB.
 */
export const MAX_IMAGE_PIXELS = 40_000_000;

/** Pixel values of `bytes` (any format sharp reads) as the model's input tensor data. */
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
