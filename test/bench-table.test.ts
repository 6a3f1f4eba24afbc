/**
 * scripts/bench-table.ts: a `make bench` log read into figures, goals judged from the same log,
 * the table printed by the script run as a person runs it; and every goal of bench/goals.ts
 * names a figure the bench code can print and parses in the goal grammar.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { GOALS } from "../bench/goals.ts";
import { benchTable, type Figure, judge, parseBenchLog, parseGoal, withThousands } from "../scripts/bench-table.ts";

// Not test/harness/binary.ts: that harness needs dist/homed, and this script needs no build.
const ROOT = resolve(import.meta.dir, "..");

const LOG = [
  "$ bun bench/run.ts",
  "bench: binary.mb 177.6 MiB",
  "bench: no dist figures (run make dist first)",
  "bench: recall.lme_dev_ndcg10 0.801",
  "bench: recall.lme_dev_r5.multi-session 77.5 % (n=33, bm25 65.3 %, all turns 75.3 %)",
  "ipc.notify runs: p50 9 10 11 us; p99 50 60 70 us",
  "bench: ipc.notify.p99_us 61.8 us",
  "bench: ipc.notify.bun_p99_us 48.9 us",
  "bench: import.turns_s 13376 turns/s",
  "bench: turn.weird_ms 3.0 ms",
].join("\n");

const runOf = (figures: Figure[]) => new Map(figures.map((f) => [f.name, f]));
const fig = (name: string, printed: string, unit: string): Figure => ({ name, value: Number(printed), printed, unit });

describe("parseBenchLog", () => {
  test("reads bench lines in order, with units and notes, and skips the rest", () => {
    const figures = parseBenchLog(LOG);
    expect(figures.map((f) => f.name)).toEqual([
      "binary.mb",
      "recall.lme_dev_ndcg10",
      "recall.lme_dev_r5.multi-session",
      "ipc.notify.p99_us",
      "ipc.notify.bun_p99_us",
      "import.turns_s",
      "turn.weird_ms",
    ]);
    expect(figures[0]).toEqual({ name: "binary.mb", value: 177.6, printed: "177.6", unit: "MiB" });
    expect(figures[1]).toEqual({ name: "recall.lme_dev_ndcg10", value: 0.801, printed: "0.801", unit: "" });
    expect(figures[2]?.unit).toBe("% (n=33, bm25 65.3 %, all turns 75.3 %)");
  });
});

describe("judge", () => {
  test("a fixed goal with the figure's unit: met and not met", () => {
    const run = runOf([]);
    expect(judge("≤ 185 MiB", fig("binary.mb", "177.6", "MiB"), run)).toBe("yes");
    expect(judge("≤ 185 MiB", fig("binary.mb", "190.8", "MiB"), run)).toBe("no");
    expect(judge("≥ 2,000 turns/s", fig("import.turns_s", "1999", "turns/s"), run)).toBe("no");
    expect(judge("= 100 %", fig("recall.live_equals_stdio", "100.0", "% (differ: )"), run)).toBe("yes");
  });

  test("a unit that is not the figure's, or a goal outside the grammar, is not judged", () => {
    const run = runOf([]);
    expect(judge("≤ 185 MB", fig("binary.mb", "177.6", "MiB"), run)).toBe("—");
    expect(judge("small", fig("binary.mb", "177.6", "MiB"), run)).toBe("—");
    // A goal without a unit compares the bare number; `us` and `µs` are one unit.
    expect(judge("≤ 12", fig("cost.tools_offered_plain", "13", "tools"), run)).toBe("no");
    expect(judge("≤ 50 µs", fig("ipc.notify.p99_us", "49.9", "us"), run)).toBe("yes");
  });

  test("a goal relative to another figure of the same run", () => {
    const p99 = fig("ipc.notify.p99_us", "61.8", "us");
    const goal = "≤ 1.3 × ipc.notify.bun_p99_us";
    expect(judge(goal, p99, runOf([p99, fig("ipc.notify.bun_p99_us", "48.9", "us")]))).toBe("yes");
    expect(judge(goal, p99, runOf([p99, fig("ipc.notify.bun_p99_us", "40.0", "us")]))).toBe("no");
    expect(judge(goal, p99, runOf([p99]))).toBe("—");
    expect(judge(goal, p99, runOf([p99, fig("ipc.notify.bun_p99_us", "48.9", "ms")]))).toBe("—");
    const r10 = fig("recall.r10", "28.0", "%");
    expect(judge("≥ recall.r10_bm25 + 5", r10, runOf([fig("recall.r10_bm25", "23.0", "%")]))).toBe("yes");
    expect(judge("≥ recall.r10_bm25 + 5", r10, runOf([fig("recall.r10_bm25", "23.1", "%")]))).toBe("no");
    const shown = fig("cost.cached_tokens_reported", "1536", "tokens");
    const sent = fig("cost.cached_tokens_provider", "1536", "tokens");
    expect(judge("= cost.cached_tokens_provider", shown, runOf([sent]))).toBe("yes");
  });
});

describe("parseGoal and withThousands", () => {
  test("parses both operand forms", () => {
    expect(parseGoal("≥ 10,000")).toEqual({ op: "≥", kind: "fixed", number: 10000 });
    expect(parseGoal("≤ 1.3 × ipc.notify.bun_p99_us")).toEqual({
      op: "≤",
      kind: "relative",
      factor: 1.3,
      figure: "ipc.notify.bun_p99_us",
      offset: 0,
    });
    expect(parseGoal("≤ idle")).toBeUndefined();
  });

  test("groups thousands and keeps the printed digits", () => {
    expect(withThousands("13376")).toBe("13,376");
    expect(withThousands("10169.2")).toBe("10,169.2");
    expect(withThousands("3649760")).toBe("3,649,760");
    expect(withThousands("999.50")).toBe("999.50");
    expect(withThousands("-1234")).toBe("-1,234");
  });
});

describe("benchTable", () => {
  test("one row per figure in the printed order; a figure with no goal gets dashes", () => {
    const { text, unprinted } = benchTable(LOG, "2026-12-05");
    const lines = text.split("\n");
    expect(lines[0]).toBe("Run: 2026-12-05, command: `make bench`");
    expect(lines[2]).toBe("| figure | value | goal | met |");
    expect(lines.slice(4).map((l) => l.split(" | ")[0])).toEqual(parseBenchLog(LOG).map((f) => `| \`${f.name}\``));
    expect(text).toContain("| `binary.mb` | 177.6 MiB | ≤ 185 MiB (issue 30) | yes |");
    expect(text).toContain("| `import.turns_s` | 13,376 turns/s | ≥ 2,000 turns/s (issue 29) | yes |");
    expect(text).toContain("| `ipc.notify.p99_us` | 61.8 us | ≤ 1.3 × ipc.notify.bun_p99_us (issue 31) | yes |");
    expect(text).toContain("| `turn.weird_ms` | 3.0 ms | — | — |");
    expect(unprinted).toContain("turn.overhead_ms");
    expect(unprinted).not.toContain("binary.mb");
  });

  test("the script reads stdin, prints the table, and names on stderr the goals the log lacks", async () => {
    await using proc = Bun.spawn([process.execPath, join(ROOT, "scripts/bench-table.ts"), "-", "2026-12-05"], {
      stdin: new TextEncoder().encode(LOG),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    expect(exitCode).toBe(0);
    expect(stdout.split("\n")[0]).toBe("Run: 2026-12-05, command: `make bench`");
    expect(stdout).toContain("| `binary.mb` | 177.6 MiB | ≤ 185 MiB (issue 30) | yes |");
    expect(stderr).toMatch(/^bench-table: no figure in this log for \d+ goals: .*\bturn\.overhead_ms\b/);
  });
});

/** Figure names the bench code can print: report() names (templates as patterns) and name-shaped literals. */
function printableNames(): { names: Set<string>; patterns: RegExp[] } {
  const names = new Set<string>();
  const patterns: RegExp[] = [];
  const dir = join(ROOT, "bench");
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter(
    (f) => f.endsWith(".ts") && f !== "goals.ts" && !f.startsWith("data"),
  );
  for (const f of files) {
    const src = readFileSync(join(dir, f), "utf8");
    for (const m of src.matchAll(/"([a-z0-9_]+\.[a-z0-9_.-]+)"/g)) names.add(m[1] as string);
    for (const m of src.matchAll(/report\(\s*`([^`]+)`/g)) {
      const escaped = (m[1] as string).split(/\$\{[^}]*\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
      patterns.push(new RegExp(`^${escaped.join("[a-z0-9_-]*")}$`));
    }
  }
  return { names, patterns };
}

describe("bench/goals.ts", () => {
  const { names, patterns } = printableNames();
  const printable = (name: string) => names.has(name) || patterns.some((p) => p.test(name));

  test("the scan finds the bench's names, static and built", () => {
    expect(printable("turn.overhead_ms")).toBe(true);
    expect(printable("security.guesses_before_429.a2a")).toBe(true);
    expect(printable("turn.overhead_msx")).toBe(false);
  });

  test("every goal is on a figure the bench prints, and parses; a relative goal's other figure too", () => {
    for (const [name, { goal }] of Object.entries(GOALS)) {
      expect({ name, printable: printable(name) }).toEqual({ name, printable: true });
      const g = parseGoal(goal);
      expect({ name, parsed: g !== undefined }).toEqual({ name, parsed: true });
      if (g?.kind === "relative") expect({ name, other: printable(g.figure) }).toEqual({ name, other: true });
    }
  });
});
