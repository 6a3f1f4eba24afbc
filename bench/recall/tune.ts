/**
 * Development loop (not part of `make bench`): a set indexed once in process (the same code the
 * binary runs), then queried under each parameter set given as JSON on the command line, e.g.
 * `bun bench/recall/tune.ts user,all,locomo,chat '{"neighbours":0.1}'`. Halves (LongMemEval's even
 * and odd questions, LoCoMo's two conversations) show whether a gain holds on both.
 */
import type { RecallOp } from "../../src/protocol/recall.ts";
import { DEFAULT_PARAMS, PLAIN_BM25, type LexicalParams } from "../../src/memory/relevance.ts";
import { lmeOps, loadLongMemEval, scoreLme, type LmeCase } from "./longmemeval.ts";
import { chatSet, type ChatCase } from "./chat.ts";
import { indexedSession, recallAt } from "./harness.ts";
import { factsSet, type FactsCase } from "./dataset.ts";
import { loadLocomo, locomoOps, scoreLocomo } from "./locomo.ts";

export function tuneOn(
  ops: readonly RecallOp[],
  evaluate: (answers: (string | number)[][]) => string,
  variants: { name: string; scorer: "hybrid" | "bm25" | "bm25c"; params?: LexicalParams }[],
): void {
  const t0 = performance.now();
  const { session, queries, close } = indexedSession(ops);
  console.log(`indexed in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  try {
    for (const v of variants) {
      const t1 = performance.now();
      const answers = queries.map((q) => session.query(q, v.scorer, v.params));
      console.log(`${v.name}: ${evaluate(answers)} | ${(performance.now() - t1).toFixed(0)} ms`);
    }
  } finally {
    close();
  }
}

export function lmeSummary(cases: readonly LmeCase[], answers: (string | number)[][]): string {
  const s = scoreLme(cases, answers);
  const half = (h: number) => {
    const xs = s.perQuestion.filter((_, i) => i % 2 === h);
    return (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(3);
  };
  const types = Object.entries(s.byType)
    .map(
      ([t, v]) =>
        `${t
          .replace(/single-session-/, "ss-")
          .replace("temporal-reasoning", "temp")
          .replace("knowledge-update", "ku")
          .replace("multi-session", "multi")}=${v.r5.toFixed(2)}`,
    )
    .join(" ");
  return `R@5 ${s.r5.toFixed(3)} (${half(0)}/${half(1)}) R@10 ${s.r10.toFixed(3)} nDCG ${s.ndcg10.toFixed(3)} | ${types}`;
}

export function chatSummary(cases: readonly ChatCase[], answers: (string | number)[][]): string {
  const by = (lang: string, k: number) => {
    const xs = cases
      .map((c, i) => (c.lang === lang ? recallAt(answers[i] ?? [], c.evidence, k) : -1))
      .filter((x) => x >= 0);
    return (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(3);
  };
  return `R@10 en ${by("en", 10)} zh ${by("zh", 10)} | R@5 en ${by("en", 5)} zh ${by("zh", 5)}`;
}

export function factsSummary(cases: readonly FactsCase[], answers: (string | number)[][]): string {
  const by = (lang: string) => {
    const xs: number[] = cases
      .map((c, i) =>
        c.lang === lang ? ((answers[i] ?? []).slice(0, 10).some((id) => c.evidence.includes(String(id))) ? 1 : 0) : -1,
      )
      .filter((x) => x >= 0);
    return (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(3);
  };
  return `hit@10 en ${by("en")} zh ${by("zh")}`;
}

if (import.meta.main) {
  for (const set of (process.argv[2] ?? "user").split(",")) {
    const { ops, evaluate } =
      set === "facts"
        ? (() => {
            const x = factsSet();
            return { ops: x.ops, evaluate: (a: (string | number)[][]) => factsSummary(x.cases, a) };
          })()
        : set === "locomo"
          ? (() => {
              const data = loadLocomo();
              if (!data) throw new Error("../shared/data/locomo-dev is not beside this checkout");
              const x = locomoOps(data);
              return {
                ops: x.ops,
                evaluate: (a: (string | number)[][]) => {
                  const r = scoreLocomo(x.cases, a);
                  const cats = Object.entries(r.byCategory)
                    .map(([c, v]) => `c${c}=${v.r10.toFixed(2)}`)
                    .join(" ");
                  // By conversation, to see whether a gain holds on both (as LongMemEval's halves).
                  const convs = [...new Set(x.cases.map((c) => c.conv))]
                    .map((conv) => {
                      const xs = r.perQuestion.filter((_, i) => x.cases[i]?.conv === conv);
                      return `${conv} ${(xs.reduce((s, v) => s + v, 0) / xs.length).toFixed(3)}`;
                    })
                    .join(" ");
                  return `R@10 ${r.r10.toFixed(3)} (${convs}) R@5 ${r.r5.toFixed(3)} R@20 ${r.r20.toFixed(3)} MRR ${r.mrr.toFixed(3)} | ${cats}`;
                },
              };
            })()
          : set === "chat"
            ? (() => {
                const x = chatSet();
                return { ops: x.ops, evaluate: (a: (string | number)[][]) => chatSummary(x.cases, a) };
              })()
            : (() => {
                const x = lmeOps(loadLongMemEval(), set as "user" | "all");
                return { ops: x.ops, evaluate: (a: (string | number)[][]) => lmeSummary(x.cases, a) };
              })();
    const variants = [
      { name: "bm25", scorer: "bm25" as const },
      ...process.argv.slice(3).map((j) => ({
        name: j,
        scorer: "hybrid" as const,
        params: { ...DEFAULT_PARAMS, ...(JSON.parse(j) as Partial<LexicalParams>) },
      })),
    ];
    void PLAIN_BM25;
    console.log(`== ${set}`);
    tuneOn(ops, evaluate, variants);
  }
}
