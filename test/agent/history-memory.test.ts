/**
 * What the history cache holds for a conversation far longer than its context budget: turns
 * moved to cold memory keep no parsed messages, so the turns held stay near what the budget
 * fits however long the conversation grows — and a cold turn recalled later comes back whole,
 * read from the log. In process (a real store in a temp dir, real memory index), because the
 * count of held turns is only visible from inside.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Store } from "../../src/store/store.ts";
import { Memory } from "../../src/memory/memory.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { HistoryCache } from "../../src/agent/history.ts";
import { tempDir } from "../harness/binary.ts";

const FILLER = ["the weather was grey again today", "we talked about the bus timetable", "lunch was soup and bread", "the meeting moved to thursday", "nothing much happened at work"];

function addTurn(store: Store, memory: Memory, conv: string, turn: string, user: string, reply: string): void {
  const u = store.append({ conv, kind: "user-message", actor: "user", body: { turn, text: user, channel: "cli" } });
  memory.add(u.id, conv, user);
  const m = store.append({ conv, kind: "model-output", actor: "agent", body: { turn, iteration: 1, text: reply, toolCalls: [] } });
  memory.add(m.id, conv, reply);
  store.append({ conv, kind: "agent-reply", actor: "agent", body: { turn, text: reply, fromModel: true, stopReason: "done" } });
}

describe("history cache memory", () => {
  test("a long conversation holds about a budget's worth of turns, and a cold turn comes back whole", () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    const memory = new Memory(store, new Tokenizer());
    const history = new HistoryCache(store, memory, 4);
    const budget = 400; // ≈ 20 turns of ~20 tokens
    addTurn(store, memory, "c", "fact", "my sister's cat is called Pickles", "Noted: your sister's cat is Pickles.");
    let maxHeld = 0;
    for (let i = 0; i < 600; i++) {
      addTurn(store, memory, "c", `t${i}`, `${FILLER[i % FILLER.length]} (${i})`, `ok ${i}`);
      const h = history.assemble("c", budget, undefined, `${FILLER[(i + 1) % FILLER.length]}`);
      expect(h.messages.reduce((n, m) => n + Math.ceil(m.content.length / 4) + 4, 0)).toBeLessThanOrEqual(budget + 40);
      maxHeld = Math.max(maxHeld, history.heldTurns);
    }
    // 601 turns in the log; what is held stays near the budget's ~20 turns.
    expect(maxHeld).toBeLessThan(60);
    // A larger budget (a bigger model, say) leaves room for a cold turn to come back whole.
    const h = history.assemble("c", budget * 2, undefined, "what is the name of my sister's cat?");
    expect(h.recalled).toBe(1);
    expect(h.messages.map((m) => m.content)).toContain("my sister's cat is called Pickles");
    expect(h.messages.map((m) => m.content)).toContain("Noted: your sister's cat is Pickles.");
    store.close();
  });
});
