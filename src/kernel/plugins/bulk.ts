/**
 * Bulk bytes a plugin handed the kernel (a tool's screenshot, an image a channel received), as
 * the kernel takes them: copied out of the plugin's arena and the reference released at once —
 * an unreleased block would hold the arena, which is reclaimed oldest-first. And bytes the
 * kernel hands a plugin (blocks/get): into its arena on `shm`, base64 in the frame on `stdio`
 * up to the inline limit (a clear error above it).
 */
import type { PluginLink } from "../../ipc/plugin-link.ts";
import type { BlockRecords } from "../../store/block-records.ts";
import type { BlockStore } from "../../store/blocks.ts";
import type { KernelServices } from "../kernel-services.ts";
import type { BulkRefFrame } from "../../protocol/plugin.ts";
import { HomedError } from "../../protocol/errors.ts";

export interface PluginBulk {
  /** The bytes, copied (the shared-memory view dies with the release); throws if the plugin is gone. */
  take(plugin: string, ref: unknown): Uint8Array;
  /** Release a reference nobody will read. */
  release(plugin: string, ref: unknown): void;
  /** Hand `bytes` to `plugin`; the reference goes in the reply frame, the plugin releases it. */
  send(plugin: string, bytes: Uint8Array): Promise<BulkRefFrame>;
}

export function pluginBulk(
  link: (plugin: string) => Pick<PluginLink, "readBulk" | "releaseBulk" | "sendBulk"> | undefined,
): PluginBulk {
  return {
    take(plugin, ref) {
      const l = link(plugin);
      if (!l) throw new Error(`${plugin} is not running`);
      try {
        return new Uint8Array(l.readBulk(ref));
      } finally {
        l.releaseBulk(ref);
      }
    },
    release: (plugin, ref) => link(plugin)?.releaseBulk(ref),
    send(plugin, bytes) {
      const l = link(plugin);
      if (!l) throw new HomedError("unavailable", `${plugin} is not running`);
      return l.sendBulk(bytes);
    },
  };
}

/** The kernel's blocks as its method tables see them: bulk in and out, bytes, and records. */
export function kernelBlocks(
  bulk: PluginBulk,
  bytes: BlockStore,
  records: Pick<BlockRecords, "get" | "forgotten">,
): KernelServices["blocks"] {
  return {
    ...bulk,
    put: (b) => bytes.put(b),
    read: (sha) => bytes.read(sha),
    path: (sha) => bytes.path(sha),
    // A forgotten conversation's blocks are not handed out, as its events are not found.
    record: (id) => {
      const b = records.get(id);
      return b && !records.forgotten(b) ? b : null;
    },
  };
}
