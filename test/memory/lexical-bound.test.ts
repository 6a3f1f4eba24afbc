/**
 * The in-memory lexical index is bounded by postings, not only by conversations: past the cap,
 * the least recently queried conversations are dropped (the one being queried stays), and a
 * dropped conversation reloaded from `event_terms` scores exactly as before.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { Store } from "../../src/store/store.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { LexicalIndex } from "../../src/memory/lexical-index.ts";
import { rankEvents } from "../../src/memory/relevance.ts";

const WORDS = "river stone bread lamp window garden harbour violin letter ladder candle meadow".split(" ");

describe("lexical index bound", () => {
  test("holds at most its postings cap beyond the conversation queried, and scores the same", () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    const tokenizer = new Tokenizer();
    const cap = 2_000;
    const small = new LexicalIndex(store.eventTerms, tokenizer, cap);
    // The reference holds every conversation, built event by event as they are added (not read
    // back from event_terms, which is what the small one does when it reloads what it dropped).
    const large = new LexicalIndex(store.eventTerms, tokenizer);
    const ids: Record<string, number[]> = {};
    for (const conv of ["a", "b", "c", "d"]) {
      large.conv(conv);
      ids[conv] = [];
      for (let i = 0; i < 120; i++) {
        const text = `${WORDS[i % 12]} ${WORDS[(i * 5 + 3) % 12]} ${WORDS[(i * 7 + conv.charCodeAt(0)) % 12]} note ${i}`;
        const { id } = store.append({ conv, actor: "user", kind: "user-message", body: { turn: `${conv}${i}`, text } });
        small.add(id, conv, text);
        large.add(id, conv, text);
        (ids[conv] as number[]).push(id);
      }
    }
    const rank = (index: LexicalIndex, conv: string, q: string) =>
      rankEvents(index, conv, q, { ids: ids[conv] as number[], dense: null, time: null });
    const queries = ["river lamp", "violin letter note", "candle meadow garden"];
    for (let round = 0; round < 2; round++)
      for (const conv of ["a", "b", "c", "d"]) {
        for (const q of queries) expect(rank(small, conv, q)).toEqual(rank(large, conv, q));
        const one = small.conv(conv).postings;
        expect(one).toBeGreaterThan(cap / 4); // each conversation is a sizeable part of the cap
        expect(small.cachedPostings).toBeLessThanOrEqual(Math.max(cap, one));
      }
    // Unbounded by postings, all four stay: the cap is what dropped them above.
    expect(large.cachedPostings).toBeGreaterThan(cap);
    store.close();
  });
});
