/**
 * Development aid (not part of `make bench`): LoCoMo dev questions whose R@10 differs between two
 * parameter sets, with their conversation and category, e.g.
 * `bun bench/recall/locomo-diff.ts '{}' '{"neighbours":0.3}'` (HOMED_QDIFF_K=5 compares R@5).
 * Reads the set from ../shared/data like tune.ts; prints nothing of it but the questions that moved.
 */
import { DEFAULT_PARAMS, type LexicalParams } from "../../src/memory/relevance.ts";
import { indexedSession, recallAt } from "./harness.ts";
import { loadLocomo, locomoOps } from "./locomo.ts";

const [a, b] = [process.argv[2] ?? "{}", process.argv[3] ?? "{}"].map(
  (j) => ({ ...DEFAULT_PARAMS, ...(JSON.parse(j) as Partial<LexicalParams>) }) as LexicalParams,
);
const data = loadLocomo();
if (!data) throw new Error("../shared/data/locomo-dev is not beside this checkout");
const { ops, cases } = locomoOps(data);
const { session, queries, close } = indexedSession(ops);
try {
  const k = Number(process.env.HOMED_QDIFF_K ?? 10);
  const run = (p: LexicalParams) =>
    queries.map((q, i) => recallAt(session.query(q, "hybrid", p), cases[i]?.evidence ?? [], k));
  const ra = run(a as LexicalParams);
  const rb = run(b as LexicalParams);
  let up = 0;
  let down = 0;
  cases.forEach((c, i) => {
    const x = ra[i] as number;
    const y = rb[i] as number;
    if (x === y) return;
    if (y > x) up++;
    else down++;
    console.log(`${x.toFixed(2)} → ${y.toFixed(2)} ${c.conv} c${c.category} ${c.question}`);
  });
  console.log(`${up} up, ${down} down`);
} finally {
  close();
}
