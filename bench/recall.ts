/**
 * Memory recall, through the interface an outside harness uses (`dist/homed recall -stdio`,
 * each conversation its own memory, a fresh data dir per run), on three sets:
 *   recall.lme_dev_r5        LongMemEval_S dev quarter (bench/data, MIT), user turns indexed,
 *                            default scorer: share of a question's evidence turns in the top 5
 *                            (the figure that decides; per question type below it)
 *   recall.lme_dev_r5_all    the same with every turn indexed
 *   recall.live_equals_stdio 20 of those questions imported with `homed import` into a running
 *                            daemon and asked through memory.search, against homed recall
 *                            --stdio: share with the same ordered top 10 (bench/recall/live.ts)
 *   recall.lme_dev_r5_bm25   plain BM25 over words, user turns (and _all_bm25)
 *   recall.locomo_dev_r10    the LoCoMo dev conversations (../shared/data/locomo-dev, read from
 *                            there): R@10 of every turn indexed, and its plain BM25 (_bm25)
 *   recall.chat_r10_en/_zh   the generated two-person chat set (bench/recall/chat.ts), R@10,
 *                            default and plain BM25
 *   recall.r10*              the generated personal-facts set (bench/recall/dataset.ts): share
 *                            of questions with an evidence turn in the top 10
 * and in process: recall.index_events_s (LongMemEval user turns appended and indexed through
 * the same code the CLI runs), recall.cold_query_ms_100k (one query against a conversation of
 * 100k events, median), recall.person_query_ms_100k (one cross-conversation query over a person's
 * 100k events in 100 conversations), prune.ms_10k/100k (scoring plus pruning a context that long).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { median, report } from "./report.ts";
import { factsSet } from "./recall/dataset.ts";
import { chatSet } from "./recall/chat.ts";
import { lmeOps, loadLongMemEval, scoreLme } from "./recall/longmemeval.ts";
import { recallAt, runBinary } from "./recall/harness.ts";
import { loadLocomo, locomoOps, scoreLocomo } from "./recall/locomo.ts";
import { liveEqualsStdio } from "./recall/live.ts";
import { Tokenizer } from "../src/embed/tokenizer.ts";
import { LexicalIndex } from "../src/memory/lexical-index.ts";
import { rankEvents } from "../src/memory/relevance.ts";
import { RecallSession } from "../src/memory/recall-session.ts";
import { prune } from "../src/memory/prune.ts";
import { PersonIndex } from "../src/memory/person-index.ts";
import { Store } from "../src/store/store.ts";
import { MIGRATIONS } from "../src/store/migrations.ts";
import { EventTerms } from "../src/store/event-terms.ts";

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);

async function longMemEval(): Promise<void> {
  const questions = loadLongMemEval();
  const user = lmeOps(questions, "user");
  const all = lmeOps(questions, "all");
  const hybrid = scoreLme(user.cases, await runBinary(user.ops, "hybrid"));
  const bm25 = scoreLme(user.cases, await runBinary(user.ops, "bm25"));
  const hybridAll = scoreLme(all.cases, await runBinary(all.ops, "hybrid"));
  const bm25All = scoreLme(all.cases, await runBinary(all.ops, "bm25"));
  report("recall.lme_dev_r5", hybrid.r5 * 100, "%");
  report("recall.lme_dev_r5_all", hybridAll.r5 * 100, "%");
  report("recall.lme_dev_r5_bm25", bm25.r5 * 100, "%");
  report("recall.lme_dev_r5_all_bm25", bm25All.r5 * 100, "%");
  report("recall.lme_dev_r10", hybrid.r10 * 100, "%");
  const live = await liveEqualsStdio(questions);
  report(
    "recall.live_equals_stdio",
    live.share * 100,
    live.differ.length ? `% (differ: ${live.differ.join(" ")})` : "%",
  );
  report("recall.lme_dev_ndcg10", hybrid.ndcg10, "", 3);
  const half = (h: number) => mean(hybrid.perQuestion.filter((_, i) => i % 2 === h)) * 100;
  report("recall.lme_dev_r5_even", half(0), "%");
  report("recall.lme_dev_r5_odd", half(1), "%");
  for (const [type, x] of Object.entries(hybrid.byType).sort()) {
    report(
      `recall.lme_dev_r5.${type}`,
      x.r5 * 100,
      `% (n=${x.n}, bm25 ${((bm25.byType[type]?.r5 ?? 0) * 100).toFixed(1)} %, all turns ${((hybridAll.byType[type]?.r5 ?? 0) * 100).toFixed(1)} %)`,
    );
  }
}

/** The LoCoMo dev conversations, read from ../shared/data (never copied here); skipped with a line when absent. */
async function locomo(): Promise<void> {
  const data = loadLocomo();
  if (!data) {
    console.log("recall.locomo_dev skipped (../shared/data/locomo-dev is not beside this checkout)");
    return;
  }
  const { ops, cases } = locomoOps(data);
  const hybrid = scoreLocomo(cases, await runBinary(ops, "hybrid"));
  const bm25 = scoreLocomo(cases, await runBinary(ops, "bm25"));
  report("recall.locomo_dev_r10", hybrid.r10 * 100, "%");
  report("recall.locomo_dev_r10_bm25", bm25.r10 * 100, "%");
  report("recall.locomo_dev_r5", hybrid.r5 * 100, "%");
  report("recall.locomo_dev_r20", hybrid.r20 * 100, "%");
  report("recall.locomo_dev_mrr", hybrid.mrr, "", 3);
  for (const [cat, x] of Object.entries(hybrid.byCategory))
    report(
      `recall.locomo_dev_r10.c${cat}`,
      x.r10 * 100,
      `% (n=${x.n}, bm25 ${((bm25.byCategory[Number(cat)]?.r10 ?? 0) * 100).toFixed(1)} %)`,
    );
}

