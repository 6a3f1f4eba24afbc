/**
 * blocks/put: a channel plugin hands the kernel the bytes of an image a person sent (a QQ
 * message's picture) and gets back the block it is stored as, `DATA/blocks/<sha256[0:2]>/<sha256>`
 * (src/store/blocks.ts). The plugin never writes the data dir itself. Images only, typed by their
 * own bytes, and built-in plugins only: a third-party plugin has no business filling the disk.
 */
import { BlocksPutParams, PluginMethod } from "../protocol/plugin.ts";
import { HomedError } from "../protocol/errors.ts";
import { sniffImageMime, type StoredImage } from "../protocol/images.ts";
import { parseParams } from "../protocol/parse-params.ts";
import type { KernelServices } from "./kernel-services.ts";

/** One image received on a channel; a larger one is refused (the plugin's arena is ~half of 32 MiB). */
export const MAX_BLOCK_BYTES = 16 * 1024 * 1024;

export function blockMethods(k: KernelServices): Record<string, (params: unknown, plugin: string) => unknown> {
  return {
    [PluginMethod.BlocksPut]: (params, plugin): StoredImage => {
      const p = parseParams(BlocksPutParams, params);
      if (!k.plugins.isBuiltin(plugin)) {
        k.blocks.release(plugin, p.data);
        throw new HomedError("forbidden", `storing blocks is reserved to built-in plugins; ${plugin} is not one`);
      }
      const bytes = k.blocks.take(plugin, p.data);
      if (bytes.length > MAX_BLOCK_BYTES)
        throw new HomedError(
          "invalid_params",
          `a block is at most ${MAX_BLOCK_BYTES} bytes; this one is ${bytes.length}`,
        );
      const mime = sniffImageMime(bytes);
      if (!mime) throw new HomedError("invalid_params", "the bytes are not a PNG, JPEG, WebP or GIF image");
      return { sha256: k.blocks.put(bytes), mime, bytes: bytes.length };
    },
  };
}
