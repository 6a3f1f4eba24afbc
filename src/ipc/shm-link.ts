/**
 * One side of a kernel↔plugin shared-memory link: the notify rings and the bulk arenas of one
 * segment, plus the doorbell. The kernel and the plugin SDK both use this class, each with
 * its own role, so the two ends cannot drift apart.
 *
 * Events: `emit` copies one record into the outbound ring and rings only if the reader sleeps.
 * Inbound records are handed to the event handler as views into shared memory, valid only
 * during the call. Bulk: `writeBulk` copies bytes into our arena and returns `{off,len}` for a
 * frame to carry; the receiver reads in place and releases. A full ring or arena makes the
 * sender wait for the other side's bell, up to a timeout, then fail with a clear error.
 */
import { HomedError } from "../protocol/errors.ts";
import { BulkReader, BulkWriter, type BulkRef } from "./bulk-arena.ts";
import { Doorbell } from "./doorbell.ts";
import { RingConsumer, RingProducer, type RingHandler } from "./ring.ts";
import type { SegmentLayout } from "./segment-layout.ts";

const MAX_BATCHES = 8;
/** What `emit` returns when the event went straight in: no promise made per event. */
const SENT: Promise<void> = Promise.resolve();

export type LinkRole = "kernel" | "plugin";

export interface ShmLinkOptions {
  buffer: ArrayBuffer;
  layout: SegmentLayout;
  role: LinkRole;
  doorbellFd: number;
  /** The link closes the doorbell fd when it closes (the kernel's end of a plugin's socketpair). */
  ownsDoorbellFd?: boolean;
  onEvent: RingHandler;
  /** The peer broke the ring protocol (corrupt ring). The owner should drop the link. */
  onCorrupt?: (err: Error) => void;
  /** An event handler threw; the record is dropped, the link goes on. */
  onHandlerError?: (err: Error, type: number) => void;
  /** How long a sender waits for room before failing. */
  waitTimeoutMs?: number;
}

