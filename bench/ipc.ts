/**
 * Kernel ↔ plugin transport figures, both sides of each comparison in one run with
 * the same work: the receiver decodes and checksums every payload or event, and the sender
 * makes one write per message.
 *
 *   ipc.bulk.ratio, ipc.bulk.ratio_1mib — kernel→plugin throughput, shared segment ÷ base64 in
 *     JSON-RPC on stdio (16 MiB and 1 MiB payloads, one request per payload, crc32 checked)
 *   ipc.notify.ratio — events/s through the ring (doorbell mode) ÷ the same events as JSON
 *     lines over a pipe
 *   ipc.notify.p50_us, ipc.notify.p99_us — one-way latency through the ring when the reader is
 *     idle (half of a ping→pong round trip through both rings and doorbells); each the median
 *     of LATENCY_RUNS runs of LATENCY_PROBES probes, since one run's 99th percentile is its 40
 *     slowest probes and moves with whatever else the machine runs at that moment. Each stack
 *     is first driven WARM_TRIPS round trips back to back, so what is measured is the compiled
 *     path a long-running daemon has, not the engine compiling it; and the throughput runs'
 *     garbage is collected on both sides before the latency runs start
 *   ipc.notify.floor_p50_us, ipc.notify.floor_p99_us — the same probe in C (bench/native/
 *     wake-floor.c: two idle processes, one byte over a socketpair, epoll), run alternately with
 *     the ring runs: what the machine's scheduler allows before any of homed's code runs
 *   ipc.notify.bun_p50_us, ipc.notify.bun_p99_us — the same probe between two Bun processes
 *     through the Doorbell class alone (bench/plugins/bell-echo.ts), alternated too: what Bun's
 *     event loop allows, so the ring's own share of the tail is the difference
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Supervisor } from "../src/kernel/plugins/supervisor.ts";
import { externalSpecs } from "../src/kernel/plugins/catalog.ts";
import { KERNEL_FACILITIES } from "../src/kernel/plugins/graph.ts";
import { createLogger, createLogSink } from "../src/kernel/log.ts";
import { realClock } from "../src/kernel/clock.ts";
import type { PluginProcess } from "../src/kernel/plugins/process.ts";
import { Doorbell } from "../src/ipc/doorbell.ts";
import { closeFd, socketPair } from "../src/ipc/shim.ts";
import { median, percentile, report } from "./report.ts";

/** Build bench/native/wake-floor.c into `dir`; null (and a note) when no C compiler is here. */
function buildWakeFloor(dir: string): string | null {
  const out = join(dir, "wake-floor");
  const cc = Bun.spawnSync([process.env.CC || "cc", "-O2", "-o", out, join(ROOT, "bench/native/wake-floor.c")]);
  if (cc.exitCode === 0) return out;
  console.error(`ipc.notify: no wake floor (cc failed: ${cc.stderr.toString().trim()})`);
  return null;
}

/** One run of the C floor: [p50, p99] in microseconds. */
function wakeFloorRun(bin: string, probes: number): [number, number] {
  const r = Bun.spawnSync([bin, String(probes)]);
  const [p50, p99] = r.stdout.toString().trim().split(" ").map(Number);
  if (r.exitCode !== 0 || !Number.isFinite(p50) || !Number.isFinite(p99))
    throw new Error(`wake-floor failed: ${r.stderr.toString()}`);
  return [p50 as number, p99 as number];
}

const ROOT = resolve(import.meta.dir, "..");

/**
 * One run of the Bun floor: `n` one-byte round trips between this process and a Bun child over a
 * socketpair, each after 1 ms idle (as the ring probe), both ends on `Doorbell`; one-way µs each.
 */
export async function bunFloorUs(n: number): Promise<number[]> {
  const [mine, theirs] = socketPair({ nonBlockingFirst: true });
  let child: ReturnType<typeof Bun.spawn>;
  try {
    child = Bun.spawn([process.execPath, join(ROOT, "bench/plugins/bell-echo.ts")], {
      stdio: ["ignore", "inherit", "inherit", theirs],
    });
  } finally {
    closeFd(theirs);
  }
  const bell = new Doorbell(mine, true);
  let answered: (() => void) | null = null;
  const listening = bell.listen(() => answered?.());
  try {
    await Bun.sleep(100); // let the child load
    return await idleRoundTrips(n, () => {
      const back = new Promise<void>((r) => (answered = r));
      bell.ring();
      return back;
    });
  } finally {
    bell.close();
    child.kill();
    await child.exited;
    await listening.catch(() => {});
  }
}

/**
 * Round trips the path is driven back to back before it is measured, so the engine has compiled
 * it: a plugin's link runs for as long as the daemon does, and what this figure describes is
 * that, not the first seconds of a process. Every stack gets the same, the floors included.
 */
