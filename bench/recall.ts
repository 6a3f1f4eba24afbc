/**
 * Memory recall on the generated evaluation set (bench/recall/dataset.ts), through the same
 * interface a person would use for it: `dist/homed recall -stdio`, once per scorer.
 *   recall.r10         hybrid scorer (what the agent uses): share of questions with an evidence
 *                      turn in the top 10
 *   recall.r10_bm25    plain BM25 over words (the classic baseline)
 *   recall.r10_bm25c   BM25 over words and concepts (to show where the gain comes from)
 *   recall.r10_recent  the 10 most recent turns
 *   recall.mrr         mean reciprocal rank of the first evidence turn, hybrid
 * and the cost of scoring plus pruning a context of 10k and 100k events (prune.ms_*).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Database } from "bun:sqlite";
import { generate, type Conversation } from "./recall/dataset.ts";
import { median, report } from "./report.ts";
import { Tokenizer } from "../src/embed/tokenizer.ts";
import { LexicalIndex } from "../src/memory/lexical-index.ts";
import { rankEvents } from "../src/memory/relevance.ts";
import { prune } from "../src/memory/prune.ts";
import { MIGRATIONS } from "../src/store/migrations.ts";

const ROOT = resolve(import.meta.dir, "..");

function opsFor(data: Conversation[]): string {
  const lines: string[] = [];
  for (const c of data) {
    lines.push(JSON.stringify({ op: "reset", conv: c.conv }));
    for (const t of c.turns) lines.push(JSON.stringify({ op: "index", conv: c.conv, id: t.id, text: t.text, speaker: t.speaker, time: t.time, session: t.session, seq: t.seq }));
    lines.push(JSON.stringify({ op: "commit", conv: c.conv }));
    for (const q of c.questions) lines.push(JSON.stringify({ op: "query", conv: c.conv, qid: q.qid, text: q.text, k: 10 }));
  }
  return lines.join("\n") + "\n";
}

async function evaluate(data: Conversation[], scorer: string): Promise<{ r10: number; mrr: number; byLang: Record<string, number> }> {
  const dir = mkdtempSync(join(tmpdir(), "homed-bench-recall-"));
  try {
    const proc = Bun.spawn([join(ROOT, "dist/homed"), "recall", "-stdio", "-data", dir], {
      stdin: new TextEncoder().encode(opsFor(data)),
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, HOMED_RECALL_SCORER: scorer },
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (code !== 0 || err.trim()) throw new Error(`recall (${scorer}) failed: ${err}`);
    const answers = out.trim().split("\n").map((l) => (JSON.parse(l) as { ids: string[] }).ids);
    const questions = data.flatMap((c) => c.questions.map((q) => ({ q, lang: c.lang })));
    if (answers.length !== questions.length) throw new Error(`expected ${questions.length} answers, got ${answers.length}`);
    let hits = 0;
    let rr = 0;
    const lang: Record<string, [number, number]> = {};
    questions.forEach(({ q, lang: l }, i) => {
      const ids = answers[i] as string[];
      const rank = ids.findIndex((id) => q.evidence.includes(id));
      const hit = rank >= 0 ? 1 : 0;
      hits += hit;
      rr += rank >= 0 ? 1 / (rank + 1) : 0;
      lang[l] = [(lang[l]?.[0] ?? 0) + hit, (lang[l]?.[1] ?? 0) + 1];
    });
    return { r10: hits / questions.length, mrr: rr / questions.length, byLang: Object.fromEntries(Object.entries(lang).map(([k, [h, n]]) => [k, h / n])) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Score `n` events against an input and prune them to a budget, in process, median of 5. */
function pruneMs(n: number): number {
  const db = new Database(":memory:");
  for (const m of MIGRATIONS) db.exec(m.sql);
  const index = new LexicalIndex(db, new Tokenizer());
  const words = "garden tomato water morning city river train coffee dog music piano rain work meeting 花园 咖啡 下雨 音乐 工作 城市".split(" ");
  db.exec("BEGIN");
  const ids: number[] = [];
  for (let i = 1; i <= n; i++) {
    db.query("INSERT INTO events (id, ts, conv, kind, actor, body) VALUES (?, 0, 'p', 'x', 'u', '{}')").run(i);
    index.add(i, "p", `${words[i % words.length]} ${words[(i * 7) % words.length]} event ${i} about ${words[(i * 13) % words.length]}`);
    ids.push(i);
  }
  db.exec("COMMIT");
  const events = ids.map((id) => ({ id, tokens: 40 }));
  const runs: number[] = [];
  for (let r = 0; r < 6; r++) {
    const t0 = performance.now();
    const scored = rankEvents(index, "p", "should I water the tomatoes in the garden this morning?", { ids });
    const score = new Map(scored.map((s) => [s.id, s.score]));
    prune(events, 120_000, 10, (id) => score.get(id) ?? 0);
    if (r > 0) runs.push(performance.now() - t0);
  }
  db.close();
  return median(runs);
}

export async function benchRecall(): Promise<void> {
  const data = generate(7, 20);
  const hybrid = await evaluate(data, "hybrid");
  const bm25 = await evaluate(data, "bm25");
  const bm25c = await evaluate(data, "bm25c");
  const recent = await evaluate(data, "recent");
  report("recall.r10", hybrid.r10 * 100, "%");
  report("recall.r10_bm25", bm25.r10 * 100, "%");
  report("recall.r10_bm25c", bm25c.r10 * 100, "%");
  report("recall.r10_recent", recent.r10 * 100, "%");
  report("recall.mrr", hybrid.mrr, "", 3);
  report("recall.r10_en", (hybrid.byLang.en ?? 0) * 100, "%");
  report("recall.r10_zh", (hybrid.byLang.zh ?? 0) * 100, "%");
  report("prune.ms_10k", pruneMs(10_000), "ms");
  report("prune.ms_100k", pruneMs(100_000), "ms");
}
