/**
 * Counters, gauges and histograms with labels, kept in memory and read whole at a scrape
 * (src/metrics/exposition.ts writes them in Prometheus's text format). Small on purpose: an
 * observation is a map lookup and a few additions, so the turn can afford one at every point
 * docs/metrics.md lists, and nothing here runs per stored event.
 *
 * Cardinality is bounded: a family holds at most MAX_SERIES label sets. Label values come from
 * outside (a channel plugin names its channel, a plugin its name), so past the bound a new set is
 * counted under OVERFLOW_LABEL in every label rather than growing the scrape without end.
 */

/** Label sets one family keeps at most; the rest are counted together under OVERFLOW_LABEL. */
export const MAX_SERIES = 1000;
/** The label value of every label of the series that gathers what MAX_SERIES left out. */
export const OVERFLOW_LABEL = "_other";

/** Prometheus's rule for metric names (no colons: those are for recording rules). */
const METRIC_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** Prometheus's rule for label names; `__` is reserved to Prometheus itself, `le` to histograms. */
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export type MetricType = "counter" | "gauge" | "histogram";

/** A series' key in its family: the label values joined by a byte no label value holds in practice. */
const keyOf = (labels: readonly string[]) => (labels.length === 1 ? (labels[0] as string) : labels.join("\u0000"));

/** One label set of a family and its value(s). */
export interface Series<V> {
  readonly labels: readonly string[];
  readonly value: V;
}

/** What a histogram series holds: counts per bucket (not cumulative), their sum and count. */
export interface HistogramValue {
  /** counts[i]: observations ≤ bounds[i] and > bounds[i - 1]; the last entry counts those above every bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** A metric family: one name, one help text, one set of label names, any number of series. */
abstract class Family<V> {
  private readonly series = new Map<string, Series<V>>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {
    if (!METRIC_NAME.test(name)) throw new Error(`metric name ${name} is not a Prometheus name`);
    for (const l of labelNames)
      if (!LABEL_NAME.test(l) || l.startsWith("__") || l === "le")
        throw new Error(`label name ${l} of ${name} is not a Prometheus label name`);
  }

  abstract readonly type: MetricType;
  protected abstract fresh(): V;

  /** The series of `labels` (one value per label name), made on first use. */
  protected at(labels: readonly string[]): Series<V> {
    if (labels.length !== this.labelNames.length)
      throw new Error(`${this.name} takes ${this.labelNames.length} labels, got ${labels.length}`);
    const key = keyOf(labels);
    const s = this.series.get(key);
    if (s) return s;
    // The overflow series itself is the one made past the bound.
    if (this.series.size >= MAX_SERIES) return this.make(this.labelNames.map(() => OVERFLOW_LABEL));
    return this.make(labels);
  }

  private make(labels: readonly string[]): Series<V> {
    const key = keyOf(labels);
    let s = this.series.get(key);
    if (!s) {
      s = { labels: [...labels], value: this.fresh() };
      this.series.set(key, s);
    }
    return s;
  }

  /** Whether the series of `labels` exists yet. */
  has(labels: readonly string[]): boolean {
    return this.series.has(keyOf(labels));
  }

  /** Every series, in the order they were made. */
  all(): Iterable<Series<V>> {
    return this.series.values();
  }

  /** Drop every series (a gauge read afresh at each scrape, for processes that may be gone). */
  clear(): void {
    this.series.clear();
  }
}

/** A count that only goes up (resets only when the daemon restarts). */
export class Counter extends Family<{ n: number }> {
  readonly type = "counter";
  protected fresh() {
    return { n: 0 };
  }

  /** Add `by` (≥ 0) to the series of `labels`. */
  inc(labels: readonly string[] = [], by = 1): void {
    if (!(by >= 0)) throw new Error(`${this.name} only goes up (inc by ${by})`);
    this.at(labels).value.n += by;
  }

  /**
   * Set the series to a total kept elsewhere that never goes down while the daemon runs (a
   * plugin's restarts in the supervisor): read at scrape time instead of counted twice.
   */
  setTotal(labels: readonly string[], total: number): void {
    this.at(labels).value.n = total;
  }

  /** Make the series of `labels` exist at 0, so a rate over it is 0 rather than no data. */
  touch(labels: readonly string[]): void {
    this.at(labels);
  }
}

/** A value that goes up and down (memory, events in the log). */
export class Gauge extends Family<{ n: number }> {
  readonly type = "gauge";
  protected fresh() {
    return { n: 0 };
  }

  set(labels: readonly string[], value: number): void {
    this.at(labels).value.n = value;
  }
}

/** Observations counted into fixed buckets, with their sum and count. */
export class Histogram extends Family<HistogramValue> {
  readonly type = "histogram";
  /** Upper bounds, ascending; +Inf is implied after the last. */
  readonly bounds: readonly number[];

  constructor(name: string, help: string, labelNames: readonly string[], bounds: readonly number[]) {
    super(name, help, labelNames);
    if (bounds.length === 0 || bounds.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= (bounds[i - 1] as number))))
      throw new Error(`${name}: bucket bounds must be finite and strictly ascending`);
    this.bounds = [...bounds];
  }

  protected fresh(): HistogramValue {
    return { counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
  }

  observe(labels: readonly string[], value: number): void {
    if (Number.isNaN(value)) return;
    const h = this.at(labels).value;
    let i = 0;
    while (i < this.bounds.length && value > (this.bounds[i] as number)) i++;
    h.counts[i] = (h.counts[i] as number) + 1;
    h.sum += value;
    h.count++;
  }

  /** Make the series of `labels` exist, every bucket at 0. */
  touch(labels: readonly string[]): void {
    this.at(labels);
  }
}

export type AnyFamily = Counter | Gauge | Histogram;

/** The families of one process, in the order they were made; `collect` hooks run before each read. */
export class MetricsRegistry {
  private readonly families: AnyFamily[] = [];
  private readonly collectors: (() => void)[] = [];

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.add(new Counter(name, help, labelNames));
  }

  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    return this.add(new Gauge(name, help, labelNames));
  }

  histogram(name: string, help: string, labelNames: readonly string[], bounds: readonly number[]): Histogram {
    return this.add(new Histogram(name, help, labelNames, bounds));
  }

  /** Run `fn` before every read: gauges of things read at scrape time (memory, the log's size). */
  onCollect(fn: () => void): void {
    this.collectors.push(fn);
  }

  /** Every family, after the collectors ran. */
  collect(): readonly AnyFamily[] {
    for (const fn of this.collectors) fn();
    return this.families;
  }

  private add<F extends AnyFamily>(f: F): F {
    if (this.families.some((g) => g.name === f.name)) throw new Error(`metric ${f.name} is registered twice`);
    this.families.push(f);
    return f;
  }
}
