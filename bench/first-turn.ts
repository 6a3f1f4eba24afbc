/**
 * turn.first_ms: the first /v1/chat/completions turn on a daemon that has just said it is ready
 * (a fresh data dir, the web plugin listening, the model configured), from sending the request to
 * the stream's `[DONE]`; the median over several fresh starts. turn.later_ms: the median of the
 * turns after it on the same daemons, so the two compare within one run. What the first turn
 * pays on top of the later ones is what the daemon loads on first use (the memory index, the
 * tokenizer's tables, compiled statements, the web plugin's routes).
 */
import { BenchDaemon } from "./bench-daemon.ts";
import { startFakeModel } from "./fake-model.ts";
import { streamTurn } from "./load.ts";
import { median, report } from "./report.ts";

/** Fresh daemons started; the median of 5 moves less than one slow start (2 shared cores). */
const STARTS = 5;
/** Turns after the first on each daemon, for turn.later_ms. */
const LATER_TURNS = 10;

/** One fresh daemon (`bin`, default dist/homed): the first turn's time and the later turns' times, in ms. */
export async function firstTurnRun(bin?: string): Promise<{ first: number; later: number[] }> {
  const model = startFakeModel();
  const daemon = await BenchDaemon.start({ model, bin: bin ? [bin] : undefined });
  try {
    const url = daemon.webUrl();
    const auth = daemon.bearer();
    const turn = async (i: number) => {
      const t0 = performance.now();
      const text = await streamTurn(url, auth, "bench", `turn ${i}: what should I plant in the garden this week?`);
      const ms = performance.now() - t0;
      if (text !== "ok") throw new Error(`turn ${i} replied ${JSON.stringify(text)}`);
      return ms;
    };
    const first = await turn(0);
    const later: number[] = [];
    for (let i = 1; i <= LATER_TURNS; i++) later.push(await turn(i));
    return { first, later };
  } finally {
    await daemon.stop();
    model.stop();
  }
}

export async function benchFirstTurn(): Promise<void> {
  const firsts: number[] = [];
  const later: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const run = await firstTurnRun();
    firsts.push(run.first);
    later.push(...run.later);
  }
  report("turn.first_ms", median(firsts), "ms");
  report("turn.later_ms", median(later), "ms");
}

if (import.meta.main) await benchFirstTurn();
