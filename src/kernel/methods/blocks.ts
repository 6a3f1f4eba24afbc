/**
 * Blocks between the kernel and built-in plugins:
 *   blocks/put — a channel plugin hands the kernel the bytes of an image a person sent (a QQ
 *     message's picture; with `as: "attachment"`, a file uploaded to the web UI: image, audio,
 *     video or document) and gets back the block it is stored as, `DATA/blocks/<sha256[0:2]>/<sha256>`
 *     (src/store/blocks.ts). Images only (or what an attachment may be), typed by their own bytes. The plugin never writes the
 *     data dir itself.
 *   blocks/get {id, bytes?} — a block record (src/protocol/blocks.ts: kind, sha256, type, size,
 *     text, and its holder, the layer its event is in) with its bytes as bulk: in the plugin's
 *     shared-memory arena on `shm` (the plugin reads them in place and releases the reference),
 *     base64 in the reply on `stdio` up to the inline limit — above it a clear invalid_params
 *     error saying so. Never base64 on `shm`.
 * Built-in plugins only: a third-party plugin has no business filling the disk, nor reading the
 * person's pictures.
 */
import { BlocksPutParams, PluginMethod } from "../../protocol/plugin.ts";
import { BlocksGetParams, type BlocksGetResult } from "../../protocol/blocks.ts";
import { HomedError } from "../../protocol/errors.ts";
import { sniffImageMime, type StoredImage } from "../../protocol/images.ts";
import { sniffAttachmentMime } from "../../protocol/attachments.ts";
import { parseParams } from "../../protocol/parse-params.ts";
import type { KernelServices, PluginServices } from "../kernel-services.ts";

/** The largest block stored or read in one piece; every plugin's segment is sized so it fits (kernel.ts). */
export const MAX_BLOCK_BYTES = 16 * 1024 * 1024;

/** What the block methods use of the kernel (the IPC bench serves them with just this). */
export type BlockMethodDeps = Pick<KernelServices, "blocks"> & { plugins: Pick<PluginServices, "isBuiltin"> };

export function blockMethods(k: BlockMethodDeps): Record<string, (params: unknown, plugin: string) => unknown> {
  const builtinOnly = (plugin: string, what: string) => {
    if (!k.plugins.isBuiltin(plugin))
      throw new HomedError("forbidden", `${what} is reserved to built-in plugins; ${plugin} is not one`);
  };
  return {
    [PluginMethod.BlocksPut]: (params, plugin): StoredImage | { sha256: string; mime: string; bytes: number } => {
      const p = parseParams(BlocksPutParams, params);
      if (!k.plugins.isBuiltin(plugin)) {
        k.blocks.release(plugin, p.data);
        builtinOnly(plugin, "storing blocks");
      }
      const bytes = k.blocks.take(plugin, p.data);
      if (bytes.length > MAX_BLOCK_BYTES)
        throw new HomedError(
          "invalid_params",
          `a block is at most ${MAX_BLOCK_BYTES} bytes; this one is ${bytes.length}`,
        );
      if (p.as === "attachment") {
        const mime = sniffAttachmentMime(bytes);
        if (!mime) throw new HomedError("invalid_params", "the bytes are no image, audio, video or document we take");
        return { sha256: k.blocks.put(bytes), mime, bytes: bytes.length };
      }
      const mime = sniffImageMime(bytes);
      if (!mime) throw new HomedError("invalid_params", "the bytes are not a PNG, JPEG, WebP or GIF image");
      return { sha256: k.blocks.put(bytes), mime, bytes: bytes.length };
    },
    [PluginMethod.BlocksGet]: async (params, plugin): Promise<BlocksGetResult> => {
      const p = parseParams(BlocksGetParams, params);
      builtinOnly(plugin, "reading blocks");
      const block = k.blocks.record(p.id);
      if (!block)
        throw new HomedError("not_found", `no block ${p.id} (or it was forgotten with its conversation)`, { id: p.id });
      if (!p.bytes || block.sha256 === null) return { block };
      const bytes = k.blocks.read(block.sha256);
      if (!bytes)
        throw new HomedError("not_found", `the bytes of block ${p.id} (${block.sha256}) are not in DATA/blocks`);
      return { block, data: await k.blocks.send(plugin, bytes) };
    },
  };
}
