/**
 * Cooling: a background job distills cold turns into L3 facts. A turn is
 * ready when all its events are in L2, none was accessed more than `maxAccesses` times, and none
 * was touched (moved, recalled, quoted) for `idleMs`. Ready turns go to the model in batches of
 * about `batchTokens`, under a token budget per run; each answer is parsed with the versioned
 * schema (distill-prompt.ts). A bad answer is asked again (with backoff), then the batch is
 * skipped with a log line; a refusal or a failed call skips it too. Only a batch whose answer
 * parsed is committed: its facts are added and its turns leave L2 for "distilled into L3"
 * (`distilled`, the one place layers change). A skipped batch removes nothing.
 *
 * Memory never imports llm: the model is the injected `extract` function; the clock and sleep
 * are injected too, so tests never wait.
 */
import type { DistillRows } from "../store/distill-rows.ts";
import type { L3Graph } from "../store/l3-graph.ts";
import type { StoredEvent } from "../store/store.ts";
import { readEventBody } from "../protocol/event-bodies.ts";
import { bodyText } from "./event-text.ts";
import { DISTILL_SYSTEM, DISTILL_VERSION, distillInput, parseAnswer, type DistillEvent } from "./distill-prompt.ts";
import { cutToTokens, estimateTokens } from "./tokens.ts";

export interface DistillOptions {
  idleMs: number;
  maxAccesses: number;
  /** Tokens (prompt and answer, as reported or estimated) one run may spend. */
  runBudgetTokens: number;
  /** About this many tokens of excerpts per model call. */
  batchTokens: number;
  maxOutputTokens: number;
  /** Asks again after a bad answer or a retryable failure, this many times. */
  retries: number;
  backoffMs: number;
}

/** The model's answer to one batch; throws on a failed call (`retryable` on the error when it is). */
export type Extract = (req: {
  system: string;
  input: string;
  maxOutputTokens: number;
}) => Promise<{ text: string; inputTokens?: number; outputTokens?: number }>;

export interface DistillDeps {
  rows: DistillRows;
  graph: L3Graph;
  events(ids: readonly number[]): StoredEvent[];
  extract: Extract;
  /** Moves the turns holding these events from L2 to L3 (ConversationContext.distilled). */
  distilled(conv: string, eventIds: readonly number[]): void;
  now(): number;
  sleep(ms: number): Promise<void>;
  log: {
    info(msg: string, fields?: Record<string, unknown>): void;
    warn(msg: string, fields?: Record<string, unknown>): void;
  };
}

export interface DistillRun {
  turns: number;
  events: number;
  facts: number;
  batches: number;
  skipped: number;
  tokens: number;
  /** Why the run stopped before every ready turn was tried ("" when it did not). */
  stopped: "" | "budget" | "model_failed";
}

interface ReadyTurn {
  conv: string;
  turn: string;
  ids: number[];
  /** Any of its events came from untrusted input. */
  untrusted: boolean;
}

/** An event is cut to this many tokens for the model (a long tool output says its facts early). */
const EVENT_TOKENS = 400;
/** A batch skipped this many times in one daemon's life is not tried again until a restart. */
const MAX_SKIPS = 3;

export class DistillJob {
  /** Skips per turn (bad or refused answers), so a turn the model never answers stops costing tokens. */
  private readonly skips = new Map<string, number>();
  private running: Promise<DistillRun> | null = null;

  constructor(
    private readonly d: DistillDeps,
    private readonly opts: () => DistillOptions,
  ) {}

  /**
   * The turns ready to distill now, oldest first (forgotten events and L3's own log excluded),
   * at most `limit`. Turns skipped MAX_SKIPS times are left out after the query, which asks for
   * that many more, so that old turns given up on never crowd out the newer ones.
   */
  ready(limit = 500): ReadyTurn[] {
    const o = this.opts();
    let givenUp = 0;
    for (const n of this.skips.values()) if (n >= MAX_SKIPS) givenUp++;
    const rows = this.d.rows.readyTurns(o.maxAccesses, this.d.now() - o.idleMs, limit + givenUp);
    return rows
      .map((r) => ({
        conv: r.conv,
        turn: r.turn,
        ids: (JSON.parse(r.ids) as number[]).sort((a, b) => a - b),
        untrusted: r.untrusted === 1,
      }))
      .filter((t) => (this.skips.get(`${t.conv}\u0000${t.turn}`) ?? 0) < MAX_SKIPS)
      .slice(0, limit);
  }

