/**
 * Where ipc.notify's tail comes from (issue 10; a development aid, not part of `make bench`):
 * the same idle ping→pong probe as bench/ipc.ts through three stacks, alternated round by
 * round so the machine's moments fall on all three alike:
 *   bun  — two Bun processes ringing one byte through the Doorbell class (no ring)
 *   link — the ring and doorbell (ShmLink) between the bench and bench/plugins/link-echo.ts,
 *          no plugin SDK, no RPC, no supervisor
 *   full — what ipc.notify.p99_us measures: the supervisor's plugin process and the SDK sink
 * Prints p50/p90/p95/p99/p99.5 in µs per round and the median p99 of each stack.
 *   bun bench/ipc-tail.ts [rounds=6] [probes=3000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { planLayout, writeLayout } from "../src/ipc/segment-layout.ts";
import { SharedSegment } from "../src/ipc/shared-memory.ts";
import { closeFd, socketPair } from "../src/ipc/shim.ts";
import { ShmLink } from "../src/ipc/shm-link.ts";
import { bunFloorUs, idleRoundTrips, ringLatencyUs, startSinks } from "./ipc.ts";
import { median, percentile } from "./report.ts";

const ROOT = resolve(import.meta.dir, "..");

/** `n` idle round trips through ShmLink to link-echo.ts; one-way µs each. */
async function linkLatencyUs(n: number): Promise<number[]> {
  const segment = SharedSegment.create("homed-ipc-tail", 8 << 20, { inheritable: true });
  const layout = planLayout(segment.size);
  writeLayout(segment.buffer, layout);
  const bell = socketPair({ nonBlockingFirst: true });
  let child: ReturnType<typeof Bun.spawn>;
  try {
    child = Bun.spawn([process.execPath, join(ROOT, "bench/plugins/link-echo.ts")], {
      stdio: ["ignore", "inherit", "inherit", segment.fd, bell[1]],
    });
  } finally {
    closeFd(bell[1]);
  }
  let answered: (() => void) | null = null;
  const link = new ShmLink({
    buffer: segment.buffer,
    layout,
    role: "kernel",
    doorbellFd: bell[0],
    ownsDoorbellFd: true,
    onEvent: (type) => {
      if (type === 0x202) answered?.();
    },
  });
  const running = link.run();
  const ping = new Uint8Array(16);
  try {
    await Bun.sleep(100); // let the child load
    return await idleRoundTrips(n, () => {
      const back = new Promise<void>((r) => (answered = r));
      link.tryEmit(0x201, ping);
      return back;
    });
  } finally {
    link.close();
    child.kill();
    await child.exited;
    await running.catch(() => {});
    segment.close();
  }
}

const rounds = Number(process.argv[2] ?? 6);
const probes = Number(process.argv[3] ?? 3000);
const data = mkdtempSync(join(tmpdir(), "homed-ipc-tail-"));
const { sup, shm } = await startSinks(data);
try {
  const p99s: Record<string, number[]> = { bun: [], link: [], full: [] };
  const shape = (xs: number[]) => [50, 90, 95, 99, 99.5].map((p) => percentile(xs, p).toFixed(0)).join("/");
  for (let r = 0; r < rounds; r++) {
    const got: [string, number[]][] = [
      ["bun", await bunFloorUs(probes)],
      ["link", await linkLatencyUs(probes)],
      ["full", await ringLatencyUs(shm, probes)],
    ];
    console.log(`round ${r + 1}: ${got.map(([k, xs]) => `${k} ${shape(xs)}`).join("  ")}`);
    for (const [k, xs] of got) p99s[k]?.push(percentile(xs, 99));
  }
  for (const [k, xs] of Object.entries(p99s)) console.log(`${k}: median p99 ${median(xs).toFixed(1)} us`);
} finally {
  await sup.stopAll(1000);
  rmSync(data, { recursive: true, force: true });
}
