/**
 * Bulk data in a shared segment: each direction has its own arena, allocated only by the
 * sender and released only by the receiver.
 *
 * A block is an 8-byte header (u32 state, u32 length) then the payload, 8-byte aligned. The
 * sender places blocks in a circle and keeps their order in process-local memory; the receiver
 * releases a block by one atomic store to its state word — no message back. The sender reclaims
 * released blocks from the oldest end; when every block is free it starts again at offset 0, so
 * a lightly used arena touches (and keeps resident) only its first pages.
 *
 * A `BulkRef` is `{off, len}`: the payload's byte offset in the segment and its length —
 * offsets, never pointers, so each process maps the segment wherever it likes.
 */
import { HomedError } from "../protocol/errors.ts";

export const BLOCK_HDR = 8;
const STATE_IN_USE = 0x55534544; // "USED"
const STATE_RELEASED = 0x46524545; // "FREE"

const align8 = (n: number) => (n + 7) & ~7;

export interface BulkRef {
  off: number;
  len: number;
}

interface Block {
  at: number; // offset of the header within the arena
  size: number; // header + aligned payload
}

/** What both sides of an arena see: the mapping, the arena's extent, its waiting word. */
abstract class ArenaSide {
  protected readonly i32: Int32Array;
  protected readonly bytes: Uint8Array;
  protected readonly waitIdx: number;

  constructor(
    buffer: ArrayBuffer,
    readonly base: number,
    readonly size: number,
    waitWordOffset: number,
  ) {
    this.i32 = new Int32Array(buffer);
    this.bytes = new Uint8Array(buffer);
    this.waitIdx = waitWordOffset >> 2;
  }
}

/** The sender's side of one arena. */
export class BulkWriter extends ArenaSide {
  private readonly blocks: Block[] = [];
  private first = 0; // index of the oldest live block in `blocks`

  /** Largest payload this arena can ever hold. */
  get maxPayload(): number {
    return this.size - BLOCK_HDR;
  }

  /** Blocks handed out and not yet released by the receiver. */
  get liveBlocks(): number {
    this.reclaim();
    return this.blocks.length - this.first;
  }

  /**
   * Reserve `len` bytes. Returns the reference and a writable view of exactly those bytes, or
   * null when the arena has no room right now. Throws if `len` can never fit.
   */
  tryAlloc(len: number): { ref: BulkRef; bytes: Uint8Array } | null {
    if (!Number.isSafeInteger(len) || len < 0)
      throw new HomedError("invalid_params", `bulk length must be a non-negative integer, got ${len}`);
    if (len > this.maxPayload) {
      throw new HomedError(
        "invalid_params",
        `payload of ${len} bytes exceeds the bulk arena (${this.maxPayload} bytes); raise plugins.segment_mb`,
      );
    }
    this.reclaim();
    const need = BLOCK_HDR + align8(len);
    const at = this.place(need);
    if (at === null) return null;
    this.blocks.push({ at, size: need });
    const hdr = (this.base + at) >> 2;
    this.i32[hdr + 1] = len;
    Atomics.store(this.i32, hdr, STATE_IN_USE);
    const off = this.base + at + BLOCK_HDR;
    return { ref: { off, len }, bytes: this.bytes.subarray(off, off + len) };
  }

  /** Where a block of `need` bytes fits, or null. */
  private place(need: number): number | null {
    const live = this.blocks.length - this.first;
    if (live === 0) {
      this.blocks.length = 0;
      this.first = 0;
      return need <= this.size ? 0 : null;
    }
    const oldest = (this.blocks[this.first] as Block).at;
    const last = this.blocks[this.blocks.length - 1] as Block;
    const end = last.at + last.size;
    if (last.at >= oldest) {
      // Not wrapped: room after the newest block, else at the start before the oldest.
      if (end + need <= this.size) return end;
      if (need <= oldest) return 0;
      return null;
    }
    // Wrapped: the only room is between the newest block and the oldest.
    return end + need <= oldest ? end : null;
  }

  /** Drop released blocks from the oldest end. */
  private reclaim(): void {
    while (this.first < this.blocks.length) {
      const b = this.blocks[this.first] as Block;
      if (Atomics.load(this.i32, (this.base + b.at) >> 2) !== STATE_RELEASED) break;
      this.first++;
    }
    if (this.first > 1024 && this.first * 2 > this.blocks.length) {
      this.blocks.splice(0, this.first);
      this.first = 0;
    }
  }

  /**
   * About to wait for a release: set the waiting flag, then try once more. Returns the
   * allocation if it succeeded meanwhile; null if it is safe to wait for the receiver's bell.
   */
  prepareWait(len: number): { ref: BulkRef; bytes: Uint8Array } | null {
    Atomics.store(this.i32, this.waitIdx, 1);
    const got = this.tryAlloc(len);
    if (got) Atomics.store(this.i32, this.waitIdx, 0);
    return got;
  }
}

/** The receiver's side of one arena: validate references, read in place, release. */
export class BulkReader extends ArenaSide {
  /**
   * Check that `ref` names a live block of this arena (the other side may be buggy or hostile)
   * and return a view of its payload — valid until `release`.
   */
  read(ref: BulkRef): Uint8Array {
    const { off, len } = ref;
    const hdrOff = off - BLOCK_HDR;
    if (
      !Number.isSafeInteger(off) ||
      !Number.isSafeInteger(len) ||
      len < 0 ||
      hdrOff < this.base ||
      (hdrOff & 7) !== 0 ||
      off + len > this.base + this.size
    ) {
      throw new HomedError("invalid_params", `bulk reference {off:${off},len:${len}} is outside the sender's arena`);
    }
    const hdr = hdrOff >> 2;
    if (Atomics.load(this.i32, hdr) !== STATE_IN_USE || this.i32[hdr + 1] !== len) {
      throw new HomedError("invalid_params", `bulk reference {off:${off},len:${len}} does not name a live block`);
    }
    return this.bytes.subarray(off, off + len);
  }

  /** Give the block back to the sender. Returns true if the sender waits and must be woken. */
  release(ref: BulkRef): boolean {
    this.read(ref);
    Atomics.store(this.i32, (ref.off - BLOCK_HDR) >> 2, STATE_RELEASED);
    if (Atomics.load(this.i32, this.waitIdx) === 0) return false;
    return Atomics.compareExchange(this.i32, this.waitIdx, 1, 0) === 1;
  }
}