  /** One run (a run already going is joined, not doubled). */
  run(): Promise<DistillRun> {
    this.running ??= this.runNow().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async runNow(): Promise<DistillRun> {
    const o = this.opts();
    const out: DistillRun = { turns: 0, events: 0, facts: 0, batches: 0, skipped: 0, tokens: 0, stopped: "" };
    const ready = this.ready();
    if (ready.length === 0) return out;
    for (const batch of this.batches(ready, o.batchTokens)) {
      const input = distillInput(batch.events);
      const cost = estimateTokens(DISTILL_SYSTEM) + estimateTokens(input) + o.maxOutputTokens;
      if (out.tokens + cost > o.runBudgetTokens) {
        out.stopped = "budget";
        break;
      }
      out.batches++;
      const answer = await this.ask(input, o, out);
      if (answer === "failed") {
        out.stopped = "model_failed";
        break;
      }
      if (answer.kind !== "facts") {
        out.skipped++;
        for (const t of batch.turns) {
          const k = `${t.conv}\u0000${t.turn}`;
          this.skips.set(k, (this.skips.get(k) ?? 0) + 1);
        }
        this.d.log.warn(
          answer.kind === "refused"
            ? "distillation refused; nothing removed"
            : "distillation skipped: bad output; nothing removed",
          {
            turns: batch.turns.length,
            events: batch.events.length,
            ...(answer.kind === "bad" ? { reason: answer.reason } : {}),
          },
        );
        continue;
      }
      out.facts += this.commit(batch, answer.facts);
      out.turns += batch.turns.length;
      out.events += batch.turns.reduce((n, t) => n + t.ids.length, 0);
    }
    if (out.batches) this.d.log.info("distilled into L3", { ...out });
    return out;
  }

  /** The answer to one batch, asked again after a bad answer or a retryable failure; "failed" when the model cannot be reached. */
  private async ask(
    input: string,
    o: DistillOptions,
    out: DistillRun,
  ): Promise<ReturnType<typeof parseAnswer> | "failed"> {
    let last: ReturnType<typeof parseAnswer> = { kind: "bad", reason: "not asked" };
    for (let attempt = 0; attempt <= o.retries; attempt++) {
      if (attempt > 0) await this.d.sleep(o.backoffMs * 2 ** (attempt - 1));
      try {
        const r = await this.d.extract({ system: DISTILL_SYSTEM, input, maxOutputTokens: o.maxOutputTokens });
        out.tokens +=
          (r.inputTokens ?? estimateTokens(DISTILL_SYSTEM) + estimateTokens(input)) +
          (r.outputTokens ?? estimateTokens(r.text));
        last = parseAnswer(r.text);
        if (last.kind !== "bad") return last;
        this.d.log.warn("distillation answer unusable; asking again", { attempt: attempt + 1, reason: last.reason });
      } catch (err) {
        const retryable = (err as { retryable?: boolean }).retryable === true;
        this.d.log.warn("distillation call failed", { attempt: attempt + 1, retryable, err: (err as Error).message });
        if (!retryable) return "failed";
        if (attempt === o.retries) return "failed";
      }
    }
    return last;
  }

  /** Add a batch's facts and move its turns to L3, in one transaction; returns facts added or merged. */
  private commit(
    batch: Batch,
    facts: { subject: string; predicate: string; object: string; source: number }[],
  ): number {
    const ts = new Map(batch.events.map((e) => [e.id, e.ts]));
    const images = new Set(batch.events.flatMap((e) => e.images.map((i) => i.blockId)));
    let n = 0;
    this.d.rows.transaction(() => {
      for (const f of facts) {
        const at = ts.get(f.source);
        if (at === undefined) {
          this.d.log.warn("distilled fact names no excerpt of its batch; dropped", { source: f.source });
          continue;
        }
        const media = /^block:(\d+)$/.exec(f.object.trim());
        const blockId = media ? Number(media[1]) : null;
        this.d.graph.add({
          subject: { label: f.subject },
          predicate: f.predicate,
          object: blockId !== null && images.has(blockId) ? { blockId } : { label: f.object },
          sources: [f.source],
          validFrom: at,
          origin: "distill",
          version: DISTILL_VERSION,
        });
        n++;
      }
      // One move per conversation: each reads its conversation's turns from the log.
      const byConv = new Map<string, number[]>();
      for (const t of batch.turns) byConv.set(t.conv, [...(byConv.get(t.conv) ?? []), ...t.ids]);
      for (const [conv, ids] of byConv) this.d.distilled(conv, ids);
    });
    return n;
  }

  /**
   * Ready turns grouped into batches of about `tokens` (a turn is never split). Untrusted turns
   * are batched only with their own conversation's: a batch's facts can cite only its events, so
   * words a stranger wrote cannot make the model state a fact sourced in the person's own
   * conversations (the fact would be trusted), nor in another group's.
   */
  private *batches(ready: readonly ReadyTurn[], tokens: number): Generator<Batch> {
    const groups = new Map<string, ReadyTurn[]>();
    for (const t of ready) {
      const k = t.untrusted ? `untrusted\u0000${t.conv}` : "";
      groups.set(k, [...(groups.get(k) ?? []), t]);
    }
    for (const group of groups.values()) yield* this.sized(group, tokens);
  }

  private *sized(ready: readonly ReadyTurn[], tokens: number): Generator<Batch> {
    let cur: Batch = { turns: [], events: [] };
    let size = 0;
    for (const t of ready) {
      const evs = this.excerpts(t.ids);
      const cost = evs.reduce((n, e) => n + estimateTokens(e.text) + 8, 0);
      if (cur.turns.length && size + cost > tokens) {
        yield cur;
        cur = { turns: [], events: [] };
        size = 0;
      }
      cur.turns.push(t);
      cur.events.push(...evs);
      size += cost;
    }
    if (cur.turns.length) yield cur;
  }

  /** What the model is shown of a turn's events: those with text (a reply once), cut to EVENT_TOKENS. */
  private excerpts(ids: readonly number[]): DistillEvent[] {
    const out: DistillEvent[] = [];
    const blocks = this.d.rows.imageBlocks(ids);
    for (const e of this.d.events(ids)) {
      const body = readEventBody(e.kind, e.body);
      // A long attachment's chunks repeat what its user message already shows of it.
      if (body?.kind === "attachment-chunk") continue;
      const text = body ? bodyText(body) : null;
      const images = blocks.filter((b) => b.event_id === e.id).map((b) => ({ blockId: b.id, text: b.text }));
      if (!text && images.length === 0) continue;
      const role = e.kind === "user-message" ? "user" : e.kind === "tool-result" ? "tool" : "assistant";
      out.push({ id: e.id, ts: e.ts, role, text: cutToTokens(text ?? "", EVENT_TOKENS), images });
    }
    return out;
  }
}

interface Batch {
  turns: ReadyTurn[];
  events: DistillEvent[];
}