async function chat(): Promise<void> {
  const { ops, cases } = chatSet();
  for (const scorer of ["hybrid", "bm25"] as const) {
    const answers = await runBinary(ops, scorer);
    const suffix = scorer === "hybrid" ? "" : "_bm25";
    for (const lang of ["en", "zh"]) {
      const xs = cases
        .map((c, i) => (c.lang === lang ? recallAt(answers[i] ?? [], c.evidence, 10) : -1))
        .filter((x) => x >= 0);
      report(`recall.chat_r10_${lang}${suffix}`, mean(xs) * 100, "%");
    }
  }
}

async function facts(): Promise<void> {
  const { ops, cases } = factsSet();
  for (const scorer of ["hybrid", "bm25", "bm25c", "recent"] as const) {
    const answers = await runBinary(ops, scorer);
    const rank = cases.map((c, i) => (answers[i] ?? []).findIndex((id) => c.evidence.includes(String(id))));
    const suffix = scorer === "hybrid" ? "" : `_${scorer}`;
    report(`recall.r10${suffix}`, mean(rank.map((r) => (r >= 0 ? 1 : 0))) * 100, "%");
    if (scorer !== "hybrid") continue;
    report("recall.mrr", mean(rank.map((r) => (r >= 0 ? 1 / (r + 1) : 0))), "", 3);
    for (const lang of ["en", "zh"])
      report(
        `recall.r10_${lang}`,
        mean(rank.filter((_, i) => cases[i]?.lang === lang).map((r) => (r >= 0 ? 1 : 0))) * 100,
        "%",
      );
  }
}

