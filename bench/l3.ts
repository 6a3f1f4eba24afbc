/**
 * L3 figures (issue 15), on LongMemEval's knowledge-update questions (the shared dev quarter:
 * a fact stated, then changed sessions later; "how many projects have I completed …"):
 *   distill.tokens_per_event — prompt + answer tokens the distillation job spends per event
 *     distilled (estimated as the job counts them when a provider reports no usage), batches
 *     of the default 3000 tokens
 *   l3.recall_r10_base — is the latest statement of the fact (the newest session's has_answer
 *     user turn) among the first 10 events memory search finds for the question? No L3.
 *   l3.recall_r10 — the same with L3 made by the rules extractor (bench/l3-rules.ts, the
 *     offline floor): the sources of the first 3 facts L3 recall states come first, then the
 *     base list, 10 in all
 *   l3.recall_r10_scripted — the same with a scripted model that states exactly the evidence
 *     turns' facts under one predicate (the upper bound of a perfect extractor; supersession
 *     then decides which source is stated)
 *   l3.recall_r1_base, l3.recall_r1, l3.recall_r1_scripted — the latest statement is the first
 *     event (R@10 is already saturated by memory search on these questions: what L3 can add is
 *     putting the current statement before the superseded one)
 * Every haystack's user turns are logged, indexed and moved to L2, then distilled by the real
 * job (src/memory/distill.ts) on an injected clock; one store per question. In process.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Tokenizer } from "../src/embed/tokenizer.ts";
import { ConversationContext } from "../src/memory/context.ts";
import { DistillJob, type Extract } from "../src/memory/distill.ts";
import { L3Recall } from "../src/memory/l3-recall.ts";
import { Memory } from "../src/memory/memory.ts";
import { L3Graph } from "../src/store/l3-graph.ts";
import { Store } from "../src/store/store.ts";
import { excerptsOf, rulesExtract } from "./l3-rules.ts";
import { loadLongMemEval, type LmeQuestion } from "./recall/longmemeval.ts";
import { median, report } from "./report.ts";

const K = 10;
/** L3 takes at most this many of the ten places (it is added beside memory search, not instead of it). */
const L3_SLOTS = 3;
const parseDate = (d: string) => Date.parse(`${d.replace(/\s*\(\w+\)\s*/, " ")} UTC`);

interface Outcome {
  base: boolean;
  l3: boolean;
  /** The latest statement is first. */
  base1: boolean;
  l31: boolean;
  tokens: number;
  events: number;
  facts: number;
  /** Median ms of the note a turn would get (recall.note), on this question's graph. */
  noteMs: number;
}

