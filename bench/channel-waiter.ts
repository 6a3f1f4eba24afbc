/**
 * channel.waiter: what the terminal client adds to a turn. `waiter -p TEXT` (dist/waiter, a new
 * process per question, as a script runs it) against the same daemon and scripted model as a
 * direct `chat.send` on the control socket, alternating so drift hits both alike.
 * - channel.waiter.added_ms: median waiter -p wall time minus the median direct turn — the
 *   client's start, its connection and its printing.
 * - channel.waiter.turns_s: turns per second through back-to-back `waiter -p` runs.
 */
import { join } from "node:path";
import { BenchDaemon, ROOT } from "./bench-daemon.ts";
import { startFakeModel } from "./fake-model.ts";
import { median, report } from "./report.ts";

const WAITER = join(ROOT, "dist/waiter");
const TURNS = 30;
const WARMUP = 3;

async function waiterAsk(data: string, text: string): Promise<void> {
  const p = Bun.spawn([WAITER, "-data", data, "-conv", "bench-waiter", "-p", text], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root" },
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0 || out !== "ok\n") throw new Error(`waiter -p failed (${code}): ${out}${err}`);
}

export async function benchChannelWaiter(): Promise<void> {
  const model = startFakeModel();
  const daemon = await BenchDaemon.start({ model, web: false });
  try {
    const client = await daemon.connect();
    const direct: number[] = [];
    const viaWaiter: number[] = [];
    for (let i = 0; i < TURNS + WARMUP; i++) {
      let t0 = performance.now();
      await client.peer.request("chat.send", { conv: "bench-direct", text: `direct ${i}` });
      const d = performance.now() - t0;
      t0 = performance.now();
      await waiterAsk(daemon.data, `waiter ${i}`);
      const w = performance.now() - t0;
      if (i >= WARMUP) {
        direct.push(d);
        viaWaiter.push(w);
      }
    }
    report("channel.waiter.added_ms", median(viaWaiter) - median(direct), "ms", 2);
    const t0 = performance.now();
    for (let i = 0; i < TURNS; i++) await waiterAsk(daemon.data, `throughput ${i}`);
    report("channel.waiter.turns_s", TURNS / ((performance.now() - t0) / 1000), "turns/s", 1);
  } finally {
    await daemon.stop();
    model.stop();
  }
}

if (import.meta.main) await benchChannelWaiter();
