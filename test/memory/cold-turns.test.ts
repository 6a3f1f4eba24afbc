/**
 * Cold turns cost their ids, not their text: a turn pruned to L2 leaves the in-memory history,
 * and comes back whole — identical messages — when cold recall brings it back, or lends the
 * text of one event as a snippet, read from the log. Driven through ConversationContext (what
 * the agent calls) on a real store. The first test reads `LoggedTurn.content` — what a turn
 * holds parsed — because the heap figures of a test process are too noisy to show it.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { Store } from "../../src/store/store.ts";
import { Memory } from "../../src/memory/memory.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { ConversationContext, type ContextEntry } from "../../src/memory/context.ts";
import { TurnLog } from "../../src/memory/turn-log.ts";

function say(store: Store, memory: Memory, conv: string, turn: string, user: string, reply: string, tool = false) {
  store.beginTurn(turn, conv, "test");
  const u = store.append({ conv, actor: "user", kind: "user-message", body: { turn, text: user } });
  memory.add(u.id);
  if (tool) {
    const call = { id: `call-${turn}`, name: "lookup", arguments: '{"q":"x"}' };
    store.append({ conv, actor: "agent", kind: "model-output", body: { turn, text: "", toolCalls: [call] } });
    const r = store.append({
      conv,
      actor: "tool",
      kind: "tool-result",
      body: { turn, callId: call.id, name: "lookup", status: "ok", content: `result of ${turn}` },
    });
    memory.add(r.id);
  }
  const m = store.append({ conv, actor: "agent", kind: "model-output", body: { turn, text: reply } });
  memory.add(m.id);
  store.append({ conv, actor: "agent", kind: "agent-reply", body: { turn, text: reply, fromModel: true } });
}

const byTurn = (h: readonly ContextEntry[]) => {
  const out = new Map<string, unknown[]>();
  for (const e of h) out.set(e.item.turn, [...(out.get(e.item.turn) ?? []), e.message]);
  return out;
};

describe("cold turns", () => {
  test("a conversation far past its budget keeps only its context's turns parsed; the cold ones keep ids and cost", async () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    const memory = new Memory(store, new Tokenizer());
    for (let i = 0; i < 300; i++) say(store, memory, "long", `t${i}`, `note ${i} about camels and dunes`, `ok ${i}`);
    const ctx = new ConversationContext(store, memory, 2);
    const r = await ctx.assemble({ conv: "long", input: "what about camels?", budgetTokens: 400 });
    expect(r.evicted).toBeGreaterThan(250);
    // A second reader of the same log (a restart) sees the layers and holds the same.
    const log = new TurnLog(store, null);
    for (const view of [ctx.log, log]) {
      const turns = view.turns("long");
      const cold = turns.filter((t) => t.layer === 2);
      expect(cold.length).toBe(r.evicted);
      expect(cold.every((t) => t.content === null && t.cost !== null && t.events.length === 3)).toBe(true);
      expect(turns.filter((t) => t.content !== null).length).toBeLessThanOrEqual(turns.length - r.evicted);
    }
    store.close();
  });

  test("a recalled cold turn comes back with exactly the messages it had, and a cold event lends its text", async () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    const memory = new Memory(store, new Tokenizer());
    const answer = `noted, locker code 4471. ${"I will remember it for you. ".repeat(16)}`; // ~115 tokens
    say(store, memory, "c", "t0", "my locker code is 4471 at the gym", answer, true);
    for (let i = 1; i < 40; i++)
      say(store, memory, "c", `t${i}`, `chat about sailing boats number ${i}`, `sailing is fun ${i}`);
    // Reference: the whole conversation, nothing pruned (recency-only context, huge budget).
    const whole = await new ConversationContext(store, null).assemble({ conv: "c", input: "", budgetTokens: 1e9 });
    const ref = byTurn(whole.history);
    expect(ref.get("t0")?.length).toBe(4); // user, call, tool result, answer

    const ctx = new ConversationContext(store, memory, 2);
    // A tight budget pushes t0 (and most turns) to L2.
    const pruned = await ctx.assemble({ conv: "c", input: "sailing boats", budgetTokens: 60 });
    expect(pruned.evicted).toBeGreaterThan(30);
    expect(byTurn(pruned.history).has("t0")).toBe(false);
    // Room for t0 whole: it comes back, message for message.
    const back = await ctx.assemble({ conv: "c", input: "what is my locker code at the gym?", budgetTokens: 400 });
    expect(back.recalled).toBeGreaterThan(0);
    expect(byTurn(back.history).get("t0")).toEqual(ref.get("t0") as unknown[]);

    // Pushed out again; with room only for a snippet, its text is quoted from the log.
    await ctx.assemble({ conv: "c", input: "sailing boats", budgetTokens: 60 });
    const note = await ctx.assemble({ conv: "c", input: "what is my locker code at the gym?", budgetTokens: 90 });
    expect(byTurn(note.history).has("t0")).toBe(false);
    expect(note.recalledNote?.message.content).toContain("locker code is 4471");
    store.close();
  });
});
