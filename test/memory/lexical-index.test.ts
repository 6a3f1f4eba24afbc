/**
 * The lexical index's memory does not grow with a conversation: scoring reads only BM25's
 * candidates into a cache of bounded size, and a cache too small to hold them still scores
 * exactly as a large one does.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { LexicalIndex } from "../../src/memory/lexical-index.ts";
import { rankEvents } from "../../src/memory/relevance.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";

const WORDS = "garden tomato water morning city river train coffee dog music piano rain work meeting 花园 咖啡 下雨 音乐 工作 城市".split(" ");
const QUERIES = ["should I plant tomatoes this morning?", "coffee and music by the river", "咖啡 和 音乐", "a rainy meeting in the 城市", "morning rain"];

function indexed(n: number, maxCachedTerms?: number): { index: LexicalIndex; ids: number[]; db: Database } {
  const db = new Database(":memory:");
  for (const m of MIGRATIONS) db.exec(m.sql);
  const index = new LexicalIndex(db, new Tokenizer(), maxCachedTerms);
  const ids: number[] = [];
  db.exec("BEGIN");
  for (let i = 1; i <= n; i++) {
    db.query("INSERT INTO events (id, ts, conv, kind, actor, body) VALUES (?, 0, ?, 'x', 'u', '{}')").run(i, i % 2 ? "a" : "b");
    index.add(i, i % 2 ? "a" : "b", `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} event ${i} about ${WORDS[(i * 13) % WORDS.length]}`);
    if (i % 2) ids.push(i);
  }
  db.exec("COMMIT");
  return { index, ids, db };
}

describe("lexical index memory", () => {
  test("scoring a 3,000-event conversation many times holds no more than the cache's size", () => {
    const { index, ids, db } = indexed(6000, 3000);
    for (let round = 0; round < 3; round++) for (const q of QUERIES) rankEvents(index, "a", q, { ids });
    expect(index.cachedTerms).toBeGreaterThan(1000);
    expect(index.cachedTerms).toBeLessThanOrEqual(3000);
    db.close();
  });

  test("a cache smaller than one query's candidates scores exactly like a large one", () => {
    const small = indexed(4000, 100);
    const large = indexed(4000);
    for (const q of QUERIES) {
      for (let round = 0; round < 2; round++) {
        const a = rankEvents(small.index, "a", q, { ids: small.ids });
        const b = rankEvents(large.index, "a", q, { ids: large.ids });
        expect(a.length).toBeGreaterThan(10);
        expect(a).toEqual(b);
        // Only this conversation's events are candidates, whatever the cache holds.
        expect(a.every((s) => s.id % 2 === 1)).toBe(true);
      }
    }
    expect(large.index.cachedTerms).toBeGreaterThan(100);
    small.db.close();
    large.db.close();
  });
});