interface Waiter {
  retry: () => boolean;
  reject: (err: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class ShmLink {
  readonly out: RingProducer;
  readonly in: RingConsumer;
  readonly bulkOut: BulkWriter;
  readonly bulkIn: BulkReader;
  readonly doorbell: Doorbell;
  private readonly waiters: Waiter[] = [];
  private readonly waitTimeoutMs: number;
  private closed = false;
  private draining = false;
  /** Counters for status and benchmarks. */
  readonly stats = { eventsIn: 0, eventsOut: 0, bulkOut: 0, bulkBytesOut: 0 };

  constructor(private readonly opts: ShmLinkOptions) {
    const { buffer, layout, role } = opts;
    const k2p = layout.ringK2P;
    const p2k = layout.ringP2K;
    const [outRing, inRing] = role === "kernel" ? [k2p, p2k] : [p2k, k2p];
    this.out = new RingProducer(buffer, outRing.ctl, outRing.data, outRing.capacity);
    this.in = new RingConsumer(buffer, inRing.ctl, inRing.data, inRing.capacity);
    const [outArena, inArena] =
      role === "kernel" ? [layout.arenaK2P, layout.arenaP2K] : [layout.arenaP2K, layout.arenaK2P];
    this.bulkOut = new BulkWriter(buffer, outArena.base, outArena.size, outArena.wait);
    this.bulkIn = new BulkReader(buffer, inArena.base, inArena.size, inArena.wait);
    this.doorbell = new Doorbell(opts.doorbellFd, opts.ownsDoorbellFd ?? false);
    this.waitTimeoutMs = opts.waitTimeoutMs ?? 10_000;
  }

  /** Start reading the doorbell. Resolves when the link closes. */
  async run(): Promise<void> {
    this.onBell(); // anything written before we listened
    await this.doorbell.listen(() => this.onBell());
  }

  /** Append an event; false if the ring is full right now (nothing written). */
  tryEmit(type: number, payload: Uint8Array, flags = 0): boolean {
    if (!this.out.tryWrite(type, payload, flags)) return false;
    this.stats.eventsOut++;
    if (this.out.consumerNeedsBell()) this.doorbell.ring();
    return true;
  }

  /** Append an event, waiting for room up to the timeout. Fails (never throws) as async code does. */
  emit(type: number, payload: Uint8Array, flags = 0): Promise<void> {
    try {
      if (this.tryEmit(type, payload, flags)) return SENT;
    } catch (err) {
      return Promise.reject(err);
    }
    return this.waitFor(
      () => this.tryEmit(type, payload, flags),
      () => this.out.prepareWait(payload.length),
      `event ring full for ${this.waitTimeoutMs} ms: the other side is not reading`,
    );
  }

  /** Copy `data` into our arena and return the reference a frame carries. */
  async writeBulk(data: Uint8Array): Promise<BulkRef> {
    const { ref, bytes } = await this.allocBulk(data.length);
    bytes.set(data);
    return ref;
  }

  /** Reserve `len` bytes of our arena to fill in place; waits for releases when full. */
  async allocBulk(len: number): Promise<{ ref: BulkRef; bytes: Uint8Array }> {
    let got = this.bulkOut.tryAlloc(len);
    if (!got) {
      await this.waitFor(
        () => {
          got = this.bulkOut.tryAlloc(len);
          return got !== null;
        },
        () => {
          got = this.bulkOut.prepareWait(len);
          return got === null;
        },
        `bulk arena full for ${this.waitTimeoutMs} ms: the other side is not releasing`,
      );
    }
    this.stats.bulkOut++;
    this.stats.bulkBytesOut += len;
    return got as unknown as { ref: BulkRef; bytes: Uint8Array };
  }

  /** A view of bulk bytes the other side sent; valid until `releaseBulk`. */
  readBulk(ref: BulkRef): Uint8Array {
    return this.bulkIn.read(ref);
  }

  releaseBulk(ref: BulkRef): void {
    if (this.bulkIn.release(ref)) this.doorbell.ring();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.doorbell.close();
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new HomedError("native", "link closed"));
    }
  }

  /**
   * Wait until `retry` succeeds. `prepare` sets the peer-visible waiting flag and returns true
   * if it is safe to sleep until a bell (false: it succeeded meanwhile).
   */
  private waitFor(retry: () => boolean, prepare: () => boolean, timeoutMessage: string): Promise<void> {
    if (this.closed) return Promise.reject(new HomedError("native", "link closed"));
    if (!prepare()) {
      if (retry()) return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        retry: () => {
          if (!retry()) {
            prepare();
            return false;
          }
          clearTimeout(waiter.timer);
          resolve();
          return true;
        },
        reject,
        timer: setTimeout(() => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(new HomedError("native", timeoutMessage));
        }, this.waitTimeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  private onBell(): void {
    if (this.closed || this.draining) return;
    this.draining = true;
    try {
      // Senders waiting for room first: the bell may have been for them.
      for (let i = 0; i < this.waiters.length; ) {
        if ((this.waiters[i] as Waiter).retry()) this.waiters.splice(i, 1);
        else i++;
      }
      // Bounded work per wake-up so a flooding peer cannot starve our event loop: after
      // MAX_BATCHES the rest is picked up on the next macrotask, without sleeping.
      for (let batch = 0; ; batch++) {
        if (batch === MAX_BATCHES) {
          setImmediate(() => this.onBell());
          break;
        }
        const n = this.in.drain(this.deliver);
        if (n > 0 && this.in.producerNeedsBell()) this.doorbell.ring();
        if (n > 0) continue;
        if (this.in.prepareSleep()) break;
      }
    } catch (err) {
      this.opts.onCorrupt?.(err as Error);
    } finally {
      this.draining = false;
    }
  }

  private readonly deliver: RingHandler = (type, payload, flags) => {
    this.stats.eventsIn++;
    try {
      this.opts.onEvent(type, payload, flags);
    } catch (err) {
      this.opts.onHandlerError?.(err as Error, type);
    }
  };
}