/** One question: its haystack's user turns distilled with `extract`, then the question asked. */
async function runQuestion(q: LmeQuestion, mode: "rules" | "scripted", tokenizer: Tokenizer): Promise<Outcome | null> {
  const dir = mkdtempSync(join(tmpdir(), "homed-bench-l3-"));
  const store = Store.open(join(dir, "homed.db"));
  try {
    const memory = new Memory(store, tokenizer);
    const ctx = new ConversationContext(store, memory, 0);
    const graph = new L3Graph(store);
    const recall = new L3Recall(
      graph,
      (t) => tokenizer.tokens(t),
      () => store.forgottenBounds(),
    );
    const conv = q.question_id;
    const evidence = new Map<number, number>(); // event id → session time
    let latest = 0;
    q.haystack_sessions.forEach((session, si) => {
      const ts = parseDate(q.haystack_dates[si] as string);
      session.forEach((t, ti) => {
        if (t.role !== "user") return;
        const e = store.append({
          conv,
          kind: "user-message",
          actor: "user",
          body: { turn: `${si}:${ti}`, text: t.content },
          ts,
        });
        memory.add(e.id);
        if (t.has_answer) {
          evidence.set(e.id, ts);
          latest = Math.max(latest, ts);
        }
      });
    });
    const gold = new Set([...evidence].filter(([, ts]) => ts === latest).map(([id]) => id));
    if (gold.size === 0) return null;
    ctx.log.moveTurns(ctx.log.turns(conv), 2);
    const slot = `current ${q.question.replace(/[?.!]/g, "").toLowerCase()}`;
    // The scripted model: the evidence turns' facts, one predicate, the turn's own words as the value.
    const scripted: Extract = async ({ input }) => ({
      text: JSON.stringify({
        facts: excerptsOf(input)
          .filter((e) => evidence.has(e.id))
          .map((e) => ({ subject: "user", predicate: slot.slice(0, 120), object: e.text.slice(0, 120), source: e.id })),
      }),
    });
    const job = new DistillJob(
      {
        rows: store.distillRows,
        graph,
        events: (ids) => store.eventsByIds(ids),
        extract: mode === "rules" ? rulesExtract : scripted,
        distilled: (c, ids) => ctx.distilled(c, ids),
        now: () => Date.now() + 1000 * 86_400_000,
        sleep: async () => {},
        log: { info: () => {}, warn: () => {} },
      },
      () => ({
        idleMs: 72 * 3_600_000,
        maxAccesses: 2,
        runBudgetTokens: 10_000_000,
        batchTokens: 3000,
        maxOutputTokens: 1500,
        retries: 0,
        backoffMs: 0,
      }),
    );
    const run = await job.run();
    const scope = { kind: "conversation", conv } as const;
    const base = memory.search(scope, q.question, { limit: K }).map((f) => f.id);
    const fromL3: number[] = [];
    for (const r of recall.facts({ input: q.question, scope }, K))
      for (const s of [...r.sources].reverse())
        if (!fromL3.includes(s.eventId) && fromL3.length < L3_SLOTS) fromL3.push(s.eventId);
    const merged = [...new Set([...fromL3, ...base])].slice(0, K);
    const times: number[] = [];
    for (let i = 0; i < 21; i++) {
      const t0 = performance.now();
      recall.note({ conv, input: q.question, scope, budgetTokens: 40_000 });
      times.push(performance.now() - t0);
    }
    return {
      base: base.some((id) => gold.has(id)),
      l3: merged.some((id) => gold.has(id)),
      base1: gold.has(base[0] ?? 0),
      l31: gold.has(merged[0] ?? 0),
      tokens: run.tokens,
      events: run.events,
      facts: graph.count().facts,
      noteMs: median(times),
    };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchL3(): Promise<void> {
  const questions = loadLongMemEval().filter(
    (q) => q.question_type === "knowledge-update" && !q.question_id.endsWith("_abs"),
  );
  const tokenizer = new Tokenizer();
  const noteMs: number[] = [];
  const sums = {
    rules: { base: 0, l3: 0, base1: 0, l31: 0, n: 0, tokens: 0, events: 0, facts: 0 },
    scripted: { base: 0, l3: 0, base1: 0, l31: 0, n: 0, tokens: 0, events: 0, facts: 0 },
  };
  for (const mode of ["rules", "scripted"] as const)
    for (const q of questions) {
      const o = await runQuestion(q, mode, tokenizer);
      if (!o) continue;
      const s = sums[mode];
      s.n++;
      s.base += o.base ? 1 : 0;
      s.l3 += o.l3 ? 1 : 0;
      s.base1 += o.base1 ? 1 : 0;
      s.l31 += o.l31 ? 1 : 0;
      s.tokens += o.tokens;
      s.events += o.events;
      s.facts += o.facts;
      if (mode === "rules") noteMs.push(o.noteMs);
    }
  const r = sums.rules;
  const m = sums.scripted;
  report("distill.tokens_per_event", m.tokens / Math.max(m.events, 1), "tokens");
  report("l3.recall_r10_base", (100 * r.base) / Math.max(r.n, 1), "%");
  report("l3.recall_r10", (100 * r.l3) / Math.max(r.n, 1), "%");
  report("l3.recall_r10_scripted", (100 * m.l3) / Math.max(m.n, 1), "%");
  report("l3.recall_r1_base", (100 * r.base1) / Math.max(r.n, 1), "%");
  report("l3.recall_r1", (100 * r.l31) / Math.max(r.n, 1), "%");
  report("l3.recall_r1_scripted", (100 * m.l31) / Math.max(m.n, 1), "%");
  report("l3.note_ms", median(noteMs), "ms", 3);
  report("l3.note_ms_5k", noteCost(5000, tokenizer), "ms", 3);
  console.error(
    `l3: ${r.n} knowledge-update questions; rules made ${r.facts} facts from ${r.events} events, the scripted model ${m.facts}; R@10 hits base ${r.base}, rules ${r.l3}, scripted ${m.l3}; latest first: base ${r.base1}, rules ${r.l31}, scripted ${m.l31}`,
  );
}

/**
 * The note's cost on a larger graph: `n` facts over n/10 people with 5 predicates, asked about
 * two of them by name (median of 21), as a turn with a populated L3 pays it.
 */
function noteCost(n: number, tokenizer: Tokenizer): number {
  const dir = mkdtempSync(join(tmpdir(), "homed-bench-l3-big-"));
  const store = Store.open(join(dir, "homed.db"));
  try {
    const graph = new L3Graph(store);
    const recall = new L3Recall(
      graph,
      (t) => tokenizer.tokens(t),
      () => store.forgottenBounds(),
    );
    const preds = ["lives in", "works at", "likes", "owns", "knows"];
    store.db.transaction(() => {
      for (let i = 0; i < n; i++) {
        const e = store.append({
          conv: `c${i % 50}`,
          kind: "user-message",
          actor: "user",
          body: { turn: `t${i}`, text: "x" },
        });
        graph.add({
          subject: { label: `person${i % (n / 10)}` },
          predicate: preds[i % 5] as string,
          object: { label: `thing${i}` },
          sources: [e.id],
          validFrom: i,
          origin: "distill",
          version: "bench",
        });
      }
    })();
    const scope = { kind: "person", includeUntrusted: false } as const;
    const times: number[] = [];
    for (let i = 0; i < 21; i++) {
      const t0 = performance.now();
      recall.note({
        conv: "x",
        input: `where does person7 live, and what does person42 like?`,
        scope,
        budgetTokens: 40_000,
      });
      times.push(performance.now() - t0);
    }
    return median(times);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchL3();
