/**
 * Development aid (not part of `make bench`): turn.overhead_ms of two or more daemon binaries,
 * alternating run by run in the same minutes, with each run's median and the daemon's CPU time
 * per turn read from /proc — the way this machine's run-to-run spread can be told from a change.
 *
 *   bun bench/turn-ab.ts ROUNDS TURNS WARMUP BINARY...
 *   e.g. bun bench/turn-ab.ts 4 100 10 /tmp/base/dist/homed dist/homed
 *
 * Each run is bench/turn.ts's `turnRun`: a fresh daemon with one handler on each stage, 10k
 * events of history, WARMUP turns, then TURNS measured (round trip minus the model's own time).
 *
 * Each run also reports the CPU time the hypervisor took from this VM meanwhile (steal, from
 * /proc/stat, as a share of both cores): on this machine it explains most of the spread between
 * runs of one binary (docs/BENCHMARKS.md, 2026-12-02 morning).
 */
import { median } from "./report.ts";
import { turnRun } from "./turn.ts";

const [rounds, turns, warmup, ...bins] = process.argv.slice(2);
if (!rounds || !turns || !warmup || bins.length === 0) {
  console.error("usage: bun bench/turn-ab.ts ROUNDS TURNS WARMUP BINARY...");
  process.exit(2);
}
const results = new Map<string, { median: number; cpu: number }[]>(bins.map((b) => [b, []]));
for (let r = 0; r < Number(rounds); r++)
  for (const bin of bins) {
    const r1 = await turnRun(10_000, Number(turns), Number(warmup), bin);
    const x = { median: median(r1.samples), cpu: r1.cpuMs / Number(turns) };
    results.get(bin)?.push(x);
    console.log(
      `round ${r + 1} ${bin}: median ${x.median.toFixed(2)} ms, daemon CPU ${x.cpu.toFixed(2)} ms a turn, steal ${r1.stealPct.toFixed(1)} %`,
    );
  }
for (const [bin, xs] of results) {
  const runs = xs.map((x) => x.median.toFixed(2)).join(" ");
  console.log(
    `${bin}: run medians ${runs}; median ${median(xs.map((x) => x.median)).toFixed(2)} ms, CPU ${median(xs.map((x) => x.cpu)).toFixed(2)} ms a turn`,
  );
}
