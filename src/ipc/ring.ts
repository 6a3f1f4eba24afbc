/**
 * Single-producer/single-consumer ring of variable-length records in shared memory.
 *
 * Record: u32 payload length, u16 type, u16 flags, payload, zero padding to 8 bytes. head and
 * tail are free-running u32 byte counters (capacity is a power of two, so `pos & (cap-1)` is
 * the index and `head - tail` the bytes in use, wrapping correctly at 2^32). A record that does
 * not fit before the end of the data area is preceded by a PAD record that fills the rest, so a
 * payload is always contiguous and can be read in place.
 *
 * Sleeping: a consumer that found the ring empty sets `sleeping`, checks once more, and only
 * then waits for the doorbell; a producer that published while `sleeping` is set clears it and
 * rings. A producer that found the ring full sets `producerWaiting`; the consumer rings after
 * freeing space. Both sides use sequentially consistent Atomics, so no wake-up is lost.
 */
import { RingCtl } from "./segment-layout.ts";

const PAD = 0xffffffff;
const HDR = 8;

const align8 = (n: number) => (n + 7) & ~7;

/** The other side wrote something no correct producer writes; the ring cannot be trusted. */
export class RingCorruptError extends Error {
  override readonly name = "RingCorruptError";
}

export type RingHandler = (type: number, payload: Uint8Array, flags: number) => void;

abstract class RingSide {
  protected readonly i32: Int32Array;
  protected readonly u32: Uint32Array;
  protected readonly bytes: Uint8Array;
  protected readonly headIdx: number;
  protected readonly tailIdx: number;
  protected readonly sleepIdx: number;
  protected readonly waitIdx: number;
  protected readonly dataWord: number;
  protected readonly mask: number;

  constructor(
    buffer: ArrayBuffer,
    ctl: number,
    protected readonly data: number,
    readonly capacity: number,
  ) {
    if ((capacity & (capacity - 1)) !== 0 || capacity < 64)
      throw new Error(`ring capacity ${capacity} is not a power of two >= 64`);
    this.i32 = new Int32Array(buffer);
    this.u32 = new Uint32Array(buffer);
    this.bytes = new Uint8Array(buffer);
    this.headIdx = (ctl + RingCtl.head) >> 2;
    this.tailIdx = (ctl + RingCtl.tail) >> 2;
    this.sleepIdx = (ctl + RingCtl.sleeping) >> 2;
    this.waitIdx = (ctl + RingCtl.producerWaiting) >> 2;
    this.dataWord = data >> 2;
    this.mask = capacity - 1;
  }

  /** Bytes currently in use. */
  get used(): number {
    return (Atomics.load(this.i32, this.headIdx) - Atomics.load(this.i32, this.tailIdx)) >>> 0;
  }
}

export class RingProducer extends RingSide {
  /** Largest payload a record may carry: half the ring, so it always fits an empty ring. */
  get maxPayload(): number {
    return this.capacity / 2 - HDR;
  }

  /**
   * Append one record, copying `payload`. Returns false when the ring is full; the caller decides
   * whether to wait or give up. Nothing is allocated: this runs for every event.
   */
  tryWrite(type: number, payload: Uint8Array, flags = 0): boolean {
    const len = payload.length;
    if (len > this.maxPayload)
      throw new RangeError(`record of ${len} bytes exceeds the ring's limit of ${this.maxPayload}`);
    const head = Atomics.load(this.i32, this.headIdx) >>> 0;
    const tail = Atomics.load(this.i32, this.tailIdx) >>> 0;
    const free = this.capacity - ((head - tail) >>> 0);
    const idx = head & this.mask;
    const need = HDR + align8(len);
    const contiguous = this.capacity - idx;
    let at = idx;
    let advance = need;
    if (need > contiguous) {
      if (contiguous + need > free) return false;
      this.u32[this.dataWord + (idx >> 2)] = PAD;
      at = 0;
      advance = contiguous + need;
    } else if (need > free) {
      return false;
    }
    const w = this.dataWord + (at >> 2);
    this.u32[w] = len;
    this.u32[w + 1] = (type & 0xffff) | ((flags & 0xffff) << 16);
    this.bytes.set(payload, this.data + at + HDR);
    Atomics.store(this.i32, this.headIdx, (head + advance) | 0);
    return true;
  }

  /** After publishing: true if the consumer was asleep and must be woken (flag is cleared). */
  consumerNeedsBell(): boolean {
    if (Atomics.load(this.i32, this.sleepIdx) === 0) return false;
    return Atomics.compareExchange(this.i32, this.sleepIdx, 1, 0) === 1;
  }

  /**
   * Announce that we wait for space. Returns false if space appeared meanwhile (flag cleared
   * again), true if it is safe to wait for the consumer's bell.
   */
  prepareWait(need: number): boolean {
    Atomics.store(this.i32, this.waitIdx, 1);
    const free = this.capacity - this.used;
    if (free >= 2 * (HDR + align8(need))) {
      Atomics.store(this.i32, this.waitIdx, 0);
      return false;
    }
    return true;
  }
}

export class RingConsumer extends RingSide {
  /**
   * Hand every available record (at most `max`) to `handler`, then free their space. The payload
   * is a view into shared memory: valid only during the call. Returns how many were consumed.
   */
  drain(handler: RingHandler, max = 4096): number {
    let tail = Atomics.load(this.i32, this.tailIdx) >>> 0;
    const head = Atomics.load(this.i32, this.headIdx) >>> 0;
    if ((head - tail) >>> 0 > this.capacity)
      throw new RingCorruptError(`ring head ${head} is more than a capacity ahead of tail ${tail}`);
    let n = 0;
    try {
      while (tail !== head && n < max) {
        const idx = tail & this.mask;
        const w = this.dataWord + (idx >> 2);
        const len = this.u32[w] as number;
        if (len === PAD) {
          if ((head - tail) >>> 0 < this.capacity - idx)
            throw new RingCorruptError(`ring pad at ${idx} overruns the ring`);
          tail = (tail + (this.capacity - idx)) >>> 0;
          continue;
        }
        if (
          len > this.capacity / 2 - HDR ||
          idx + HDR + align8(len) > this.capacity ||
          (head - tail) >>> 0 < HDR + align8(len)
        ) {
          throw new RingCorruptError(`ring record of ${len} bytes at ${idx} overruns the ring`);
        }
        const meta = this.u32[w + 1] as number;
        const start = this.data + idx + HDR;
        tail = (tail + HDR + align8(len)) >>> 0;
        n++;
        handler(meta & 0xffff, this.bytes.subarray(start, start + len), meta >>> 16);
      }
    } finally {
      Atomics.store(this.i32, this.tailIdx, tail | 0);
    }
    return n;
  }

  get empty(): boolean {
    return Atomics.load(this.i32, this.headIdx) === Atomics.load(this.i32, this.tailIdx);
  }

  /**
   * About to wait for the doorbell: set `sleeping`, then check again. Returns true if it is safe
   * to sleep; false if data arrived in between (and `sleeping` was cleared).
   */
  prepareSleep(): boolean {
    Atomics.store(this.i32, this.sleepIdx, 1);
    if (!this.empty) {
      Atomics.store(this.i32, this.sleepIdx, 0);
      return false;
    }
    return true;
  }

  /** After freeing space: true if the producer waits for it and must be woken (flag cleared). */
  producerNeedsBell(): boolean {
    if (Atomics.load(this.i32, this.waitIdx) === 0) return false;
    return Atomics.compareExchange(this.i32, this.waitIdx, 1, 0) === 1;
  }
}
