/**
 * turn.overhead_ms: median time the kernel spends on a turn, excluding the model's own time —
 * with N events of history in the conversation and one handler (in a plugin process) on each
 * of the seven stages. Measured against the real daemon over its control socket; the model is
 * a minimal OpenAI-compatible server in this process that times itself from request to last
 * byte, and that time is subtracted.
 */
import { readFileSync } from "node:fs";
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

/** One measured run: the turns' overheads (round trip minus the model's time) and the daemon's CPU. */
export interface TurnRun {
  samples: number[];
  /** The daemon's user + system CPU over the measured turns, in ms (/proc clock ticks). */
  cpuMs: number;
  /**
   * CPU time the hypervisor took from this VM over the measured turns, as a share of all cores'
   * time (`steal` in /proc/stat): the main cause of the spread between runs here (docs/BENCHMARKS.md).
   */
  stealPct: number;
}

/**
 * A fresh daemon (`bin`, default dist/homed) with one stage handler on each of the seven stages,
 * `history` events of past turns, `warmup` turns, then `turns` measured.
 */
export async function turnRun(history: number, turns: number, warmup = WARMUP_TURNS, bin?: string): Promise<TurnRun> {
  const model = startFakeModel();
  const daemon = await BenchDaemon.start({
    model,
    web: false,
    bin: bin ? [bin] : undefined,
    // stages/register is a kernel.agent method: an external plugin declares it. It is a file of
    // this repository, outside any room, so it runs unconfined (what the room costs at start is
    // bench/external-plugins.ts's figure; a frame costs the same in or out of it).
    env: { HOMED_PLUGINS_SANDBOX: "none" },
    plugins: {
      stages: { requires: ["kernel.agent"], exec: process.execPath, args: [join(ROOT, "bench/plugins/stages.ts")] },
    },
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
    let cpu0 = 0;
    let ticks0: [number, number] = [0, 0];
    for (let i = 0; i < turns + warmup; i++) {
      if (i === warmup) {
        cpu0 = cpuMs(daemon.pid);
        ticks0 = cpuTicks();
      }
      model.take();
      const t0 = performance.now();
      await client.peer.request("chat.send", { conv: "bench", text: `turn ${i}: what should I plant?` });
      const total = performance.now() - t0;
      if (i >= warmup) samples.push(total - model.spent());
    }
    const [steal, all] = cpuTicks();
    return {
      samples,
      cpuMs: cpuMs(daemon.pid) - cpu0,
      stealPct: (100 * (steal - ticks0[0])) / Math.max(1, all - ticks0[1]),
    };
  } finally {
    await daemon.stop();
    model.stop();
  }
}

/** User plus system CPU of a process so far, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = (readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1] ?? "").split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Clock ticks of all CPUs so far: [steal, every state], from the first line of /proc/stat. */
function cpuTicks(): [number, number] {
  const f = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
  return [f[7] ?? 0, f.reduce((a, b) => a + b, 0)];
}

export async function benchTurn(): Promise<void> {
  const run = await turnRun(10_000, 100);
  report("turn.overhead_ms", median(run.samples), "ms", 2);
  report("turn.steal_pct", run.stealPct, "%", 1);
  report("turn.overhead_ms_1k", median((await turnRun(1_000, 100)).samples), "ms", 2);
}
