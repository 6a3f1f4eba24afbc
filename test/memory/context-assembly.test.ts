/**
 * Filling the budget must not make turns flap between L1 and L2. In process, through
 * ConversationContext's own interface over a real sqlite store: how many turns each assembly
 * moves is not visible from outside the daemon (the model sees only the result), so the counts
 * are read from what `assemble` returns. Also: the scene boost decides between two turns that
 * match when only one fits.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { Store } from "../../src/store/store.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { Memory } from "../../src/memory/memory.ts";
import { ConversationContext, REPLAN_FILL } from "../../src/memory/context.ts";
import { eventOf } from "../../src/protocol/event-bodies.ts";
import { estimateTokens } from "../../src/memory/tokens.ts";

/** Sixty words, none said in another turn, so only a turn that names one matches it. */
const TOPICS =
  "tomatoes Lisbon piano printer kitten sourdough Leeds interview passport dentist Rome lentils insomnia telescope birthday radiator Spanish pension trail yolk Canberra fountain refund tram museum chess violin taxes wedding insurance umbrella volcano saxophone glacier pottery marathon origami lighthouse beekeeping archery cathedral snorkel hammock lantern tapestry orchard compass kayak meteor parsley walrus trombone quilt harbour falcon mosaic pumpkin sherbet canyon avalanche".split(
    " ",
  );

function rig(dir: string) {
  const store = Store.open(join(dir, "homed.db"));
  const memory = new Memory(store, new Tokenizer());
  const context = new ConversationContext(store, memory, 10);
  const say = (conv: string, turn: string, kind: "user-message" | "model-output", text: string) => {
    const body = kind === "user-message" ? { turn, text } : { turn, text, toolCalls: [] };
    const { id } = store.append({ conv, actor: kind === "user-message" ? "user" : "agent", ...eventOf(kind, body) });
    memory.add(id);
    return id;
  };
  return { store, memory, context, say };
}

describe("context assembly over 60 turns at a 1024-token window", () => {
  test("turns move by relevance only, bounded by what fits; the fill does not churn; assembling again moves nothing", async () => {
    using dir = tempDir();
    const { store, memory, context, say } = rig(dir.path);
    const budget = 470;
    const moves: number[] = [];
    const filled: number[] = [];
    const inContext: number[] = [];
    for (let i = 0; i < 60; i++) {
      const turn = `t${i}`;
      // Most turns are about something new; every fifth, from the 30th on, goes back to one
      // thirty turns old — which only relevance can bring back.
      const back = i >= 30 && i % 5 === 0;
      const input = back ? `${TOPICS[i - 30]}?` : `${TOPICS[i]} ${i * 7919}`;
      say("c", turn, "user-message", input);
      const a = await context.assemble({ conv: "c", input, budgetTokens: budget, excludeTurn: turn });
      moves.push(a.evicted + a.recalled);
      const turns = new Map(a.history.map((e) => [e.item.turn, e.item]));
      filled.push([...turns.values()].filter((x) => x.filled).length);
      inContext.push(turns.size);
      // The same assembly again, nothing new said: a stable state moves nothing.
      const again = await context.assemble({ conv: "c", input, budgetTokens: budget, excludeTurn: turn });
      expect(again.evicted + again.recalled).toBe(0);
      say("c", turn, "model-output", "Noted; tell me more whenever you like, I am listening.");
    }
    // Past the start: the room left is filled by turns already in context, never by bringing
    // cold turns back and sending them away again the next turn.
    expect(filled.slice(20).every((n) => n === 0)).toBe(true);
    // What moves is what relevance brings back and what it pushes out: bounded by what fits,
    // and not growing as the conversation does.
    const fits = Math.max(...inContext.slice(20));
    expect(fits).toBeGreaterThan(4);
    expect(Math.max(...moves.slice(20))).toBeLessThanOrEqual(2 * fits + 1);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(moves.slice(20))).toBeLessThanOrEqual(3);
    expect(memory.layerIds("c", 2).length).toBeGreaterThan(40); // the rest are cold, nothing lost
    store.close();
  });
});

describe("a relevant turn too large for the budget", () => {
  test("lends its best event, cut to the room, before recent turns fill it", async () => {
    using dir = tempDir();
    const { store, context, say } = rig(dir.path);
    say("c", "t0", "user-message", `My gym locker code is 4471. ${"Then a long story about the weekend. ".repeat(60)}`);
    say("c", "t0", "model-output", "Got it.");
    for (let i = 1; i <= 12; i++) {
      say("c", `t${i}`, "user-message", `${TOPICS[i]} ${i * 7919}`);
      say("c", `t${i}`, "model-output", "Noted; tell me more whenever you like, I am listening.");
    }
    const input = "What is my gym locker code?";
    say("c", "q", "user-message", input);
    const budget = 300;
    const a = await context.assemble({ conv: "c", input, budgetTokens: budget, excludeTurn: "q" });
    expect(a.history.some((e) => e.item.turn === "t0")).toBe(false);
    expect(a.recalledNote?.message.content).toContain("My gym locker code is 4471");
    expect(a.recalledNote?.item.reason).toBe("relevant");
    const cost = [...a.history.map((e) => e.message), ...(a.recalledNote ? [a.recalledNote.message] : [])].reduce(
      (n, m) => n + estimateTokens(m.content) + 4,
      0,
    );
    expect(cost).toBeLessThanOrEqual(budget);
    expect(cost).toBeGreaterThan(0.8 * budget);
    store.close();
  });
});

