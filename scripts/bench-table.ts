/**
 * `bun scripts/bench-table.ts [LOG|-] [DATE]`: the table docs/BENCHMARKS.md opens with, from a
 * `make bench` log (a file, or standard input when LOG is absent or `-`). One row per figure in
 * the order the run printed them: its value, its goal from bench/goals.ts and whether the run met
 * it. DATE (default today) names the run in the line above the table. Goals the log has no
 * figure for are listed on stderr: a goal whose figure was renamed or dropped should be seen.
 */
import { readFileSync } from "node:fs";
import { GOALS } from "../bench/goals.ts";

/** One `bench: NAME VALUE UNIT` line. */
export interface Figure {
  name: string;
  value: number;
  /** The value as printed, its digits kept. */
  printed: string;
  /** Everything after the value: the unit, sometimes followed by a note in parentheses. */
  unit: string;
}

export type Verdict = "yes" | "no" | "—";

type Op = "≤" | "≥" | "=" | "<" | ">";

/** A goal of bench/goals.ts's grammar: the figure `op` a fixed number, or `op` factor × other + offset. */
export type ParsedGoal =
  | { op: Op; kind: "fixed"; number: number; unit?: string }
  | { op: Op; kind: "relative"; factor: number; figure: string; offset: number };

const LINE = /^\s*bench: (\S+) (-?\d+(?:\.\d+)?)(?: (.*))?$/;

/** The figures of a bench log, in order; other lines (stderr notes, make's echo) are skipped. */
export function parseBenchLog(text: string): Figure[] {
  const figures: Figure[] = [];
  for (const line of text.split("\n")) {
    const m = LINE.exec(line);
    if (!m) continue;
    const [, name, printed, unit] = m as unknown as [string, string, string, string | undefined];
    figures.push({ name, value: Number(printed), printed, unit: (unit ?? "").trim() });
  }
  return figures;
}

const NUMBER = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`;
const FIXED = new RegExp(String.raw`^(${NUMBER})(?:\s+(\S+))?$`);
const RELATIVE = new RegExp(String.raw`^(?:(${NUMBER})\s*×\s*)?([a-z][a-z0-9_.-]*)(?:\s*\+\s*(${NUMBER}))?$`);

const toNumber = (s: string) => Number(s.replaceAll(",", ""));

/** Units as the bench prints them and as goals write them, made one spelling. */
function normUnit(unit: string): string {
  const u = unit.split(/\s/)[0] ?? "";
  return u === "us" ? "µs" : u === "x" ? "×" : u;
}

/** A goal string of bench/goals.ts, or undefined when it is outside the grammar. */
export function parseGoal(goal: string): ParsedGoal | undefined {
  const m = /^(≤|≥|=|<|>)\s*(.+)$/.exec(goal.trim());
  if (!m) return undefined;
  const op = m[1] as Op;
  const operand = (m[2] as string).trim();
  const fixed = FIXED.exec(operand);
  if (fixed) {
    const unit = fixed[2];
    return unit === undefined
      ? { op, kind: "fixed", number: toNumber(fixed[1] as string) }
      : { op, kind: "fixed", number: toNumber(fixed[1] as string), unit: normUnit(unit) };
  }
  const rel = RELATIVE.exec(operand);
  if (rel?.[2]?.includes("."))
    return {
      op,
      kind: "relative",
      factor: rel[1] ? toNumber(rel[1]) : 1,
      figure: rel[2],
      offset: rel[3] ? toNumber(rel[3]) : 0,
    };
  return undefined;
}

function compare(op: Op, a: number, b: number): boolean {
  switch (op) {
    case "≤":
      return a <= b;
    case "≥":
      return a >= b;
    case "=":
      return a === b;
    case "<":
      return a < b;
    case ">":
      return a > b;
  }
}

/**
 * Whether `figure` meets `goal`, another figure of a relative goal taken from `run` (the same
 * log). "—" when the goal is outside the grammar, its unit is not the figure's, or the other
 * figure is missing or printed in another unit: a verdict is never guessed.
 */
export function judge(goal: string, figure: Figure, run: ReadonlyMap<string, Figure>): Verdict {
  const g = parseGoal(goal);
  if (!g) return "—";
  let bound: number;
  if (g.kind === "fixed") {
    if (g.unit !== undefined && g.unit !== normUnit(figure.unit)) return "—";
    bound = g.number;
  } else {
    const other = run.get(g.figure);
    if (!other || normUnit(other.unit) !== normUnit(figure.unit)) return "—";
    // toPrecision clears float noise (1.3 × 47 is 61.100000000000001), which would decide "≤".
    bound = Number((g.factor * other.value + g.offset).toPrecision(12));
  }
  return compare(g.op, figure.value, bound) ? "yes" : "no";
}

/** "10249" → "10,249", "10169.2" → "10,169.2"; the printed digits are kept. */
export function withThousands(printed: string): string {
  const [whole = "", fraction] = printed.split(".");
  const sign = whole.startsWith("-") ? "-" : "";
  const digits = whole.replace("-", "");
  const grouped = digits.length > 3 ? digits.replace(/\B(?=(\d{3})+$)/g, ",") : digits;
  return sign + grouped + (fraction === undefined ? "" : `.${fraction}`);
}

const cell = (s: string) => s.replaceAll("|", "\\|");

export interface BenchTable {
  /** The markdown: the run line, a blank line, the table. */
  text: string;
  /** Names in GOALS with no figure in the log. */
  unprinted: string[];
  /** Names printed more than once (the last value is shown). */
  repeated: string[];
}

/** The table of one run's log; `goals` defaults to bench/goals.ts. */
export function benchTable(log: string, date: string, goals = GOALS): BenchTable {
  const run = new Map<string, Figure>();
  const repeated: string[] = [];
  for (const f of parseBenchLog(log)) {
    if (run.has(f.name)) repeated.push(f.name);
    run.set(f.name, f);
  }
  const rows = [...run.values()].map((f) => {
    const goal = goals[f.name];
    const value = `${withThousands(f.printed)} ${f.unit}`.trim();
    const goalCell = goal ? `${goal.goal} (${goal.source})` : "—";
    const met = goal ? judge(goal.goal, f, run) : "—";
    return `| \`${f.name}\` | ${cell(value)} | ${cell(goalCell)} | ${met} |`;
  });
  const text = [
    `Run: ${date}, command: \`make bench\``,
    "",
    "| figure | value | goal | met |",
    "|---|---|---|---|",
    ...rows,
  ].join("\n");
  const unprinted = Object.keys(goals).filter((name) => !run.has(name));
  return { text, unprinted, repeated };
}

if (import.meta.main) {
  const [path, dateArg] = process.argv.slice(2);
  const log = path === undefined || path === "-" ? await Bun.stdin.text() : readFileSync(path, "utf8");
  const date = dateArg ?? new Date().toISOString().slice(0, 10);
  const table = benchTable(log, date);
  if (table.unprinted.length)
    console.error(
      `bench-table: no figure in this log for ${table.unprinted.length} goals: ${table.unprinted.join(" ")}`,
    );
  if (table.repeated.length) console.error(`bench-table: printed more than once: ${table.repeated.join(" ")}`);
  console.log(table.text);
}
