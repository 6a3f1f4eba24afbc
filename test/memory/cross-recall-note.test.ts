/** The note that quotes the person's other conversations: each thing said once, oldest first. */
import { describe, expect, test } from "bun:test";
import { CROSS_RECALL_HEADER, crossRecallNote } from "../../src/memory/cross-recall.ts";
import type { FoundEvent, MemorySearch } from "../../src/memory/memory-search.ts";

const hit = (id: number, ts: number, text: string, score: number): FoundEvent => ({
  id,
  ts,
  conv: "a",
  channel: "cli",
  untrusted: false,
  mark: null,
  role: "user",
  text,
  score,
});

describe("crossRecallNote", () => {
  test("a message sent twice (again after a failed turn) is quoted once", () => {
    const found = [
      hit(7, 2_000, "My bike is a red Brompton", 1),
      hit(3, 1_000, "My bike is a red Brompton", 1),
      hit(9, 3_000, "I ride it to work", 0.5),
    ];
    // Every hit covers the question whole: this test is about saying a thing once.
    const search = {
      find: () => found,
      coverage: () => () => ({ share: 1, said: ["bicycl"] }),
    } as unknown as MemorySearch;
    const touched: number[] = [];
    const note = crossRecallNote(
      search,
      { touch: (ids: readonly number[]) => void touched.push(...ids) },
      {
        conv: "b",
        turn: "t1",
        input: "What colour is my bicycle?",
        scope: { kind: "person", includeUntrusted: false },
        budgetTokens: 1024,
      },
    );
    const content = note?.entry.message.content ?? "";
    expect(content.startsWith(CROSS_RECALL_HEADER)).toBe(true);
    expect(content.split("My bike is a red Brompton").length - 1).toBe(1);
    expect(content).toContain("I ride it to work");
    expect(touched).toEqual([3, 9]);
  });
});
