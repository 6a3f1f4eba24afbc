/**
 * Experiment (issue 11, word vectors): median cold query over the 100k-event conversation of
 * bench/recall.ts under parameter sets given as JSON, e.g. `bun bench/recall/cold-variants.ts {} {"turnVec":0.1}`.
 */
import { Database } from "bun:sqlite";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { LexicalIndex } from "../../src/memory/lexical-index.ts";
import { DEFAULT_PARAMS, rankEvents } from "../../src/memory/relevance.ts";
const WORDS = "garden tomato water morning city river train coffee dog music piano rain work meeting 花园 咖啡 下雨 音乐 工作 城市".split(" ");
const db = new Database(":memory:");
for (const m of MIGRATIONS) db.exec(m.sql);
const index = new LexicalIndex(db, new Tokenizer());
db.exec("BEGIN");
const ids: number[] = [];
for (let i = 1; i <= 100000; i++) {
  db.query("INSERT INTO events (id, ts, conv, kind, actor, body) VALUES (?, 0, 'p', 'x', 'u', '{}')").run(i);
  index.add(i, "p", `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} event ${i} about ${WORDS[(i * 13) % WORDS.length]}`, { time: i * 60_000 });
  ids.push(i);
}
db.exec("COMMIT");
const QUERIES = ["should I water the tomatoes in the garden this morning?", "what music did we play at the meeting?", "下雨天去哪里喝咖啡？", "did the dog like the river walk last week?", "piano practice before work", "城市里的花园"];
for (const j of process.argv.slice(2)) {
  const params = { ...DEFAULT_PARAMS, ...JSON.parse(j) };
  for (const q of QUERIES) rankEvents(index, "p", q, { ids, limit: 10, params });
  const runs: number[] = [];
  for (let r = 0; r < 30; r++) {
    const t0 = performance.now();
    rankEvents(index, "p", QUERIES[r % QUERIES.length] as string, { ids, time: 100_000 * 60_000, limit: 10, params });
    runs.push(performance.now() - t0);
  }
  runs.sort((a, b) => a - b);
  console.log(j, "median ms", runs[15]?.toFixed(1));
}
