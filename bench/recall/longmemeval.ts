/**
 * LongMemEval_S development quarter (bench/data/longmemeval-s-dev, MIT): 125 questions, each its
 * own memory of ~490 turns. Evaluated as upstream evaluates turn retrieval: index the haystack's
 * turns (user turns only, the figure that decides; or all turns), evidence = the indexed turns
 * with `has_answer`, `_abs` questions and questions without indexed evidence skipped; R@k is the
 * share of a question's evidence in the top k, averaged.
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import type { RecallOp } from "../../src/protocol/recall.ts";
import { ndcgAt, recallAt, type Answers } from "./harness.ts";

export const LME_DEV = resolve(import.meta.dir, "../data/longmemeval-s-dev/longmemeval_s_dev.jsonl.xz");

interface LmeTurn {
  role: "user" | "assistant";
  content: string;
  has_answer?: boolean;
}

export interface LmeQuestion {
  question_id: string;
  question_type: string;
  question: string;
  question_date: string;
  haystack_session_ids: string[];
  haystack_dates: string[];
  haystack_sessions: LmeTurn[][];
}

export function loadLongMemEval(path = LME_DEV): LmeQuestion[] {
  const r = spawnSync("xz", ["-dc", path], { maxBuffer: 1 << 30, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`xz -dc ${path}: ${r.stderr}`);
  return r.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LmeQuestion);
}

export interface LmeCase {
  qid: string;
  type: string;
  evidence: string[];
}

/** Ops for `questions` (each its own conv) and the cases they are judged on, in query order. */
export function lmeOps(
  questions: readonly LmeQuestion[],
  roles: "user" | "all",
): { ops: RecallOp[]; cases: LmeCase[] } {
  const ops: RecallOp[] = [];
  const cases: LmeCase[] = [];
  for (const q of questions) {
    if (q.question_id.endsWith("_abs")) continue;
    const evidence: string[] = [];
    const conv = q.question_id;
    const turnOps: RecallOp[] = [];
    q.haystack_sessions.forEach((session, si) => {
      session.forEach((t, ti) => {
        if (roles === "user" && t.role !== "user") return;
        const id = `${si}:${ti}`;
        if (t.has_answer) evidence.push(id);
        turnOps.push({
          op: "index",
          conv,
          id,
          text: t.content,
          speaker: t.role,
          time: q.haystack_dates[si],
          session: q.haystack_session_ids[si],
          seq: ti,
        });
      });
    });
    if (evidence.length === 0) continue;
    ops.push(
      { op: "reset", conv },
      ...turnOps,
      { op: "commit", conv },
      { op: "query", conv, qid: q.question_id, text: q.question, k: 10, time: q.question_date },
    );
    cases.push({ qid: q.question_id, type: q.question_type, evidence });
  }
  return { ops, cases };
}

export interface LmeScore {
  r5: number;
  r10: number;
  ndcg10: number;
  n: number;
  byType: Record<string, { r5: number; n: number }>;
  perQuestion: number[];
}

export function scoreLme(cases: readonly LmeCase[], answers: Answers): LmeScore {
  if (answers.length !== cases.length) throw new Error(`expected ${cases.length} answers, got ${answers.length}`);
  let r5 = 0;
  let r10 = 0;
  let ndcg = 0;
  const byType: Record<string, { r5: number; n: number }> = {};
  const perQuestion: number[] = [];
  cases.forEach((c, i) => {
    const ids = answers[i] as (string | number)[];
    const x = recallAt(ids, c.evidence, 5);
    perQuestion.push(x);
    r5 += x;
    r10 += recallAt(ids, c.evidence, 10);
    ndcg += ndcgAt(ids, c.evidence, 10);
    const t = byType[c.type] ?? { r5: 0, n: 0 };
    byType[c.type] = t;
    t.r5 += x;
    t.n++;
  });
  for (const t of Object.values(byType)) t.r5 /= t.n;
  const n = cases.length;
  return { r5: r5 / n, r10: r10 / n, ndcg10: ndcg / n, n, byType, perQuestion };
}
