/**
 * Reading a block from the kernel (blocks/get, src/kernel/methods/blocks.ts): its record and its
 * bytes, which arrive as bulk — read in place from the shared-memory arena on `shm` (copied out
 * here, then the reference is released so the arena can reuse the room), base64 in the reply on
 * `stdio`. Built-in plugins only.
 */
import { BlocksGetResult, type BlockRecord } from "../../src/protocol/blocks.ts";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import type { Plugin } from "./index.ts";

/**
 * A block record and (unless `bytes: false` or it has none) a copy of its bytes; `via` says how
 * they came: "arena" (shared memory) or "inline" (base64 in the reply).
 */
export async function getBlock(
  plugin: Pick<Plugin, "call" | "readBulk" | "releaseBulk">,
  id: number,
  opts: { bytes?: boolean } = {},
): Promise<{ block: BlockRecord; bytes: Uint8Array | null; via: "arena" | "inline" | null }> {
  const r = await plugin.call(PluginMethod.BlocksGet, { id, bytes: opts.bytes ?? true }, BlocksGetResult);
  if (!r.data) return { block: r.block, bytes: null, via: null };
  try {
    const via = "off" in r.data ? "arena" : "inline";
    return { block: r.block, bytes: new Uint8Array(plugin.readBulk(r.data)), via };
  } finally {
    plugin.releaseBulk(r.data);
  }
}
