/**
 * Runs recall ops (src/protocol/recall.ts) and returns one answer per query: in process through
 * the same RecallSession the CLI uses (fast iteration), or through `dist/homed recall -stdio`
 * exactly as an outside harness would (the figures `make bench` prints).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { RecallOp } from "../../src/protocol/recall.ts";
import { Store } from "../../src/store/store.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { RecallSession } from "../../src/memory/recall-session.ts";
import type { ScorerName } from "../../src/memory/relevance.ts";

const ROOT = resolve(import.meta.dir, "../..");

export type Answers = (string | number)[][];

export function runInProcess(ops: readonly RecallOp[], scorer: ScorerName): Answers {
  const dir = mkdtempSync(join(tmpdir(), "homed-bench-recall-"));
  const store = Store.open(join(dir, "homed.db"));
  try {
    const session = new RecallSession(store, new Tokenizer(), scorer);
    const out: Answers = [];
    for (const op of ops) {
      const ids = session.handle(op);
      if (ids) out.push(ids);
    }
    session.commit();
    return out;
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A RecallSession in a fresh data dir with every op but the queries applied, and the queries in
 * order, for development loops that ask the same indexed turns under several parameter sets.
 * `close()` removes the data dir.
 */
export function indexedSession(ops: readonly RecallOp[]): {
  session: RecallSession;
  queries: Extract<RecallOp, { op: "query" }>[];
  close(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), "homed-bench-recall-"));
  const store = Store.open(join(dir, "homed.db"));
  const session = new RecallSession(store, new Tokenizer());
  const queries: Extract<RecallOp, { op: "query" }>[] = [];
  for (const op of ops) {
    if (op.op === "query") queries.push(op);
    else session.handle(op);
  }
  session.commit();
  return {
    session,
    queries,
    close() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function runBinary(ops: readonly RecallOp[], scorer: ScorerName): Promise<Answers> {
  const dir = mkdtempSync(join(tmpdir(), "homed-bench-recall-"));
  try {
    const proc = Bun.spawn([join(ROOT, "dist/homed"), "recall", "-stdio", "-data", dir], {
      stdin: new TextEncoder().encode(`${ops.map((o) => JSON.stringify(o)).join("\n")}\n`),
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, HOMED_RECALL_SCORER: scorer },
    });
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    if (code !== 0 || err.trim()) throw new Error(`recall (${scorer}) failed: ${err}`);
    return out
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { ids: (string | number)[] }).ids);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Share of `evidence` in the first `k` of `ids`. */
export function recallAt(ids: readonly (string | number)[], evidence: readonly (string | number)[], k: number): number {
  const top = new Set(ids.slice(0, k));
  return evidence.filter((e) => top.has(e)).length / evidence.length;
}

/** NDCG@k with binary relevance. */
export function ndcgAt(ids: readonly (string | number)[], evidence: readonly (string | number)[], k: number): number {
  const rel = new Set(evidence);
  let dcg = 0;
  ids.slice(0, k).forEach((id, i) => {
    if (rel.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, rel.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal > 0 ? dcg / ideal : 0;
}
