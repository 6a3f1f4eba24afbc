/**
 * The memory side of `homed recall --stdio` (src/cli/recall.ts), a thin client of the live
 * path: an `index` op appends an ordinary message to its conversation (the person's, another
 * speaker's, or the assistant's, with the caller's id as its `ref`, its time and session) and
 * memory indexes it as it indexes a chat turn (Memory.add); a `query` is answered by the search
 * behind the recall note and `memory_search` (MemorySearch.find), scoped to that conversation;
 * a `reset` forgets the conversation (Store.forgetConversation), so each `conv` is an isolated
 * memory that starts empty. Kept apart from the stdin loop so a benchmark drives exactly the
 * same code in process.
 */
import type { Store } from "../store/store.ts";
import type { Tokenizer } from "../embed/tokenizer.ts";
import { readEventBody } from "../protocol/event-bodies.ts";
import { ingestMessage } from "./ingest.ts";
import type { RecallOp } from "../protocol/recall.ts";
import { Memory } from "./memory.ts";
import { MemorySearch } from "./memory-search.ts";
import type { LexicalParams, ScorerName } from "./relevance.ts";
import { parseTime } from "./time.ts";

/** The channel conversations made by `homed recall` are listed under. */
export const RECALL_CHANNEL = "recall";

/** The caller's id of a logged message, if it carries one. */
function refOf(kind: string, body: string): string | number | undefined {
  const r = readEventBody(kind, body);
  if (r?.kind === "user-message" || r?.kind === "agent-reply") return r.body.ref;
  if (r?.kind === "recall-turn") return r.body.id;
  return undefined;
}

export class RecallSession {
  readonly memory: Memory;
  private readonly search: MemorySearch;
  /** Per conversation: the caller's id of each of its event ids since its last reset. */
  private readonly refMaps = new Map<string, Map<number, string | number>>();
  private inTx = false;

  constructor(
    private readonly store: Store,
    tokenizer: Tokenizer,
    private readonly scorer: ScorerName = "hybrid",
    /** Lexical weights other than the defaults (tuning runs only). */
    private readonly params?: LexicalParams,
  ) {
    this.memory = new Memory(store, tokenizer);
    this.search = new MemorySearch(store, this.memory);
  }

  private begin(): void {
    if (!this.inTx) this.store.begin();
    this.inTx = true;
  }

  /** Ends the open write transaction, if any (before a query, and at the end of input). */
  commit(): void {
    if (this.inTx) this.store.commit();
    this.inTx = false;
  }

  /** The caller's id of each of `conv`'s event ids since its last reset, in order. */
  refsOf(conv: string): ReadonlyMap<number, string | number> {
    return this.refMap(conv);
  }

  private refMap(conv: string): Map<number, string | number> {
    let refs = this.refMaps.get(conv);
    if (refs) return refs;
    refs = new Map();
    this.store.ensureConversation(conv, RECALL_CHANNEL);
    const bound = this.store.forgottenBounds().get(conv) ?? 0;
    for (const e of this.store.conversationEventsAfter(conv, bound)) {
      const ref = refOf(e.kind, e.body);
      if (ref !== undefined) refs.set(e.id, ref);
    }
    this.refMaps.set(conv, refs);
    return refs;
  }

  /** The caller's ids of the best `op.k` turns for a query, best first. */
  query(op: Extract<RecallOp, { op: "query" }>, scorer: ScorerName, params?: LexicalParams): (string | number)[] {
    const refs = this.refsOf(op.conv);
    const found = this.search.find({ kind: "conversation", conv: op.conv }, op.text, op.k, {
      time: parseTime(op.time),
      scorer,
      params,
    });
    const out: (string | number)[] = [];
    for (const f of found) {
      const ref = refs.get(f.id);
      if (ref !== undefined) out.push(ref);
    }
    return out;
  }

  /** Apply one op; a query returns the caller's ids of the best `k` turns, best first. */
  handle(op: RecallOp): (string | number)[] | undefined {
    switch (op.op) {
      case "reset": {
        this.commit();
        this.store.ensureConversation(op.conv, RECALL_CHANNEL);
        this.store.forgetConversation(op.conv);
        this.refMaps.set(op.conv, new Map());
        return undefined;
      }
      case "index": {
        const refs = this.refMap(op.conv);
        this.begin();
        const at = parseTime(op.time);
        const id = ingestMessage(this.store, this.memory, {
          conv: op.conv,
          role: op.speaker === "assistant" ? "assistant" : "user",
          // The person is "user"; anyone else is named ("" when the caller did not say).
          ...(op.speaker === "user" || op.speaker === "assistant" ? {} : { speaker: op.speaker }),
          text: op.text,
          ref: op.id,
          ...(op.session !== undefined ? { session: op.session } : {}),
          ...(at !== null ? { time: at } : op.time !== undefined ? { said: String(op.time) } : {}),
          ...(op.caption ? { caption: op.caption } : {}),
        });
        refs.set(id, op.id);
        return undefined;
      }
      case "commit":
        this.commit();
        return undefined;
      case "query":
        this.commit();
        return this.query(op, this.scorer, this.params);
    }
  }
}
