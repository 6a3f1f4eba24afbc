/**
 * Which speakers are people's names. A name said in a dialogue's turn addresses its person and
 * counts nothing there (src/memory/relevance.ts, LexicalParams.nameInText); a role ("user") or a
 * plugin's name ("notes", the actor of a plugin's `plugin-text`) is no person, and its word
 * counts as any other. White-box (the store, Memory and rankEvents in process): a plugin's note
 * reaches memory only through a built-in plugin's memory/add, which no test plugin may call.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { Store } from "../../src/store/store.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { Memory } from "../../src/memory/memory.ts";
import { eventOf } from "../../src/protocol/event-bodies.ts";
import { rankEvents } from "../../src/memory/relevance.ts";

describe("speaker names", () => {
  test("a plugin's name is no person's: 'notes' in its notes still counts", () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    try {
      const memory = new Memory(store, new Tokenizer());
      const conv = "notes:k";
      const note = (text: string) => {
        const { id } = store.append({ conv, actor: "notes", ...eventOf("plugin-text", { key: "k", text }) });
        memory.add(id);
        return id;
      };
      const ids = [note("Meeting notes from Monday."), note("Call the plumber."), note("Notes on the garden.")];
      const ranked = rankEvents(memory.index, conv, "notes", { ids, time: null, dense: null });
      // The plumber note comes too (the actor's name weighs a little, as a role's does), last.
      expect(
        ranked
          .slice(0, 2)
          .map((s) => s.id)
          .sort(),
      ).toEqual([ids[0] as number, ids[2] as number].sort());
    } finally {
      store.close();
    }
  });

  test("a dialogue's speaker is a person: her name said by the other matches nothing", () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    try {
      const memory = new Memory(store, new Tokenizer());
      const conv = "d";
      const said = (speaker: string, text: string) => {
        const { id } = store.append({ conv, actor: "user", ...eventOf("user-message", { text, speaker }) });
        memory.add(id);
        return id;
      };
      const ids = [said("Jon", "Hey Maya, good morning!"), said("Maya", "Morning! Coffee first.")];
      expect(rankEvents(memory.index, conv, "Maya", { ids, time: null, dense: null })).toEqual([]);
    } finally {
      store.close();
    }
  });
});
