/**
 * Past questions are not answers: after the person asked "What colour is my bicycle?" in one
 * chat (and the assistant could only echo it), asking again elsewhere finds the turn that says
 * what colour the bike is — first in memory_search's ranking, and alone in the recall note.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { memoryRig } from "../harness/memory-rig.ts";
import { Store } from "../../src/store/store.ts";
import { Memory } from "../../src/memory/memory.ts";
import { MemorySearch } from "../../src/memory/memory-search.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { eventOf } from "../../src/protocol/event-bodies.ts";
import { crossRecallNote } from "../../src/memory/cross-recall.ts";
import { abstains, asks } from "../../src/memory/past-askings.ts";

const CASES = [
  {
    lang: "en",
    statement: "By the way, my bike is a red Gazelle that I bought in Utrecht.",
    ack: "A red Gazelle from Utrecht, lovely.",
    chatter: [
      ["How long should I roast a chicken?", "About an hour and a half at 180 degrees."],
      ["Can I freeze fresh pasta?", "Yes, dust it with flour and freeze it flat."],
    ],
    asking: "What colour is my bicycle?",
    echo: "I don't know what colour your bicycle is.",
  },
  {
    lang: "zh",
    statement: "顺便说一下，我的单车是一辆红色的捷安特，是在杭州买的。",
    ack: "好的，红色的捷安特。",
    chatter: [
      ["怎么做红烧肉？", "先焯水，再小火慢炖一个小时。"],
      ["饺子馅怎么调？", "肉末加葱姜水，顺着一个方向搅。"],
    ],
    asking: "我的自行车是什么颜色的？",
    echo: "我不知道你的自行车是什么颜色。",
  },
];

describe("past questions are not answers", () => {
  test("a question is told from a statement (English and Chinese)", () => {
    expect(asks("What colour is my bicycle?")).toBe(true);
    expect(asks("我的自行车是什么颜色的？")).toBe(true);
    expect(asks("你去过杭州吗")).toBe(true);
    expect(asks("My bike is red.")).toBe(false);
    expect(asks("我的单车是红色的。")).toBe(false);
  });

  test("a reply that says it does not know is told from one that answers", () => {
    expect(abstains("I don't know what colour your bicycle is.")).toBe(true);
    expect(abstains("You haven't told me which bike you have.")).toBe(true);
    expect(abstains("我不知道你的自行车是什么颜色。")).toBe(true);
    expect(abstains("你还没有告诉过我。")).toBe(true);
    expect(abstains("Your bike is a red Gazelle.")).toBe(false);
    expect(abstains("I know a good bike shop in Utrecht.")).toBe(false);
    expect(abstains("你的单车是红色的。")).toBe(false);
  });

  for (const c of CASES)
    test(`${c.lang}: asked again, the statement comes first, not the earlier asking or its echo`, () => {
      using dir = tempDir();
      const { store, memory, search, say } = memoryRig(dir.path);
      say("a", c.statement, c.ack);
      for (const [u, r] of c.chatter) say("a", u as string, r as string);
      say("b", c.asking, c.echo);
      const scope = { kind: "person", includeUntrusted: false } as const;
      const found = search.find(scope, c.asking, 5, { accept: (conv) => conv !== "c" });
      expect(found[0]?.text).toBe(c.statement);
      const rank = (text: string) => found.findIndex((f) => f.text === text);
      for (const past of [c.asking, c.echo]) {
        const at = rank(past);
        if (at >= 0) expect(at).toBeGreaterThan(0);
      }
      const note = crossRecallNote(search, memory, {
        conv: "c",
        turn: "t-new",
        input: c.asking,
        scope,
        budgetTokens: 2048,
      });
      const quoted = note?.entry.message.content ?? "";
      expect(quoted).toContain(c.statement);
      expect(quoted).not.toContain(c.echo);
      store.close();
    });

  test("an assistant's reply that says back the person's turn ranks after it", () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    const memory = new Memory(store, new Tokenizer());
    const search = new MemorySearch(store, memory);
    const add = (kind: "user-message" | "agent-reply", text: string) =>
      memory.add(
        store.append({
          conv: "a",
          actor: kind === "user-message" ? "user" : "agent",
          ...(kind === "user-message"
            ? eventOf("user-message", { text })
            : eventOf("agent-reply", { text, fromModel: false })),
        }).id,
      );
    add("user-message", "My bike is a red Gazelle I bought in Utrecht.");
    add("agent-reply", "Nice bike!");
    const found = search.find({ kind: "person", includeUntrusted: false }, "bicycle", 2);
    expect(found.map((f) => f.text)).toEqual(["My bike is a red Gazelle I bought in Utrecht.", "Nice bike!"]);
    store.close();
  });

  test("a question answered only by 'I don't know' ranks below the statement, for a search word too", () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    const memory = new Memory(store, new Tokenizer());
    const search = new MemorySearch(store, memory);
    const add = (conv: string, kind: "user-message" | "agent-reply", text: string) =>
      memory.add(
        store.append({
          conv,
          actor: kind === "user-message" ? "user" : "agent",
          ...(kind === "user-message"
            ? eventOf("user-message", { text })
            : eventOf("agent-reply", { text, fromModel: false })),
        }).id,
      );
    add("a", "user-message", "My bike is a red Gazelle I bought in Utrecht.");
    add("a", "agent-reply", "Noted.");
    add("b", "user-message", "Where is my bicycle from?");
    add("b", "agent-reply", "I'm sorry, I don't know where your bicycle was made or bought.");
    const found = search.find({ kind: "person", includeUntrusted: false }, "bicycle", 3);
    expect(found[0]?.text).toBe("My bike is a red Gazelle I bought in Utrecht.");
    store.close();
  });
});
