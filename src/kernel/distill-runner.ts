/**
 * The kernel's L3: the graph over its store, recall for the agent, and the distillation job on
 * the kernel's clock, asking the configured model (src/llm) through the `extract` function memory
 * takes — memory itself never imports llm. Runs every [memory.distill] interval_minutes; a run
 * can also be asked for (l3/distill, the Knowledge page's "Distill now").
 */
import type { Tokenizer } from "../embed/tokenizer.ts";
import type { LanguageModel } from "../llm/types.ts";
import { DistillJob, type DistillRun, type Extract } from "../memory/distill.ts";
import { L3Recall } from "../memory/l3-recall.ts";
import { L3Graph } from "../store/l3-graph.ts";
import type { Store } from "../store/store.ts";
import type { Clock } from "./clock.ts";
import { type DistillConfig, distillOptions } from "./config/distill.ts";
import type { Logger } from "./log.ts";

/** The configured model as an extractor: the answer's text and usage; a failed call throws its LlmError (retryable says if). */
export function modelExtract(model: () => LanguageModel | string): Extract {
  return async ({ system, input, maxOutputTokens }) => {
    const m = model();
    if (typeof m === "string") throw Object.assign(new Error(m), { retryable: false });
    let text = "";
    let usage: { inputTokens: number; outputTokens: number } | null = null;
    for await (const e of m.stream({
      messages: [
        { role: "system", content: system },
        { role: "user", content: input },
      ],
      // No temperature: reasoning models refuse any but their own, and the turn sends none either.
      maxOutputTokens,
    })) {
      if (e.type === "text-delta") text += e.text;
      else if (e.type === "usage") usage = e.usage;
      else if (e.type === "finish" && (e.stopReason === "error" || e.stopReason === "aborted"))
        throw e.error ?? new Error(`model stream ended: ${e.stopReason}`);
    }
    return { text, ...(usage ?? {}) };
  };
}

export class KernelL3 {
  readonly graph: L3Graph;
  readonly recall: L3Recall;
  readonly job: DistillJob;
  private timer: unknown = null;
  private stopped = false;

  constructor(
    private readonly d: {
      store: Store;
      tokenizer: Tokenizer;
      config: { distill: DistillConfig };
      /** The configured model and its context window, read at each run. */
      llm: { model(): LanguageModel | string; readonly contextWindow: number };
      distilled: (conv: string, eventIds: readonly number[]) => void;
      clock: Clock;
      log: Logger;
    },
  ) {
    this.graph = new L3Graph(d.store);
    this.recall = new L3Recall(
      this.graph,
      (t) => d.tokenizer.tokens(t),
      () => d.store.forgottenBounds(),
    );
    this.job = new DistillJob(
      {
        rows: d.store.distillRows,
        graph: this.graph,
        events: (ids) => d.store.eventsByIds(ids),
        extract: modelExtract(() => d.llm.model()),
        distilled: d.distilled,
        now: () => d.clock.now(),
        sleep: (ms) => new Promise((resolve) => d.clock.setTimeout(resolve, ms)),
        log: d.log,
      },
      () => distillOptions(d.config.distill, d.llm.contextWindow),
    );
  }

  /** Run every interval (when enabled); the first run one interval after boot. */
  start(): void {
    if (this.stopped) return;
    const every = this.d.config.distill.interval_minutes * 60_000;
    this.timer = this.d.clock.setTimeout(() => {
      if (this.d.config.distill.enabled) void this.runNow().catch(() => {});
      this.start();
    }, every);
  }

  /** One run now; a failure is logged, never thrown into the daemon. */
  async runNow(): Promise<DistillRun> {
    try {
      return await this.job.run();
    } catch (err) {
      this.d.log.error("distillation run failed; nothing removed", { err: (err as Error).message });
      throw err;
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.d.clock.clearTimeout(this.timer);
  }
}
