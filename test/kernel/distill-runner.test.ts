/**
 * The kernel's distillation schedule (src/kernel/distill-runner.ts) on a fake clock: a run every
 * [memory.distill] interval_minutes, none while disabled, none after stop — asking the
 * configured model (the fake LLM over real HTTP through the OpenAI provider), and no model at
 * all is a failed run that removes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { FakeClock } from "../harness/fake-clock.ts";
import { startFakeLlm, type FakeLlm } from "../harness/fake-llm.ts";
import { poll } from "../harness/poll.ts";
import { Store } from "../../src/store/store.ts";
import { Memory } from "../../src/memory/memory.ts";
import { ConversationContext } from "../../src/memory/context.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { KernelL3 } from "../../src/kernel/distill-runner.ts";
import { createLogger, createLogSink } from "../../src/kernel/log.ts";
import { createOpenAI } from "../../src/llm/openai.ts";
import type { LanguageModel } from "../../src/llm/types.ts";
import * as v from "valibot";
import { DistillConfig, distillOptions } from "../../src/kernel/config/distill.ts";

const HOUR = 3_600_000;

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.stop();
});

function rig(dir: string) {
  const store = Store.open(join(dir, "homed.db"));
  const tokenizer = new Tokenizer();
  const ctx = new ConversationContext(store, new Memory(store, tokenizer), 2);
  const clock = new FakeClock();
  // The fake clock starts in 2023; the log's times are real: move it past them first.
  clock.advance(Date.now() - clock.now() + 73 * HOUR);
  const config = { distill: v.parse(DistillConfig, {}) };
  let model: LanguageModel | string = createOpenAI({ kind: "openai", baseURL: llm.url, model: "m", apiKey: "k" });
  const l3 = new KernelL3({
    store,
    tokenizer,
    config,
    llm: {
      model: () => model,
      contextWindow: 128_000,
    },
    distilled: (conv, ids) => ctx.distilled(conv, ids),
    clock,
    log: createLogger(createLogSink("error")),
  });
  const e = store.append({
    conv: "c",
    kind: "user-message",
    actor: "user",
    body: { turn: "t", text: "I live in Oslo" },
  });
  ctx.log.moveTurns(ctx.log.turns("c"), 2);
  // Cold since real now; the clock is 73 h past it.
  return {
    store,
    l3,
    clock,
    config,
    event: e.id,
    noModel: (why: string) => {
      model = why;
    },
  };
}

describe("distillation schedule", () => {
  test("runs every interval while enabled, not while disabled, not after stop", async () => {
    using dir = tempDir();
    const r = rig(dir.path);
    r.config.distill.enabled = false;
    r.l3.start();
    const asked = llm.requests.length;
    r.clock.advance(60 * 60_000);
    expect(llm.requests.length).toBe(asked);
    expect(r.clock.pending()).toEqual([60 * 60_000]);
    r.config.distill.enabled = true;
    llm.script([
      {
        text: JSON.stringify({ facts: [{ subject: "user", predicate: "lives in", object: "Oslo", source: r.event }] }),
      },
    ]);
    r.clock.advance(60 * 60_000);
    await poll(
      () => r.l3.graph.count().facts,
      (n) => n === 1,
      { what: "the scheduled run's fact" },
    );
    expect(r.store.db.query("SELECT layer FROM event_state WHERE event_id = ?").get(r.event)).toEqual({ layer: 3 });
    r.l3.stop();
    expect(r.clock.pending()).toEqual([]);
    r.store.close();
  });

  test("without a configured model the run fails and removes nothing", async () => {
    using dir = tempDir();
    const r = rig(dir.path);
    r.noModel("no model is configured");
    expect(await r.l3.runNow()).toMatchObject({ stopped: "model_failed", facts: 0 });
    expect(r.store.db.query("SELECT layer FROM event_state WHERE event_id = ?").get(r.event)).toEqual({ layer: 2 });
    r.store.close();
  });

  test("batches and answers fit a small model's window", () => {
    const c = v.parse(DistillConfig, {});
    expect(distillOptions(c, 128_000)).toMatchObject({ batchTokens: 3000, maxOutputTokens: 1500, idleMs: 72 * HOUR });
    expect(distillOptions(c, 4096)).toMatchObject({ batchTokens: 2048, maxOutputTokens: 1024 });
  });
});
