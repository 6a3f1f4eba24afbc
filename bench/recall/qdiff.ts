/**
 * Development aid (not part of `make bench`): LongMemEval dev questions whose R@5 (or R@k) differs between
 * two parameter sets, e.g. `bun bench/recall/qdiff.ts user '{}' '{"prior":2}'`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { DEFAULT_PARAMS, type LexicalParams } from "../../src/memory/relevance.ts";
import { type LmeCase, lmeOps, loadLongMemEval } from "./longmemeval.ts";
import { indexedSession, recallAt } from "./harness.ts";

const roles = (process.argv[2] ?? "user") as "user" | "all";
const [a, b] = [process.argv[3] ?? "{}", process.argv[4] ?? "{}"].map(
  (j) => ({ ...DEFAULT_PARAMS, ...(JSON.parse(j) as Partial<LexicalParams>) }) as LexicalParams,
);
const questions = loadLongMemEval();
const text = new Map(questions.map((q) => [q.question_id, q.question]));
const { ops, cases } = lmeOps(questions, roles);
const { session, queries, close } = indexedSession(ops);
try {
  // HOMED_QDIFF_K=10 compares R@10 instead of R@5.
  const k = Number(process.env.HOMED_QDIFF_K ?? 5);
  const run = (p: LexicalParams) =>
    queries.map((q, i) => recallAt(session.query(q, "hybrid", p), (cases[i] as LmeCase).evidence, k));
  // HOMED_QDIFF_SAVE=file keeps the first set's results; HOMED_QDIFF_BASE=file compares them
  // with this run's first set (another lexicon, another build).
  const ra = process.env.HOMED_QDIFF_BASE
    ? (JSON.parse(readFileSync(process.env.HOMED_QDIFF_BASE, "utf8")) as number[])
    : run(a as LexicalParams);
  if (process.env.HOMED_QDIFF_SAVE) writeFileSync(process.env.HOMED_QDIFF_SAVE, JSON.stringify(ra));
  const rb = process.env.HOMED_QDIFF_BASE ? run(a as LexicalParams) : run(b as LexicalParams);
  cases.forEach((c, i) => {
    if (ra[i] !== rb[i])
      console.log(`${(ra[i] as number).toFixed(2)} → ${(rb[i] as number).toFixed(2)} ${c.type} ${text.get(c.qid)}`);
  });
} finally {
  close();
}
