/**
 * Memory in process, as the daemon runs it (Store, Memory, MemorySearch over a real sqlite file
 * in `dir`), and a way to log an exchange: what the suites that rank or quote memory start from.
 */
import { join } from "node:path";
import { Store } from "../../src/store/store.ts";
import { Memory } from "../../src/memory/memory.ts";
import { MemorySearch } from "../../src/memory/memory-search.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { eventOf } from "../../src/protocol/event-bodies.ts";

export interface MemoryRig {
  store: Store;
  memory: Memory;
  search: MemorySearch;
  /** Log one turn of `conv`: the person's message and the assistant's reply, both indexed. */
  say(conv: string, user: string, reply: string): void;
}

export function memoryRig(dir: string): MemoryRig {
  const store = Store.open(join(dir, "homed.db"));
  const memory = new Memory(store, new Tokenizer());
  const search = new MemorySearch(store, memory);
  let n = 0;
  return {
    store,
    memory,
    search,
    say(conv, user, reply) {
      const turn = `t${++n}`;
      store.beginTurn(turn, conv, "web");
      memory.add(store.append({ conv, actor: "user", ...eventOf("user-message", { turn, text: user }) }).id);
      memory.add(
        store.append({ conv, actor: "agent", ...eventOf("agent-reply", { turn, text: reply, fromModel: false }) }).id,
      );
    },
  };
}