/** Events per second appended and indexed by `homed recall`'s own code (LongMemEval user turns). */
export function indexRate(): number {
  const { ops } = lmeOps(loadLongMemEval().slice(0, 40), "user");
  const dir = mkdtempSync(join(tmpdir(), "homed-bench-index-"));
  const store = Store.open(join(dir, "homed.db"));
  try {
    const session = new RecallSession(store, new Tokenizer());
    session.handle({ op: "index", conv: "warm", id: 0, text: "warm up jieba 分词", speaker: "" });
    let n = 0;
    const t0 = performance.now();
    for (const op of ops) {
      if (op.op === "query") continue;
      session.handle(op);
      if (op.op === "index") n++;
    }
    session.commit();
    return n / ((performance.now() - t0) / 1000);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const WORDS =
  "garden tomato water morning city river train coffee dog music piano rain work meeting 花园 咖啡 下雨 音乐 工作 城市".split(
    " ",
  );

/** A conversation of `n` short events in an in-memory database. */
function bigConversation(n: number): { index: LexicalIndex; ids: number[] } {
  const db = new Database(":memory:");
  for (const m of MIGRATIONS) db.exec(m.sql);
  const index = new LexicalIndex(new EventTerms(db), new Tokenizer());
  db.exec("BEGIN");
  const ids: number[] = [];
  for (let i = 1; i <= n; i++) {
    db.query("INSERT INTO events (id, ts, conv, kind, actor, body) VALUES (?, 0, 'p', 'x', 'u', '{}')").run(i);
    index.add(
      i,
      "p",
      `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} event ${i} about ${WORDS[(i * 13) % WORDS.length]}`,
      { time: i * 60_000 },
    );
    ids.push(i);
  }
  db.exec("COMMIT");
  return { index, ids };
}

const QUERIES = [
  "should I water the tomatoes in the garden this morning?",
  "what music did we play at the meeting?",
  "下雨天去哪里喝咖啡？",
  "did the dog like the river walk last week?",
  "piano practice before work",
  "城市里的花园",
];

/** One query against 100k events (the conversation already loaded), median over different queries. */
export function coldQueryMs(): number {
  const { index, ids } = bigConversation(100_000);
  // Loaded and warmed up, as in a daemon that has answered a query before.
  for (const q of QUERIES) rankEvents(index, "p", q, { ids, limit: 10 });
  const runs: number[] = [];
  for (let r = 0; r < 30; r++) {
    const t0 = performance.now();
    rankEvents(index, "p", QUERIES[r % QUERIES.length] as string, { ids, time: 100_000 * 60_000, limit: 10 });
    runs.push(performance.now() - t0);
  }
  return median(runs);
}

/**
 * One query against a person's 100k events spread over 100 conversations, a tenth of them
 * untrusted: the person-wide index of trusted events (src/memory/person-index.ts), the asking
 * conversation's own events left out, as cross-conversation recall asks it. Median.
 */
export function personQueryMs(): number {
  const db = new Database(":memory:");
  for (const m of MIGRATIONS) db.exec(m.sql);
  const index = new LexicalIndex(new EventTerms(db), new Tokenizer());
  db.exec("BEGIN");
  const insert = db.query(
    "INSERT INTO events (id, ts, conv, kind, actor, untrusted, body) VALUES (?, 0, ?, 'x', 'u', ?, '{}')",
  );
  for (let i = 1; i <= 100_000; i++) {
    const conv = `c${i % 100}`;
    insert.run(i, conv, i % 100 < 10 ? 1 : 0);
    index.add(
      i,
      conv,
      `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} event ${i} about ${WORDS[(i * 13) % WORDS.length]}`,
      {
        time: i * 60_000,
      },
    );
  }
  db.exec("COMMIT");
  const person = new PersonIndex(new EventTerms(db), index);
  const convOf = (id: number) => `c${id % 100}`;
  const among = { has: (id: number) => convOf(id) !== "c50" };
  const query = (q: string) =>
    rankEvents(index, "", q, { ids: [], index: person.scope(false).index, among, time: 100_000 * 60_000, limit: 10 });
  for (const q of QUERIES) query(q);
  const runs: number[] = [];
  for (let r = 0; r < 30; r++) {
    const t0 = performance.now();
    query(QUERIES[r % QUERIES.length] as string);
    runs.push(performance.now() - t0);
  }
  return median(runs);
}

/** Score `n` events against an input and prune them to a budget, in process, median of 5. */
export function pruneMs(n: number): number {
  const { index, ids } = bigConversation(n);
  const events = ids.map((id) => ({ id, tokens: 40 }));
  const runs: number[] = [];
  for (let r = 0; r < 6; r++) {
    const t0 = performance.now();
    const scored = rankEvents(index, "p", "should I water the tomatoes in the garden this morning?", { ids });
    const score = new Map(scored.map((s) => [s.id, s.score]));
    prune(events, 120_000, 10, (id) => score.get(id) ?? 0);
    if (r > 0) runs.push(performance.now() - t0);
  }
  return median(runs);
}

export async function benchRecall(): Promise<void> {
  await longMemEval();
  await locomo();
  await chat();
  await facts();
  report("recall.index_events_s", indexRate(), "events/s", 0);
  report("recall.cold_query_ms_100k", coldQueryMs(), "ms");
  report("recall.person_query_ms_100k", personQueryMs(), "ms");
  report("prune.ms_10k", pruneMs(10_000), "ms");
  report("prune.ms_100k", pruneMs(100_000), "ms");
}