describe("room left in the budget", () => {
  test("is filled from L2 by recency, whole turns, in chronological order, when nothing matches", async () => {
    using dir = tempDir();
    const { store, context, say } = rig(dir.path);
    for (let i = 0; i < 30; i++) {
      say("c", `t${i}`, "user-message", `${TOPICS[i]} ${i * 7919}`);
      say("c", `t${i}`, "model-output", "Noted; tell me more whenever you like, I am listening.");
    }
    const cost = (a: { history: { message: { content: string } }[] }) =>
      a.history.reduce((n, e) => n + estimateTokens(e.message.content) + 4, 0);
    // A small window first: most turns go to L2.
    say("c", "q1", "user-message", "anything new?");
    const small = await context.assemble({ conv: "c", input: "anything new?", budgetTokens: 300, excludeTurn: "q1" });
    expect(small.evicted).toBeGreaterThan(10);
    // Then a window more than twice as large (another model, say): the plan is made again, and its
    // share of the budget is filled from L2 with the newest that fit.
    say("c", "q2", "user-message", "and now?");
    const large = await context.assemble({ conv: "c", input: "and now?", budgetTokens: 700, excludeTurn: "q2" });
    expect(cost(large)).toBeLessThanOrEqual(REPLAN_FILL * 700);
    expect(cost(large)).toBeGreaterThan(0.9 * REPLAN_FILL * 700);
    const turns = [...new Set(large.history.map((e) => e.item.turn))];
    expect(turns.at(-1)).toBe("q1");
    const order = turns.slice(0, -1).map((t) => Number(t.slice(1)));
    expect(order).toEqual([...order].sort((a, b) => a - b)); // chronological
    expect(order.at(-1)).toBe(29);
    expect(order[0]).toBe(29 - order.length + 1); // the newest, contiguous: by recency
    expect(large.history.some((e) => e.item.filled && e.item.reason === "recent")).toBe(true);
    expect(large.history.filter((e) => e.message.role === "user").length).toBe(turns.length); // whole turns
    store.close();
  });
});

describe("the scene the person is in", () => {
  test("of two turns that match, the one the active scene claims comes back when the plan is made; without a scene, the better match", async () => {
    // The same conversation twice, each planned for the first time: once without a scene, once
    // in the scene that claims Alpha's turn (a weekly call with Bob, say).
    const plan = async (inScene: boolean) => {
      using dir = tempDir();
      const { store, context, say } = rig(dir.path);
      const ids = new Map<string, number[]>();
      const turn = (t: string, text: string, reply = "Noted; tell me more whenever you like, I am listening.") =>
        ids.set(t, [say("c", t, "user-message", text), say("c", t, "model-output", reply)]);
      // Two turns that match, each so long that the plan has room for one of them.
      const long = `Noted. ${"I will keep in mind where the call takes place this week. ".repeat(8)}`;
      turn("alpha", "The meeting room for the call is Alpha.", long);
      turn("zeta", "The meeting room for the call is Zeta, the meeting room we booked.", long);
      for (let i = 0; i < 30; i++) turn(`f${i}`, `${TOPICS[i]} ${i * 7919}`);
      const alpha = new Set(ids.get("alpha"));
      const boost = inScene ? (id: number) => (alpha.has(id) ? 1 : 0) : undefined;
      const a = await context.assemble({ conv: "c", input: "which meeting room?", budgetTokens: 400, boost });
      store.close();
      return new Set(a.history.map((e) => e.item.turn));
    };
    const plain = await plan(false);
    expect(plain.has("zeta")).toBe(true);
    expect(plain.has("alpha")).toBe(false);
    const inScene = await plan(true);
    expect(inScene.has("alpha")).toBe(true);
    expect(inScene.has("zeta")).toBe(false);
  });

  test("between plans, a cold turn that matches is quoted after the history, the history as it was", async () => {
    using dir = tempDir();
    const { store, context, say } = rig(dir.path);
    say("c", "t0", "user-message", "My gym locker code is 4471.");
    say("c", "t0", "model-output", "Got it.");
    for (let i = 1; i <= 30; i++) {
      say("c", `t${i}`, "user-message", `${TOPICS[i]} ${i * 7919}`);
      say("c", `t${i}`, "model-output", "Noted; tell me more whenever you like, I am listening.");
    }
    const planned = await context.assemble({ conv: "c", input: "anything new?", budgetTokens: 400 });
    expect(planned.evicted).toBeGreaterThan(0);
    say("c", "t31", "user-message", "sherbet tonight");
    say("c", "t31", "model-output", "Enjoy it.");
    say("c", "q", "user-message", "What is my gym locker code?");
    const asked = await context.assemble({
      conv: "c",
      input: "What is my gym locker code?",
      budgetTokens: 400,
      excludeTurn: "q",
    });
    // The plan stands: the same turns, the new one after them, nothing moved.
    const turns = (a: typeof planned) => [...new Set(a.history.map((e) => e.item.turn))];
    expect(turns(asked)).toEqual([...turns(planned), "t31"]);
    expect(asked.evicted + asked.recalled).toBe(0);
    expect(asked.history.every((e) => e.item.reason === "kept")).toBe(true);
    expect(asked.recalledNote?.message.content).toContain("My gym locker code is 4471.");
    expect(asked.tokens).toBeLessThanOrEqual(400);
    store.close();
  });
});
