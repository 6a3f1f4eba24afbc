/**
 * One path into memory: a chat turn's events, an imported message and a `homed recall` index op
 * are indexed by the same code (Memory.add → LexicalIndex.addEvent) with what a benchmark turn
 * carries — who said it, its session, its time — and a rebuild of the index from the log makes
 * exactly the rows that live indexing made.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { Store } from "../../src/store/store.ts";
import { Memory } from "../../src/memory/memory.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { eventOf } from "../../src/protocol/event-bodies.ts";
import { ingestMessage } from "../../src/memory/ingest.ts";
import { RecallSession } from "../../src/memory/recall-session.ts";
import { SESSION_GAP_MS } from "../../src/memory/sessions.ts";
import { LexicalIndex } from "../../src/memory/lexical-index.ts";

const T0 = Date.parse("2026-11-02T09:00:00Z");

function terms(store: Store): { sp?: string; se?: string; t?: number }[] {
  return store.db
    .query<{ terms: string }, []>("SELECT terms FROM event_terms ORDER BY event_id")
    .all()
    .map((r) => {
      const { sp, se, t } = JSON.parse(r.terms) as { sp?: string; se?: string; t?: number };
      return { sp, se, t };
    });
}

describe("one path into memory", () => {
  test("a turn's events carry speaker, session (cut where time passes) and time; a rebuild makes the same rows", () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    const memory = new Memory(store, new Tokenizer());
    const turn = (conv: string, at: number, user: string, reply: string, city: string) => {
      const u = store.append({ conv, actor: "user", ts: at, ...eventOf("user-message", { turn: "t", text: user }) });
      memory.add(u.id);
      const call = { id: "c1", name: "weather", arguments: JSON.stringify({ city }) };
      const m = store.append({
        conv,
        actor: "agent",
        ts: at + 1000,
        ...eventOf("model-output", { turn: "t", text: reply, toolCalls: [call] }),
      });
      memory.add(m.id);
      const search = { id: "c2", name: "memory_search", arguments: '{"query":"my bike"}' };
      const s = store.append({
        conv,
        actor: "agent",
        ts: at + 2000,
        ...eventOf("model-output", { turn: "t", text: "", toolCalls: [search] }),
      });
      memory.add(s.id);
    };
    turn("a", T0, "My bike is a red Gazelle.", "Nice bike!", "Delft");
    turn("a", T0 + 60_000, "It was made in Dieren.", "A proper Dutch bike.", "Dieren");
    turn("a", T0 + 61_000 + SESSION_GAP_MS + 1, "Back again: rain today?", "Let me look.", "Utrecht");
    const rows = terms(store);
    // Memory's own search call is not indexed: it would answer a question with the question.
    expect(rows.map((r) => r.sp)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(rows.map((r) => r.t)).toEqual([T0, T0 + 1000, T0 + 60_000, T0 + 61_000, T0 + 1_861_001, T0 + 1_862_001]);
    const sessions = rows.map((r) => r.se);
    expect(new Set(sessions.slice(0, 4)).size).toBe(1);
    expect(new Set(sessions.slice(4)).size).toBe(1);
    expect(sessions[4]).not.toBe(sessions[0]);
    // The tool call is part of what the model did, so "the weather in Utrecht" finds it.
    const found = memory.search({ kind: "conversation", conv: "a" }, "the weather in Utrecht", { limit: 1 });
    expect(found[0]?.id).toBe(8);

    // The layout changes: every row is made again from the log, the same as live indexing made it.
    const before = store.db.query("SELECT event_id, terms FROM event_terms ORDER BY event_id").all();
    store.db.exec("UPDATE meta SET value = 'old' WHERE key = 'lexical_format'");
    new LexicalIndex(store.eventTerms, new Tokenizer());
    expect(store.db.query("SELECT event_id, terms FROM event_terms ORDER BY event_id").all()).toEqual(before);
    store.close();
  });

  test("an imported message and a recall index op are logged as ordinary messages and ranked alike", () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    const tokenizer = new Tokenizer();
    const session = new RecallSession(store, tokenizer);
    const lines = [
      { speaker: "Caroline", text: "I went to a support group yesterday.", session: 1 },
      { speaker: "Melanie", text: "That's great! How did it go?", session: 1 },
      { speaker: "Caroline", text: "It was powerful. I painted a sunrise after.", session: 2 },
    ];
    session.handle({ op: "reset", conv: "d" });
    for (const [i, l] of lines.entries())
      session.handle({ op: "index", conv: "d", id: `D${i}`, time: T0 + i * 86_400_000, ...l });
    const viaRecall = session.handle({ op: "query", conv: "d", text: "When did Caroline paint a sunrise?", k: 3 });
    expect(viaRecall?.[0]).toBe("D2");

    store.ensureConversation("e", "import");
    for (const [i, l] of lines.entries())
      ingestMessage(store, session.memory, {
        conv: "e",
        role: "user",
        speaker: l.speaker,
        text: l.text,
        session: l.session,
        time: T0 + i * 86_400_000,
        ref: `D${i}`,
      });
    const viaImport = session.memory
      .search({ kind: "conversation", conv: "e" }, "When did Caroline paint a sunrise?", { limit: 3, time: null })
      .map((f) => f.id);
    const d = session.memory
      .search({ kind: "conversation", conv: "d" }, "When did Caroline paint a sunrise?", { limit: 3, time: null })
      .map((f) => f.id);
    // The same turns in two conversations: the same order (ids offset by the first conversation's).
    expect(viaImport.map((id) => id - 3)).toEqual(d);
    const kinds = store.db
      .query<{ kind: string; actor: string }, []>("SELECT kind, actor FROM events WHERE conv = 'e' ORDER BY id")
      .all();
    expect(kinds).toEqual(lines.map((l) => ({ kind: "user-message", actor: l.speaker })));
    store.close();
  });

  test("two conversations naming their sessions alike stay apart in the person's index", () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    const memory = new Memory(store, new Tokenizer());
    for (const conv of ["x", "y"]) {
      store.ensureConversation(conv, "import");
      ingestMessage(store, memory, { conv, role: "user", text: `hello from ${conv}`, session: "s1", time: T0 });
    }
    const { index } = memory.person.scope(false);
    expect(index.sessionCount).toBe(2);
    store.close();
  });
});
