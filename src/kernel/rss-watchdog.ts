/**
 * The memory cap (`[limits] rss_mb`): every `rss_check_ms` the resident memory of the daemon and
 * of each of its plugin processes is summed. Over the cap, the watchdog gives back what it can
 * without losing anything — it stops lazy plugins that are not in use (they start again on their
 * next use) and asks for a full garbage collection — then looks again after `settleMs`, when the
 * stopped processes are gone. Still over: one `warn` line naming the figures. It is not repeated
 * while memory stays over; once a sample is back under the cap, an `info` line says so and the
 * next excess warns again. Nothing is killed that is doing work.
 */
import type { Clock } from "./clock.ts";
import type { Logger } from "./log.ts";

const MiB = 1024 * 1024;

export interface RssSample {
  kernel: number;
  /** Running plugin processes by name, in bytes. */
  plugins: Record<string, number>;
}

export interface RssWatchdogOptions {
  /** The cap in MiB; 0 turns the watchdog off. */
  limitMb: number;
  intervalMs: number;
  /** Wait between shedding and the second look (stopped plugins need a moment to exit). */
  settleMs?: number;
  clock: Clock;
  log: Logger;
  sample: () => RssSample;
  /** Stop lazy plugins that are not in use; returns their names. */
  shedLazy: () => string[];
  gc: () => void;
}

const total = (s: RssSample) => s.kernel + Object.values(s.plugins).reduce((a, b) => a + b, 0);
const mb = (bytes: number) => Math.round(bytes / MiB);

export class RssWatchdog {
  private timer: unknown = null;
  private settleTimer: unknown = null;
  private warned = false;
  private stopped = true;

  constructor(private readonly opts: RssWatchdogOptions) {}

  /** Start sampling (nothing happens when the cap is 0). */
  start(): void {
    if (this.opts.limitMb <= 0 || !this.stopped) return;
    this.stopped = false;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.opts.clock.clearTimeout(this.timer);
    if (this.settleTimer !== null) this.opts.clock.clearTimeout(this.settleTimer);
    this.timer = this.settleTimer = null;
  }

  /** True while memory is over the cap and the warning has been given. */
  get overCap(): boolean {
    return this.warned;
  }

  private schedule(): void {
    this.timer = this.opts.clock.setTimeout(() => {
      this.timer = null;
      if (this.stopped) return;
      this.check();
      this.schedule();
    }, this.opts.intervalMs);
  }

  /** One sample; public so the kernel could check at once after a big allocation. */
  check(): void {
    const limit = this.opts.limitMb * MiB;
    const s = this.opts.sample();
    if (total(s) <= limit) {
      if (this.warned)
        this.opts.log.info("resident memory back under [limits] rss_mb", {
          rss_mb: mb(total(s)),
          limit_mb: this.opts.limitMb,
        });
      this.warned = false;
      return;
    }
    const shed = this.opts.shedLazy();
    this.opts.gc();
    if (this.warned || this.settleTimer !== null) return;
    this.settleTimer = this.opts.clock.setTimeout(() => {
      this.settleTimer = null;
      if (this.stopped || this.warned) return;
      const after = this.opts.sample();
      if (total(after) <= limit) return;
      this.warned = true;
      const plugins = Object.entries(after.plugins)
        .sort((a, b) => b[1] - a[1])
        .map(([name, bytes]) => `${name}=${mb(bytes)}`)
        .join(",");
      this.opts.log.warn(
        "resident memory over [limits] rss_mb after stopping idle lazy plugins and collecting garbage",
        {
          rss_mb: mb(total(after)),
          limit_mb: this.opts.limitMb,
          kernel_mb: mb(after.kernel),
          plugins_mb: plugins || "none",
          stopped: shed.join(",") || "none",
        },
      );
    }, this.opts.settleMs ?? 2000);
  }
}
