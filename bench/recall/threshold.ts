/**
 * Where cold recall's score cut should sit, measured: every turn of every question of the real
 * sets scored against the question exactly as context assembly scores it (the default scorer,
 * normalised to the conversation's best), and per score band the share of turns that are
 * evidence. A turn above the cut enters context before recent turns do, so the cut belongs
 * where a turn's chance of being evidence falls to what an arbitrary turn's is.
 *
 *   bun bench/recall/threshold.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RecallOp } from "../../src/protocol/recall.ts";
import { Store } from "../../src/store/store.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { RecallSession } from "../../src/memory/recall-session.ts";
import { parseTime } from "../../src/memory/time.ts";
import { chatSet } from "./chat.ts";
import { lmeOps, loadLongMemEval } from "./longmemeval.ts";

const BANDS = [0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.7, 1.01];

interface Tally {
  /** Per band: turns, evidence turns. */
  turns: number[];
  evidence: number[];
  all: number;
  allEvidence: number;
  zeroEvidence: number;
}

/** Scores of every turn for each query of `ops`, tallied against `evidence` (one list per query). */
function tally(ops: readonly RecallOp[], evidence: readonly (readonly (string | number)[])[]): Tally {
  const dir = mkdtempSync(join(tmpdir(), "homed-bench-cut-"));
  const store = Store.open(join(dir, "homed.db"));
  const t: Tally = { turns: BANDS.map(() => 0), evidence: BANDS.map(() => 0), all: 0, allEvidence: 0, zeroEvidence: 0 };
  try {
    const session = new RecallSession(store, new Tokenizer());
    let q = 0;
    for (const op of ops) {
      if (op.op !== "query") {
        session.handle(op);
        continue;
      }
      session.commit();
      const refs = session.refsOf(op.conv);
      const ev = new Set((evidence[q++] ?? []).map(String));
      const scope = { kind: "conversation", conv: op.conv } as const;
      const scored = new Map(
        session.memory
          .search(scope, op.text, { limit: refs.size, time: parseTime(op.time) })
          .map((x) => [x.id, x.score]),
      );
      const s = { ids: [...refs.keys()], userIds: refs };
      for (const id of s.ids) {
        const score = scored.get(id) ?? 0;
        const isEv = ev.has(String(s.userIds.get(id)));
        t.all++;
        if (isEv) t.allEvidence++;
        if (score === 0) {
          if (isEv) t.zeroEvidence++;
          continue;
        }
        const b = BANDS.findIndex((lo, i) => score >= lo && score < (BANDS[i + 1] ?? 2));
        t.turns[b] = (t.turns[b] ?? 0) + 1;
        if (isEv) t.evidence[b] = (t.evidence[b] ?? 0) + 1;
      }
    }
    session.commit();
    return t;
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function print(name: string, t: Tally): void {
  const base = t.allEvidence / t.all;
  console.log(
    `${name}: ${t.all} turns scored, ${t.allEvidence} evidence (base rate ${(base * 100).toFixed(2)} %), ${t.zeroEvidence} evidence scoring 0`,
  );
  console.log("  band         turns  evidence  P(evidence)  × base  evidence at or above band");
  let above = t.allEvidence - t.zeroEvidence;
  for (let b = 0; b < BANDS.length - 1; b++) {
    const n = t.turns[b] ?? 0;
    const e = t.evidence[b] ?? 0;
    const p = n ? e / n : 0;
    console.log(
      `  ${BANDS[b]?.toFixed(2)}–${Math.min(1, BANDS[b + 1] ?? 1).toFixed(2)}  ${String(n).padStart(7)}  ${String(e).padStart(8)}  ${(p * 100).toFixed(2).padStart(9)} %  ${(p / base).toFixed(1).padStart(6)}  ${((above / t.allEvidence) * 100).toFixed(1).padStart(6)} %`,
    );
    above -= e;
  }
}

if (import.meta.main) {
  const questions = loadLongMemEval();
  for (const roles of ["user", "all"] as const) {
    const { ops, cases } = lmeOps(questions, roles);
    print(
      `LongMemEval_S dev, ${roles} turns`,
      tally(
        ops,
        cases.map((c) => c.evidence),
      ),
    );
  }
  const chat = chatSet();
  for (const lang of ["en", "zh"]) {
    // Only this language's conversations: drop the others' ops and cases.
    const queries = chat.ops.filter((o) => o.op === "query");
    const convs = new Set(queries.filter((_, i) => chat.cases[i]?.lang === lang).map((o) => o.conv));
    const ops = chat.ops.filter((o) => convs.has(o.conv));
    print(
      `chat set, ${lang}`,
      tally(
        ops,
        chat.cases.filter((c) => c.lang === lang).map((c) => c.evidence),
      ),
    );
  }
}
