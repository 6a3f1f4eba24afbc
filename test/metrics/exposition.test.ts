/**
 * The metrics registry and Prometheus's text format (src/metrics): escaping, histogram buckets,
 * values, the bound on label sets, and a body promtool (Debian's prometheus package) reads
 * without a word. The daemon's own series are test/web/metrics.test.ts's.
 */
import { describe, expect, test } from "bun:test";
import { escapeHelp, escapeLabelValue, formatValue, renderText } from "../../src/metrics/exposition.ts";
import { MAX_SERIES, MetricsRegistry, OVERFLOW_LABEL } from "../../src/metrics/registry.ts";
import { promtoolCheck } from "../harness/promtool.ts";
import { methodFacility, PluginMethod } from "../../src/protocol/plugin.ts";

/** promtool's verdict on a body: what it printed and its exit status. */
async function promtool(body: string): Promise<{ out: string; code: number }> {
  const r = await promtoolCheck(body);
  return { out: r.out + r.err, code: r.code };
}

describe("the text format", () => {
  test("help escapes backslash and newline; label values escape backslash, quote and newline", () => {
    expect(escapeHelp('a \\ b\nc "d"')).toBe('a \\\\ b\\nc "d"');
    expect(escapeLabelValue('a \\ b\nc "d"')).toBe('a \\\\ b\\nc \\"d\\"');
    const r = new MetricsRegistry();
    r.counter("t_total", "Lines\nand \\ slashes.", ["channel"]).inc(['say "hi"\\\n'], 2);
    expect(renderText(r.collect())).toBe(
      [
        "# HELP t_total Lines\\nand \\\\ slashes.",
        "# TYPE t_total counter",
        't_total{channel="say \\"hi\\"\\\\\\n"} 2',
        "",
      ].join("\n"),
    );
  });

  test("values as Prometheus writes them", () => {
    expect(formatValue(3)).toBe("3");
    expect(formatValue(0.25)).toBe("0.25");
    expect(formatValue(1e21)).toBe("1e+21");
    expect(formatValue(Number.NaN)).toBe("NaN");
    expect(formatValue(Number.POSITIVE_INFINITY)).toBe("+Inf");
    expect(formatValue(Number.NEGATIVE_INFINITY)).toBe("-Inf");
  });

  test("a histogram's buckets are cumulative, a value on a bound is in its bucket, +Inf is the count", () => {
    const r = new MetricsRegistry();
    const h = r.histogram("w_seconds", "Waits.", ["part"], [0.1, 1, 10]);
    for (const x of [0.05, 0.1, 0.5, 1, 30]) h.observe(["a"], x);
    h.touch(["b"]);
    expect(renderText(r.collect())).toBe(
      [
        "# HELP w_seconds Waits.",
        "# TYPE w_seconds histogram",
        'w_seconds_bucket{part="a",le="0.1"} 2',
        'w_seconds_bucket{part="a",le="1"} 4',
        'w_seconds_bucket{part="a",le="10"} 4',
        'w_seconds_bucket{part="a",le="+Inf"} 5',
        'w_seconds_sum{part="a"} 31.65',
        'w_seconds_count{part="a"} 5',
        'w_seconds_bucket{part="b",le="0.1"} 0',
        'w_seconds_bucket{part="b",le="1"} 0',
        'w_seconds_bucket{part="b",le="10"} 0',
        'w_seconds_bucket{part="b",le="+Inf"} 0',
        'w_seconds_sum{part="b"} 0',
        'w_seconds_count{part="b"} 0',
        "",
      ].join("\n"),
    );
  });

  test("collectors run before each read; a gauge cleared there shows only what is still there", () => {
    const r = new MetricsRegistry();
    const g = r.gauge("m_bytes", "Memory.", ["name"]);
    let alive = ["a", "b"];
    r.onCollect(() => {
      g.clear();
      for (const n of alive) g.set([n], n.length);
    });
    expect(renderText(r.collect())).toContain('m_bytes{name="b"} 1');
    alive = ["a"];
    expect(renderText(r.collect())).not.toContain('name="b"');
  });
});

describe("the registry", () => {
  test("names, labels and counters are held to Prometheus's rules", () => {
    const r = new MetricsRegistry();
    expect(() => r.counter("bad-name_total", "x")).toThrow("not a Prometheus name");
    expect(() => r.counter("x_total", "x", ["le"])).toThrow("not a Prometheus label name");
    expect(() => r.counter("y_total", "x", ["__reserved"])).toThrow("not a Prometheus label name");
    expect(() => r.histogram("h_seconds", "x", [], [1, 1])).toThrow("strictly ascending");
    const c = r.counter("c_total", "x", ["a"]);
    expect(() => c.inc(["v"], -1)).toThrow("only goes up");
    expect(() => c.inc([])).toThrow("takes 1 labels");
    expect(() => r.gauge("c_total", "again")).toThrow("registered twice");
  });

  test(`past ${MAX_SERIES} label sets a family counts the rest under ${OVERFLOW_LABEL}`, () => {
    const r = new MetricsRegistry();
    const c = r.counter("turns_total", "x", ["channel", "outcome"]);
    for (let i = 0; i < MAX_SERIES + 5; i++) c.inc([`ch${i}`, "done"]);
    const lines = renderText(r.collect())
      .split("\n")
      .filter((l) => l.startsWith("turns_total"));
    expect(lines.length).toBe(MAX_SERIES + 1);
    expect(lines.at(-1)).toBe(`turns_total{channel="${OVERFLOW_LABEL}",outcome="${OVERFLOW_LABEL}"} 5`);
  });

  test("promtool reads a body of every kind, escapes and an empty family included, without a word", async () => {
    const r = new MetricsRegistry();
    r.counter("homed_things_total", 'Things\nwith "quotes" and \\.', ["name"]).inc(['a "b"\\\nc']);
    r.gauge("homed_size_bytes", "Size.").set([], 1.5e9);
    r.histogram("homed_wait_seconds", "Wait.", ["part"], [0.001, 0.5, 60]).observe(["x"], 0.2);
    r.histogram("homed_unused_seconds", "Never observed.", ["part"], [1]);
    expect(await promtool(renderText(r.collect()))).toEqual({ out: "", code: 0 });
    // And it does say something when a name breaks its rules: the check can fail.
    const bad = new MetricsRegistry();
    bad.counter("homed_things", "No _total.").inc();
    expect((await promtool(renderText(bad.collect()))).out).toContain('should have "_total" suffix');
  });
});

test("kernel/metrics is no method an external plugin may call, whatever it requires", () => {
  expect(methodFacility(PluginMethod.KernelMetrics)).toBeNull();
});
