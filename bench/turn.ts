/**
 * turn.overhead_ms: median time the kernel spends on a turn, excluding the model's own time —
 * with N events of history in the conversation and one handler (in a plugin process) on each
 * of the seven stages. Measured against the real daemon over its control socket; the model is
 * a minimal OpenAI-compatible server in this process that times itself from request to last
 * byte, and that time is subtracted.
 */
import { join } from "node:path";
import { BenchDaemon, ROOT } from "./bench-daemon.ts";
import { startFakeModel } from "./fake-model.ts";
import { median, report } from "./report.ts";

/**
 * Turns run before the measured ones. A daemon's per-turn code runs once a turn, so the JIT has
 * it at its faster tiers only after some tens of turns: with 3 warm-up turns and 30 measured, the
 * median sat among the first, slow turns, and the per-turn spread (5–26 ms on this machine) moved
 * it by ±3 ms from run to run (docs/BENCHMARKS.md, 2026-12-02 early morning).
 */
const WARMUP_TURNS = 10;

async function overhead(history: number, turns: number): Promise<number> {
  const model = startFakeModel();
  const daemon = await BenchDaemon.start({
    model,
    web: false,
    plugins: { stages: { exec: process.execPath, args: [join(ROOT, "bench/plugins/stages.ts")] } },
  });
  try {
    const client = await daemon.connect();
    for (let i = 0; (await daemon.status()).stages.length !== 7; i++) {
      if (i > 2000) throw new Error("the stages plugin did not register its seven handlers");
      await Bun.sleep(5);
    }
    // History: user/model/reply triples as a real conversation leaves them.
    for (let i = 0; i < history; i += 3) {
      const turn = `h${i}`;
      await client.peer.request("event.append", {
        conv: "bench",
        kind: "user-message",
        actor: "user",
        body: { turn, text: `question ${i} about the garden and the weather this week`, channel: "cli" },
      });
      await client.peer.request("event.append", {
        conv: "bench",
        kind: "model-output",
        actor: "agent",
        body: { turn, iteration: 1, text: `answer ${i}: water the tomatoes in the morning`, toolCalls: [] },
      });
      await client.peer.request("event.append", {
        conv: "bench",
        kind: "agent-reply",
        actor: "agent",
        body: { turn, text: `answer ${i}`, fromModel: true, stopReason: "done" },
      });
    }
    const samples: number[] = [];
    for (let i = 0; i < turns + WARMUP_TURNS; i++) {
      model.take();
      const t0 = performance.now();
      await client.peer.request("chat.send", { conv: "bench", text: `turn ${i}: what should I plant?` });
      const total = performance.now() - t0;
      if (i >= WARMUP_TURNS) samples.push(total - model.spent());
    }
    return median(samples);
  } finally {
    await daemon.stop();
    model.stop();
  }
}

export async function benchTurn(): Promise<void> {
  report("turn.overhead_ms", await overhead(10_000, 100), "ms", 2);
  report("turn.overhead_ms_1k", await overhead(1_000, 100), "ms", 2);
}
