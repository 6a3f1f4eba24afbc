/**
 * Prometheus's text exposition format, version 0.0.4 (what `promtool check metrics` and every
 * Prometheus server read): per family a `# HELP` and a `# TYPE` line, then its samples
 * `name{label="value",…} value`. Help text escapes backslash and newline; label values escape
 * backslash, double quote and newline. A histogram is its cumulative `_bucket` series, each
 * with `le` (the bound; the last is `+Inf` and equals `_count`), then `_sum` and `_count`.
 */
import type { AnyFamily, HistogramValue } from "./registry.ts";

/** A sample value or bucket bound as Prometheus writes it: Go's float syntax, `+Inf`, `-Inf`, `NaN`. */
export function formatValue(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Number.POSITIVE_INFINITY) return "+Inf";
  if (n === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(n);
}

/** A help text on one line: `\` → `\\`, newline → `\n`. */
export function escapeHelp(text: string): string {
  return text.replaceAll("\\", "\\\\").replaceAll("\n", "\\n");
}

/** A label value inside its double quotes: `\` → `\\`, `"` → `\"`, newline → `\n`. */
export function escapeLabelValue(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

/** `{a="x",b="y"}` for the names and values given, or "" when there are none. */
function labelText(names: readonly string[], values: readonly string[], extra?: [string, string]): string {
  const parts = names.map((n, i) => `${n}="${escapeLabelValue(values[i] ?? "")}"`);
  if (extra) parts.push(`${extra[0]}="${escapeLabelValue(extra[1])}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
}

function histogramLines(
  out: string[],
  name: string,
  names: readonly string[],
  labels: readonly string[],
  bounds: readonly number[],
  h: HistogramValue,
): void {
  let cumulative = 0;
  for (let i = 0; i < bounds.length; i++) {
    cumulative += h.counts[i] as number;
    out.push(`${name}_bucket${labelText(names, labels, ["le", formatValue(bounds[i] as number)])} ${cumulative}`);
  }
  out.push(`${name}_bucket${labelText(names, labels, ["le", "+Inf"])} ${h.count}`);
  out.push(`${name}_sum${labelText(names, labels)} ${formatValue(h.sum)}`);
  out.push(`${name}_count${labelText(names, labels)} ${h.count}`);
}

/** The families as one scrape's body (ends with a newline, as the format asks). */
export function renderText(families: readonly AnyFamily[]): string {
  const out: string[] = [];
  for (const f of families) {
    out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    if (f.type === "histogram") {
      for (const s of f.all()) histogramLines(out, f.name, f.labelNames, s.labels, f.bounds, s.value);
    } else {
      for (const s of f.all()) out.push(`${f.name}${labelText(f.labelNames, s.labels)} ${formatValue(s.value.n)}`);
    }
  }
  return `${out.join("\n")}\n`;
}
