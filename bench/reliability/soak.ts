/**
 * soak.rss_growth_mb: the load of bench/load.ts (20 conversations, fake model: ten streaming
 * through /v1/chat/completions, which is stateless, and ten through chat.send on the control
 * socket, which keeps history) for ten minutes, with the resident memory of the kernel and,
 * separately, of the web plugin sampled every 10 s. Growth = kernel RSS at the end − kernel RSS
 * after the first minute (warm-up). One sample lands anywhere between two garbage collections,
 * which moves it by tens of MiB under load, so each end of the difference is the median of a
 * minute of samples: the second minute (after warm-up) and the last. Every sample goes to stderr.
 *
 * The model's context window is 16k tokens, not the default 128k: at ~25 tokens a turn, a 128k
 * window holds ~4,500 turns, which 20 conversations at this rate fill only near the end of the
 * ten minutes — the soak would measure the history filling its window, not what a daemon does
 * once its conversations outgrew it. With 16k the chat.send conversations do so within the first
 * minutes, and the rest of the run prunes, evicts to cold memory and recalls on every turn.
 */
import { BenchDaemon } from "../bench-daemon.ts";
import { loadModel, runLoad } from "../load.ts";
import { median, percentile, report } from "../report.ts";

const SOAK_CONTEXT_WINDOW = 16_384;

export interface SoakOptions {
  durationMs?: number;
  sampleMs?: number;
}

export async function benchSoak(opts: SoakOptions = {}): Promise<void> {
  const durationMs = opts.durationMs ?? 10 * 60_000;
  const sampleMs = opts.sampleMs ?? 10_000;
  const model = loadModel();
  const daemon = await BenchDaemon.start({ model, contextWindow: SOAK_CONTEXT_WINDOW });
  const samples: { s: number; kernel: number; web: number }[] = [];
  const t0 = performance.now();
  const sample = async () => {
    const r = await daemon.rss();
    const s = { s: Math.round((performance.now() - t0) / 1000), kernel: r.kernel, web: r.plugins.web ?? 0 };
    samples.push(s);
    console.error(`soak: t=${s.s}s kernel_rss_mb=${s.kernel.toFixed(1)} web_rss_mb=${s.web.toFixed(1)}`);
  };
  try {
    await sample();
    const timer = setInterval(
      () => void sample().catch((err) => console.error(`soak: sample failed: ${err}`)),
      sampleMs,
    );
    const r = await runLoad(daemon, { durationMs, via: "mixed" }).finally(() => clearInterval(timer));
    await sample();
    if (r.failures) console.error(`soak: ${r.failures} failed turns, e.g. ${r.errors.join(" | ")}`);
    const minute = (from: number, to: number) => samples.filter((x) => x.s >= from && x.s < to);
    const end = durationMs / 1000;
    const base = minute(60, 120);
    const last = minute(end - 60, end + 60);
    const growth = (k: "kernel" | "web") => median(last.map((x) => x[k])) - median(base.map((x) => x[k]));
    report("soak.rss_growth_mb", growth("kernel"), "MiB");
    report("soak.web_rss_growth_mb", growth("web"), "MiB");
    report("soak.rss_peak_mb", Math.max(...samples.map((x) => x.kernel)), "MiB");
    report("soak.turns_s", r.turns / r.seconds, "turns/s");
    report("soak.failed_turns", r.failures, "turns", 0);
    report("soak.p99_ms", percentile(r.latencies, 99), "ms");
  } finally {
    await daemon.stop();
    model.stop();
  }
}

if (import.meta.main) await benchSoak({ durationMs: Number(process.env.SOAK_S ?? 600) * 1000 });
