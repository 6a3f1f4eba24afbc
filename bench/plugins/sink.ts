/**
 * The receiving side of the IPC benchmarks, on the plugin SDK (so the shm numbers are the
 * numbers a real plugin gets). Every payload and every event is decoded and checksummed.
 *   bench/bulk {ref}  → read the bytes (zero-copy on shm, base64-decoded on stdio), crc32, release
 *   events of type 0x200 → decode {seq u32, pad u32, stamp f64, 48 bytes}, fold into a checksum
 *   bench/events      → {count, sum}
 *   bench/gc          → a full collection, so one figure's garbage does not land in the next
 *   events of type 0x201 (ping) → echoed back as type 0x202 (pong), for round-trip latency
 */
import { connectPlugin } from "../../plugins/sdk/index.ts";

const plugin = await connectPlugin();
let count = 0;
let sum = 0;
plugin.handle("bench/bulk", (params) => {
  const ref = (params as { ref: unknown }).ref;
  const bytes = plugin.readBulk(ref);
  const crc = Bun.hash.crc32(bytes);
  plugin.releaseBulk(ref);
  return { crc, len: bytes.length };
});
plugin.onEvent(0x200, (p) => {
  const dv = new DataView(p.buffer, p.byteOffset, p.byteLength);
  const seq = dv.getUint32(0, true);
  const stamp = dv.getFloat64(8, true);
  sum = (sum + seq + (stamp > 0 ? 1 : 0) + (p[p.length - 1] as number)) >>> 0;
  count++;
});
const pong = new Uint8Array(16);
plugin.onEvent(0x201, (p) => {
  pong.set(p.subarray(0, 16));
  void plugin.emit(0x202, pong);
});
plugin.handle("bench/events", () => ({ count, sum }));
plugin.handle("bench/gc", () => {
  Bun.gc(true);
  return true;
});
plugin.handle("bench/reset", () => {
  count = 0;
  sum = 0;
  return true;
});
await plugin.ready();
