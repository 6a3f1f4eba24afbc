/**
 * The context when everything fits is kept from turn to turn (src/memory/all-fit.ts): whatever
 * happened in between — turns pruned to L2 and brought back, distilled to L3, a conversation
 * forgotten, an event added to an old turn, another conversation's turns — an assembly gives
 * exactly what one made from scratch over the same log gives. In process, over a real store.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { Store } from "../../src/store/store.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { Memory } from "../../src/memory/memory.ts";
import { type AssembledContext, ConversationContext } from "../../src/memory/context.ts";
import { eventOf } from "../../src/protocol/event-bodies.ts";
import { mulberry32 } from "../harness/prng.ts";

const seen = (a: AssembledContext) => a.history.map((e) => `${e.item.turn} ${e.message.role}: ${e.message.content}`);

function rig(dir: string) {
  const store = Store.open(join(dir, "homed.db"));
  const memory = new Memory(store, new Tokenizer());
  const say = (conv: string, turn: string, kind: "user-message" | "model-output", text: string) => {
    const body = kind === "user-message" ? { turn, text } : { turn, text, toolCalls: [] };
    const { id } = store.append({ conv, actor: kind === "user-message" ? "user" : "agent", ...eventOf(kind, body) });
    memory.add(id);
    return id;
  };
  return { store, memory, say };
}

test("a turn's entries are made once and kept while nothing in it changes", async () => {
  using dir = tempDir();
  const { store, memory, say } = rig(dir.path);
  const context = new ConversationContext(store, memory, 4);
  const first: unknown[] = [];
  for (let i = 0; i < 20; i++) {
    store.beginTurn(`t${i}`, "c", "cli");
    say("c", `t${i}`, "user-message", `question ${i}`);
    const a = await context.assemble({
      conv: "c",
      input: `question ${i}`,
      budgetTokens: 100_000,
      excludeTurn: `t${i}`,
    });
    if (i > 0) first.push(a.history[0]);
    say("c", `t${i}`, "model-output", `answer ${i}`);
  }
  expect(new Set(first).size).toBe(1);
  // Something said late in the first turn: its entries are made again, with it.
  say("c", "t0", "model-output", "a late word");
  const a = await context.assemble({ conv: "c", input: "more", budgetTokens: 100_000 });
  expect(a.history[0]).not.toBe(first[0]);
  expect(a.history.slice(0, 3).map((e) => e.message.content)).toEqual(["question 0", "answer 0", "a late word"]);
  store.close();
});

test("kept from turn to turn, the context is what an assembly from scratch gives", async () => {
  using dir = tempDir();
  const { store, memory, say } = rig(dir.path);
  const context = new ConversationContext(store, memory, 4);
  const rand = mulberry32(3);
  const words = "garden piano Lisbon kitten printer passport violin orchard lantern kayak".split(" ");
  const turns: Record<string, string[]> = { a: [], b: [] };
  let quick = 0;
  for (let step = 0; step < 160; step++) {
    const conv = rand() < 0.7 ? "a" : "b";
    const turn = `${conv}${step}`;
    const input = `${words[Math.floor(rand() * words.length)]} ${step}`;
    store.beginTurn(turn, conv, "cli");
    say(conv, turn, "user-message", input);
    turns[conv]?.push(turn);
    const op = rand();
    const past = turns[conv] ?? [];
    if (op < 0.06 && past.length > 3) {
      // A late event of an old turn (a tool's result arriving after a crash, say).
      say(conv, past[Math.floor(rand() * (past.length - 1))] as string, "model-output", `late ${step}`);
    } else if (op < 0.1) {
      store.forgetConversation(conv);
    } else if (op < 0.16) {
      // Distil some cold turns of it.
      const cold = memory.layerIds(conv, 2);
      context.distilled(conv, cold.slice(0, 2));
    }
    // Mostly a window that holds everything; sometimes one that prunes.
    const budget = rand() < 0.15 ? 60 : 100_000;
    const got = await context.assemble({ conv, input, budgetTokens: budget, excludeTurn: turn });
    const fresh = await new ConversationContext(store, memory, 4).assemble({
      conv,
      input,
      budgetTokens: budget,
      excludeTurn: turn,
    });
    expect(seen(got)).toEqual(seen(fresh));
    if (budget > 60 && got.evicted === 0 && got.recalled === 0) quick++;
    say(conv, turn, "model-output", `reply ${step}`);
  }
  // Most assemblies took everything, and the test saw each kind of change above.
  expect(quick).toBeGreaterThan(100);
  store.close();
});
