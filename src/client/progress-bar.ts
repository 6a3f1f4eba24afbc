/**
 * Progress of a long command on stderr: a bar redrawn in place at a terminal, or a plain line
 * now and then when stderr is a file or a pipe (a log should not fill with redraws). Lines of
 * their own (a bad record) are written above the bar without tearing it.
 */

export interface ProgressOut {
  write(s: string): unknown;
  isTTY?: boolean;
}

/** At a terminal, redraws at most this often. */
const REDRAW_MS = 100;
/** Elsewhere, a line this often. */
const LINE_MS = 5000;
const WIDTH = 24;

export class ProgressBar {
  private last = Number.NEGATIVE_INFINITY;
  private drawn = false;
  private readonly started: number;
  private done = 0;
  private count = 0;

  /**
   * @param total what `done` counts up to (bytes of a file); 0 when unknown
   * @param what the unit of `count` ("messages")
   */
  constructor(
    private readonly out: ProgressOut,
    private readonly prog: string,
    private readonly total: number,
    private readonly what: string,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.started = now();
  }

  private get tty(): boolean {
    return this.out.isTTY === true;
  }

  private text(): string {
    const secs = Math.max((this.now() - this.started) / 1000, 1e-3);
    const rate = Math.round(this.count / secs);
    const pct = this.total > 0 ? Math.min(100, Math.floor((this.done / this.total) * 100)) : null;
    const counts = `${this.count.toLocaleString("en-US")} ${this.what} · ${rate.toLocaleString("en-US")}/s`;
    if (!this.tty) return `${this.prog}: ${pct === null ? "" : `${pct}% read, `}${counts}`;
    const filled = pct === null ? 0 : Math.round((pct / 100) * WIDTH);
    const bar = `[${"#".repeat(filled)}${".".repeat(WIDTH - filled)}]`;
    return `${bar} ${pct === null ? "" : `${String(pct).padStart(3)}% `}${counts}`;
  }

  /** `done` of the total, `count` things done; drawn when it is time. */
  update(done: number, count: number): void {
    this.done = done;
    this.count = count;
    const t = this.now();
    if (t - this.last < (this.tty ? REDRAW_MS : LINE_MS)) return;
    if (!this.tty && t - this.started < LINE_MS) return; // a quick run prints no progress at all
    this.last = t;
    if (this.tty) {
      this.out.write(`\r${this.text()}\x1b[K`);
      this.drawn = true;
    } else this.out.write(`${this.text()}\n`);
  }

  /** A line of its own, above the bar. */
  note(line: string): void {
    if (this.drawn) this.out.write("\r\x1b[K");
    this.out.write(`${line}\n`);
    if (this.drawn) this.out.write(`${this.text()}\x1b[K`);
  }

  /** Take the bar away (the summary follows). */
  end(): void {
    if (this.drawn) this.out.write("\r\x1b[K");
    this.drawn = false;
  }
}
