/**
 * The memory side of `homed recall --stdio` (src/cli/recall.ts): each `conv` an isolated memory
 * whose turns are appended to the log as `recall-turn` events and indexed, queries ranked by
 * the scorer the agent uses. Kept apart from the stdin loop so a benchmark can drive exactly the
 * same code in process.
 */
import type { Store } from "../store/store.ts";
import type { Tokenizer } from "../embed/tokenizer.ts";
import { eventOf, readBodyOf } from "../protocol/event-bodies.ts";
import type { RecallOp } from "../protocol/recall.ts";
import { LexicalIndex } from "./lexical-index.ts";
import { rankEvents, type LexicalParams, type ScorerName } from "./relevance.ts";
import { parseTime } from "./time.ts";

/** ISO-8601 when it parses, otherwise kept exactly as given. */
function normaliseTime(t: string | number | undefined): string | number | null {
  if (t === undefined) return null;
  if (typeof t === "number") return t;
  const ms = parseTime(t);
  return ms === null ? t : new Date(ms).toISOString();
}

interface ConvState {
  minId: number;
  ids: number[];
  userIds: Map<number, string | number>;
}

export class RecallSession {
  readonly index: LexicalIndex;
  private readonly convs = new Map<string, ConvState>();
  private inTx = false;

  constructor(
    private readonly store: Store,
    tokenizer: Tokenizer,
    private readonly scorer: ScorerName = "hybrid",
    /** Lexical weights other than the defaults (tuning runs only). */
    private readonly params?: LexicalParams,
  ) {
    this.index = new LexicalIndex(store.db, tokenizer);
  }

  private begin(): void {
    if (!this.inTx) this.store.db.exec("BEGIN");
    this.inTx = true;
  }

  /** Ends the open write transaction, if any (before a query, and at the end of input). */
  commit(): void {
    if (this.inTx) this.store.db.exec("COMMIT");
    this.inTx = false;
  }

  private state(conv: string): ConvState {
    let s = this.convs.get(conv);
    if (s) return s;
    const minId = Number(
      this.store.db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(`recall_gen:${conv}`)
        ?.value ?? 0,
    );
    s = { minId, ids: [], userIds: new Map() };
    for (const e of this.store.conversationEventsAfter(conv, minId - 1)) {
      const body = e.kind === "recall-turn" ? readBodyOf("recall-turn", e.body) : null;
      if (!body) continue;
      s.ids.push(e.id);
      s.userIds.set(e.id, body.id);
    }
    this.convs.set(conv, s);
    return s;
  }

  /** The caller's ids of the best `op.k` turns for a query, best first. */
  query(op: Extract<RecallOp, { op: "query" }>, scorer: ScorerName, params?: LexicalParams): (string | number)[] {
    const s = this.state(op.conv);
    const ranked = rankEvents(this.index, op.conv, op.text, {
      minId: s.minId,
      scorer,
      params,
      ids: s.ids,
      time: parseTime(op.time),
      limit: op.k,
    });
    return ranked.map((r) => s.userIds.get(r.id) as string | number);
  }

  /** Apply one op; a query returns the caller's ids of the best `k` turns, best first. */
  handle(op: RecallOp): (string | number)[] | undefined {
    switch (op.op) {
      case "reset": {
        this.commit();
        const next =
          (this.store.db.query<{ m: number | null }, []>("SELECT max(id) AS m FROM events").get()?.m ?? 0) + 1;
        this.store.db
          .query("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
          .run(`recall_gen:${op.conv}`, String(next));
        this.convs.set(op.conv, { minId: next, ids: [], userIds: new Map() });
        return undefined;
      }
      case "index": {
        const s = this.state(op.conv);
        this.begin();
        const body = {
          id: op.id,
          text: op.text,
          speaker: op.speaker,
          time: normaliseTime(op.time),
          session: op.session ?? null,
          seq: op.seq ?? null,
          caption: op.caption ?? null,
        };
        const { id } = this.store.append({
          conv: op.conv,
          actor: op.speaker || "unknown",
          ...eventOf("recall-turn", body),
        });
        this.index.add(id, op.conv, op.caption ? `${op.text}\n${op.caption}` : op.text, {
          speaker: op.speaker,
          session: op.session ?? null,
          time: parseTime(op.time),
        });
        s.ids.push(id);
        s.userIds.set(id, op.id);
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