export const WARM_TRIPS = 5000;
/** Idle round trips after the warm-up that are not counted either. */
const IDLE_WARM_TRIPS = 200;

/**
 * `n` round trips, each started after 1 ms idle (the other side back asleep on its doorbell) by
 * `send`, which resolves when the answer is back; one-way µs each (half a round trip). First
 * WARM_TRIPS back to back and IDLE_WARM_TRIPS idle ones, not counted.
 */
export async function idleRoundTrips(n: number, send: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < WARM_TRIPS; i++) await send();
  const oneWay: number[] = [];
  for (let i = 0; i < n + IDLE_WARM_TRIPS; i++) {
    await Bun.sleep(1);
    const t0 = performance.now();
    await send();
    if (i >= IDLE_WARM_TRIPS) oneWay.push(((performance.now() - t0) * 1000) / 2);
  }
  return oneWay;
}
const SINK = join(ROOT, "bench/plugins/sink.ts");
export const LATENCY_RUNS = 5;
export const LATENCY_PROBES = 4000;

/** Where pong events from the shm sink go while the latency probe runs. */
let pongHandler: (() => void) | null = null;

function install(data: string, name: string, transport: "shm" | "stdio"): void {
  const dir = join(data, "plugins", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "plugin.json"), JSON.stringify({ name, transport, exec: process.execPath, args: [SINK] }));
}

export async function startSinks(data: string): Promise<{ sup: Supervisor; shm: PluginProcess; stdio: PluginProcess }> {
  install(data, "shm", "shm");
  install(data, "stdio", "stdio");
  const sup = new Supervisor({
    specs: externalSpecs(join(data, "plugins")),
    kernelFacilities: KERNEL_FACILITIES,
    clock: realClock,
    log: createLogger(createLogSink("error")),
    hello: () => ({
      kernelVersion: "bench",
      dataDir: data,
      listen: "127.0.0.1:0",
      logLevel: "warn",
      inlineBulkLimit: 32 << 20,
    }),
    kernelMethods: {},
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root" },
    segmentBytes: 72 << 20,
    frameRate: 1_000_000,
    maxFrameBytes: 48 << 20,
    inlineBulkLimit: 32 << 20,
    startTimeoutMs: 30_000,
    pingIntervalMs: 0,
    onEvent: (_name, type) => {
      if (type === 0x202) pongHandler?.();
    },
  });
  sup.start();
  for (
    let i = 0;
    i < 3000 && !(sup.process("shm") && sup.process("stdio") && sup.list().every((p) => p.state === "ready"));
    i++
  )
    await Bun.sleep(5);
  const shm = sup.process("shm");
  const stdio = sup.process("stdio");
  if (!shm || !stdio) throw new Error("bench sinks did not start");
  return { sup, shm, stdio };
}

/** Bytes per second pushing `count` payloads of `size` bytes, one request each, crc checked. */
async function bulkRate(p: PluginProcess, size: number, count: number): Promise<number> {
  const payload = new Uint8Array(size);
  for (let i = 0; i < size; i += 4096) payload[i] = (i >> 12) & 0xff;
  const crc = Bun.hash.crc32(payload);
  const send = async () => {
    const ref = await p.link.sendBulk(payload);
    const r = (await p.rpc.request("bench/bulk", { ref }, { timeoutMs: 60_000 })) as { crc: number };
    if (r.crc !== crc) throw new Error("checksum mismatch");
  };
  await send(); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < count; i++) await send();
  return (size * count) / ((performance.now() - t0) / 1000);
}

function eventBytes(seq: number, buf: Uint8Array, dv: DataView): void {
  dv.setUint32(0, seq, true);
  dv.setFloat64(8, performance.now(), true);
  buf[buf.length - 1] = seq & 0xff;
}

/** Events per second through the ring to the shm sink, counting until all arrived. */
async function ringRate(p: PluginProcess, n: number): Promise<number> {
  await p.rpc.request("bench/reset");
  const buf = new Uint8Array(64);
  const dv = new DataView(buf.buffer);
  const link = p.shm!;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    eventBytes(i, buf, dv);
    if (!link.tryEmit(0x200, buf)) await link.emit(0x200, buf);
  }
  let got = { count: 0, sum: 0 };
  while (got.count < n) got = (await p.rpc.request("bench/events")) as typeof got;
  return n / ((performance.now() - t0) / 1000);
}

