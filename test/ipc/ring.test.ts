/** The SPSC ring and the bulk arenas on one buffer: wrap-around, full, corruption, bad refs. */
import { describe, expect, test } from "bun:test";
import { RingConsumer, RingCorruptError, RingProducer } from "../../src/ipc/ring.ts";
import { BulkReader, BulkWriter } from "../../src/ipc/bulk-arena.ts";
import { planLayout, readLayout, writeLayout } from "../../src/ipc/segment-layout.ts";

const CAP = 1 << 16;

function ring() {
  const buffer = new ArrayBuffer(4096 + CAP);
  return { buffer, p: new RingProducer(buffer, 256, 4096, CAP), c: new RingConsumer(buffer, 256, 4096, CAP) };
}

function payload(seq: number, len: number): Uint8Array {
  const b = new Uint8Array(len);
  for (let i = 0; i < len; i++) b[i] = (seq * 7 + i) & 0xff;
  return b;
}

describe("ring", () => {
  test("records of every size survive thousands of wrap-arounds, in order and intact", () => {
    const { p, c } = ring();
    let sent = 0;
    let got = 0;
    let bytes = 0;
    while (sent < 20_000) {
      const len = (sent * 2654435761) % 3000;
      while (!p.tryWrite(sent & 0xffff, payload(sent, len), sent & 0xff)) {
        c.drain((type, data, flags) => {
          expect(type).toBe(got & 0xffff);
          expect(flags).toBe(got & 0xff);
          const len2 = (got * 2654435761) % 3000;
          expect(data.length).toBe(len2);
          if (len2) expect(data[len2 - 1]).toBe((got * 7 + len2 - 1) & 0xff);
          got++;
        }, 7);
      }
      bytes += len;
      sent++;
    }
    c.drain(() => got++);
    expect(got).toBe(sent);
    expect(bytes).toBeGreaterThan(CAP * 400); // the head counter went round the ring hundreds of times
    expect(c.empty).toBe(true);
  });

  test("a full ring refuses without writing, and takes records again once drained", () => {
    const { p, c } = ring();
    let n = 0;
    while (p.tryWrite(1, payload(n, 1000))) n++;
    expect(n).toBeGreaterThan(50);
    expect(p.used).toBeGreaterThan(CAP - 1100);
    expect(c.drain(() => {}, 10)).toBe(10);
    expect(p.tryWrite(1, payload(0, 1000))).toBe(true);
    let rest = 0;
    c.drain(() => rest++);
    expect(rest).toBe(n - 10 + 1);
  });

  test("payload limit is half the ring", () => {
    const { p, c } = ring();
    expect(() => p.tryWrite(1, new Uint8Array(p.maxPayload + 1))).toThrow(RangeError);
    // The largest record fits wherever the ring's head happens to be.
    for (let i = 0; i < 5; i++) {
      expect(p.tryWrite(1, new Uint8Array(777))).toBe(true);
      expect(p.tryWrite(2, new Uint8Array(p.maxPayload))).toBe(true);
      c.drain(() => {});
    }
  });

  test("sleeping and producer-waiting flags hand over wake-ups exactly once", () => {
    const { p, c } = ring();
    expect(c.prepareSleep()).toBe(true);
    p.tryWrite(1, new Uint8Array(4));
    expect(p.consumerNeedsBell()).toBe(true);
    expect(p.consumerNeedsBell()).toBe(false);
    expect(c.prepareSleep()).toBe(false); // data is there: do not sleep
    while (p.tryWrite(1, new Uint8Array(1000)));
    expect(p.prepareWait(1000)).toBe(true);
    c.drain(() => {});
    expect(c.producerNeedsBell()).toBe(true);
    expect(c.producerNeedsBell()).toBe(false);
  });

  test("a corrupt ring (as a hostile peer could write) is detected, not followed", () => {
    const { buffer, p, c } = ring();
    p.tryWrite(1, new Uint8Array(16));
    new Uint32Array(buffer)[4096 / 4] = 0x7fffffff; // record length beyond the ring
    expect(() => c.drain(() => {})).toThrow(RingCorruptError);
    const r2 = ring();
    new Int32Array(r2.buffer)[256 / 4] = CAP * 3; // head far ahead of tail
    expect(() => r2.c.drain(() => {})).toThrow(RingCorruptError);
  });
});

describe("bulk arena", () => {
  function arena(size = 64 * 1024) {
    const buffer = new ArrayBuffer(1024 + size);
    return { w: new BulkWriter(buffer, 1024, size, 0), r: new BulkReader(buffer, 1024, size, 0) };
  }

  test("allocates until full, reclaims released blocks oldest first, and wraps", () => {
    const { w, r } = arena();
    const refs = [];
    for (;;) {
      const a = w.tryAlloc(10_000);
      if (!a) break;
      a.bytes.fill(refs.length);
      refs.push(a.ref);
    }
    expect(refs.length).toBe(6);
    // Releasing a newer block frees nothing while the oldest is held.
    r.release(refs[1]!);
    expect(w.tryAlloc(10_000)).toBeNull();
    r.release(refs[0]!);
    const wrapped = w.tryAlloc(15_000);
    expect(wrapped).not.toBeNull();
    expect(wrapped!.ref.off).toBe(1024 + 8); // back at the start of the arena
    expect(r.read(refs[2]!)[0]).toBe(2); // untouched neighbours
    for (const ref of refs.slice(2)) r.release(ref);
    r.release(wrapped!.ref);
    expect(w.liveBlocks).toBe(0);
  });

  test("a payload larger than the arena fails clearly; a zero-length payload works", () => {
    const { w, r } = arena();
    expect(() => w.tryAlloc(64 * 1024)).toThrow("exceeds the bulk arena");
    const z = w.tryAlloc(0)!;
    expect(r.read(z.ref).length).toBe(0);
  });

  test("references that do not name a live block are refused", () => {
    const { w, r } = arena();
    const a = w.tryAlloc(100)!;
    for (const bad of [
      { off: 0, len: 1 },
      { off: a.ref.off + 1, len: 100 },
      { off: a.ref.off, len: 101 },
      { off: 1024 + 64 * 1024, len: 1 },
      { off: -8, len: 0 },
      { off: 1.5, len: 1 },
    ]) {
      expect(() => r.read(bad)).toThrow();
    }
    r.release(a.ref);
    expect(() => r.read(a.ref)).toThrow("does not name a live block");
    expect(() => r.release(a.ref)).toThrow();
  });
});

describe("segment layout", () => {
  test("a plugin reads back exactly the layout the kernel wrote, and rejects a tampered header", () => {
    const buffer = new ArrayBuffer(4 << 20);
    const layout = planLayout(buffer.byteLength);
    writeLayout(buffer, layout);
    expect(readLayout(buffer)).toEqual(layout);
    expect(layout.arenaP2K.base + layout.arenaP2K.size).toBeLessThanOrEqual(buffer.byteLength);
    new Uint32Array(buffer)[4] = 12; // ring offset
    expect(() => readLayout(buffer)).toThrow("inconsistent");
    new Uint32Array(buffer)[0] = 0;
    expect(() => readLayout(buffer)).toThrow("bad magic");
    expect(() => planLayout(1000)).toThrow("segment size");
  });
});
