/**
 * Layout of a plugin's shared-memory segment (layout version 1). The kernel creates the
 * segment and writes this header; the plugin validates it before trusting any offset.
 *
 *   0      header: magic, version, sizes and offsets (u32 words)
 *   256    control block of the kernel→plugin ring  (3 cache lines)
 *   512    control block of the plugin→kernel ring  (3 cache lines)
 *   768    control word: kernel arena waiting for releases
 *   832    control word: plugin arena waiting for releases
 *   4096   ring data k2p, then ring data p2k (power-of-two capacities)
 *   …      bulk arena k2p (kernel allocates, plugin releases), then arena p2k
 *
 * A ring's control block keeps head (written by the producer), tail (written by the consumer)
 * and the consumer's sleeping flag on separate 64-byte cache lines so the two processes do not
 * false-share a line on every message.
 */
import { HomedError } from "../protocol/errors.ts";
import { BLOCK_HDR } from "./bulk-arena.ts";

export const SEGMENT_MAGIC = 0x484d5347; // "HMSG"
export const SEGMENT_LAYOUT_VERSION = 1;
export const HEADER_BYTES = 4096;
export const CACHE_LINE = 64;

/** Byte offsets of the control words; all 4-byte aligned for Atomics on an Int32Array. */
export const Ctl = {
  magic: 0,
  version: 4,
  size: 8,
  ringK2P: 16, // offset, capacity
  ringP2K: 24,
  arenaK2P: 32, // offset, size
  arenaP2K: 40,
  ringCtlK2P: 256,
  ringCtlP2K: 512,
  arenaWaitK2P: 768,
  arenaWaitP2K: 832,
} as const;

/** Within a ring control block. */
export const RingCtl = {
  head: 0,
  tail: CACHE_LINE,
  sleeping: 2 * CACHE_LINE,
  producerWaiting: 2 * CACHE_LINE + 4,
} as const;

export interface SegmentLayout {
  size: number;
  ringK2P: { ctl: number; data: number; capacity: number };
  ringP2K: { ctl: number; data: number; capacity: number };
  arenaK2P: { wait: number; base: number; size: number };
  arenaP2K: { wait: number; base: number; size: number };
}

export const MIN_SEGMENT_BYTES = 1 << 20;
export const MAX_SEGMENT_BYTES = 1 << 30;

function ringCapacityFor(size: number): number {
  // 1/32 of the segment per ring, a power of two between 64 KiB and 4 MiB.
  let cap = 1 << 16;
  while (cap * 2 <= Math.min(size / 32, 4 << 20)) cap *= 2;
  return cap;
}

/** Compute the layout of a segment of `size` bytes. */
export function planLayout(size: number): SegmentLayout {
  if (!Number.isSafeInteger(size) || size < MIN_SEGMENT_BYTES || size > MAX_SEGMENT_BYTES) {
    throw new HomedError(
      "native",
      `segment size must be between ${MIN_SEGMENT_BYTES} and ${MAX_SEGMENT_BYTES} bytes, got ${size}`,
    );
  }
  const cap = ringCapacityFor(size);
  const ringK2P = HEADER_BYTES;
  const ringP2K = ringK2P + cap;
  const arenas = ringP2K + cap;
  const half = Math.floor((size - arenas) / 2 / 8) * 8;
  return {
    size,
    ringK2P: { ctl: Ctl.ringCtlK2P, data: ringK2P, capacity: cap },
    ringP2K: { ctl: Ctl.ringCtlP2K, data: ringP2K, capacity: cap },
    arenaK2P: { wait: Ctl.arenaWaitK2P, base: arenas, size: half },
    arenaP2K: { wait: Ctl.arenaWaitP2K, base: arenas + half, size: half },
  };
}

/**
 * The segment size to create for a plugin: `configured` bytes, or more when its arenas would
 * not each hold one payload of `largestPayload` bytes (plus its block header) — a block of the
 * largest size the kernel accepts must fit in one piece, whatever plugins.segment_mb says.
 * Grows in whole MiB, so the answer stays a round figure.
 */
export function segmentBytesFor(configured: number, largestPayload: number): number {
  const MIB = 1 << 20;
  let size = Math.max(MIN_SEGMENT_BYTES, Math.ceil(configured / MIB) * MIB);
  const need = BLOCK_HDR + Math.ceil(largestPayload / 8) * 8;
  while (planLayout(size).arenaK2P.size < need) {
    if (size + MIB > MAX_SEGMENT_BYTES)
      throw new HomedError(
        "native",
        `no segment up to ${MAX_SEGMENT_BYTES} bytes holds a ${largestPayload}-byte payload`,
      );
    size += MIB;
  }
  return size;
}

/** Write the header of a fresh segment (kernel side). */
export function writeLayout(buffer: ArrayBuffer, layout: SegmentLayout): void {
  const u32 = new Uint32Array(buffer, 0, HEADER_BYTES / 4);
  u32.fill(0);
  u32[Ctl.magic / 4] = SEGMENT_MAGIC;
  u32[Ctl.version / 4] = SEGMENT_LAYOUT_VERSION;
  u32[Ctl.size / 4] = layout.size;
  u32[Ctl.ringK2P / 4] = layout.ringK2P.data;
  u32[Ctl.ringK2P / 4 + 1] = layout.ringK2P.capacity;
  u32[Ctl.ringP2K / 4] = layout.ringP2K.data;
  u32[Ctl.ringP2K / 4 + 1] = layout.ringP2K.capacity;
  u32[Ctl.arenaK2P / 4] = layout.arenaK2P.base;
  u32[Ctl.arenaK2P / 4 + 1] = layout.arenaK2P.size;
  u32[Ctl.arenaP2K / 4] = layout.arenaP2K.base;
  u32[Ctl.arenaP2K / 4 + 1] = layout.arenaP2K.size;
}

/**
 * Read and check the header of a segment received from the kernel (plugin side). Throws on a
 * bad magic or version, or offsets that do not describe the same layout the kernel would plan.
 */
export function readLayout(buffer: ArrayBuffer): SegmentLayout {
  if (buffer.byteLength < HEADER_BYTES) throw new HomedError("native", "segment smaller than its header");
  const u32 = new Uint32Array(buffer, 0, HEADER_BYTES / 4);
  if (u32[Ctl.magic / 4] !== SEGMENT_MAGIC) throw new HomedError("native", "segment has no homed header (bad magic)");
  if (u32[Ctl.version / 4] !== SEGMENT_LAYOUT_VERSION)
    throw new HomedError("native", `segment layout ${u32[Ctl.version / 4]} is not ${SEGMENT_LAYOUT_VERSION}`);
  const size = u32[Ctl.size / 4] as number;
  if (size !== buffer.byteLength)
    throw new HomedError("native", `segment header says ${size} bytes, mapping has ${buffer.byteLength}`);
  const expected = planLayout(size);
  const got = [u32[4], u32[5], u32[6], u32[7], u32[8], u32[9], u32[10], u32[11]];
  const want = [
    expected.ringK2P.data,
    expected.ringK2P.capacity,
    expected.ringP2K.data,
    expected.ringP2K.capacity,
    expected.arenaK2P.base,
    expected.arenaK2P.size,
    expected.arenaP2K.base,
    expected.arenaP2K.size,
  ];
  if (got.some((x, i) => x !== want[i])) throw new HomedError("native", "segment header offsets are inconsistent");
  return expected;
}