/** The same events as JSON lines over a plain pipe, one write (and flush) per message. */
async function jsonLinesRate(n: number): Promise<number> {
  const child = Bun.spawn([process.execPath, join(ROOT, "bench/plugins/json-lines-sink.ts")], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  await Bun.sleep(100); // let the child load, as the ring side's sink already has
  const buf = new Uint8Array(64);
  const dv = new DataView(buf.buffer);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    eventBytes(i, buf, dv);
    child.stdin.write(
      `${JSON.stringify({
        seq: i,
        stamp: dv.getFloat64(8, true),
        data: Buffer.from(buf.subarray(16)).toString("base64"),
      })}\n`,
    );
    child.stdin.flush();
  }
  child.stdin.write('"end"\n');
  await child.stdin.end();
  const out = JSON.parse(await new Response(child.stdout).text()) as { count: number };
  const dt = (performance.now() - t0) / 1000;
  if (out.count !== n) throw new Error(`json sink counted ${out.count} of ${n}`);
  return n / dt;
}

/** Round trips ping→pong through both rings, each sent when the sink is idle (asleep). */
export async function ringLatencyUs(p: PluginProcess, n: number): Promise<number[]> {
  let answered: (() => void) | null = null;
  pongHandler = () => answered?.();
  const ping = new Uint8Array(16);
  try {
    return await idleRoundTrips(n, async () => {
      const back = new Promise<void>((r) => (answered = r));
      await p.shm!.emit(0x201, ping);
      await back;
    });
  } finally {
    pongHandler = null;
  }
}

export async function benchIpc(): Promise<void> {
  const data = mkdtempSync(join(tmpdir(), "homed-bench-ipc-"));
  const { sup, shm, stdio } = await startSinks(data);
  try {
    const MiB = 1 << 20;
    const shm16 = await bulkRate(shm, 16 * MiB, 24);
    const stdio16 = await bulkRate(stdio, 16 * MiB, 6);
    report("ipc.bulk.ratio", shm16 / stdio16, "x");
    report("ipc.bulk.shm_mib_s", shm16 / MiB, "MiB/s");
    report("ipc.bulk.stdio_mib_s", stdio16 / MiB, "MiB/s");
    const shm1 = await bulkRate(shm, MiB, 300);
    const stdio1 = await bulkRate(stdio, MiB, 60);
    report("ipc.bulk.ratio_1mib", shm1 / stdio1, "x");

    // Three alternating rounds; the median of each side, so one noisy moment on a loaded
    // 2-core machine does not decide the ratio.
    const N = 1_000_000;
    await ringRate(shm, 50_000); // warm-up
    const rings: number[] = [];
    const jsons: number[] = [];
    for (let round = 0; round < 3; round++) {
      rings.push(await ringRate(shm, N));
      jsons.push(await jsonLinesRate(N / 5));
    }
    report("ipc.notify.ratio", median(rings) / median(jsons), "x");
    report("ipc.notify.ring_msgs_s", median(rings), "msg/s", 0);
    report("ipc.notify.json_msgs_s", median(jsons), "msg/s", 0);

    // The throughput runs' garbage is collected on both sides first: their aftermath is not
    // what an idle link's latency is.
    await shm.rpc.request("bench/gc");
    Bun.gc(true);
    await Bun.sleep(200);
    const floorBin = buildWakeFloor(data);
    const p50s: number[] = [];
    const p99s: number[] = [];
    const floors: [number, number][] = [];
    const buns: [number, number][] = [];
    for (let run = 0; run < LATENCY_RUNS; run++) {
      if (floorBin) floors.push(wakeFloorRun(floorBin, LATENCY_PROBES));
      const bun = await bunFloorUs(LATENCY_PROBES);
      buns.push([median(bun), percentile(bun, 99)]);
      const lat = await ringLatencyUs(shm, LATENCY_PROBES);
      p50s.push(median(lat));
      p99s.push(percentile(lat, 99));
    }
    const runs = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(" ");
    console.error(`ipc.notify runs: p50 ${runs(p50s)} us; p99 ${runs(p99s)} us`);
    report("ipc.notify.p50_us", median(p50s), "us");
    report("ipc.notify.p99_us", median(p99s), "us");
    if (floors.length) {
      console.error(
        `ipc.notify floor runs: p50 ${runs(floors.map((f) => f[0]))} us; p99 ${runs(floors.map((f) => f[1]))} us`,
      );
      report("ipc.notify.floor_p50_us", median(floors.map((f) => f[0])), "us");
      report("ipc.notify.floor_p99_us", median(floors.map((f) => f[1])), "us");
    }
    console.error(`ipc.notify bun runs: p50 ${runs(buns.map((f) => f[0]))} us; p99 ${runs(buns.map((f) => f[1]))} us`);
    report("ipc.notify.bun_p50_us", median(buns.map((f) => f[0])), "us");
    report("ipc.notify.bun_p99_us", median(buns.map((f) => f[1])), "us");
  } finally {
    await sup.stopAll(1000);
    rmSync(data, { recursive: true, force: true });
  }
}
