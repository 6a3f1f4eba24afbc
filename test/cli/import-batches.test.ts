/**
 * How `homed import` cuts its calls (src/cli/import-batches.ts) and draws its progress
 * (src/client/progress-bar.ts), in process with small limits and an injected clock: a
 * conversation goes whole into one call unless it alone is too large, JSON lines' messages of
 * one conversation gather into one entry, a failed call is the import's failure, and the bar
 * redraws in place at a terminal but prints a plain line now and then elsewhere.
 */
import { describe, expect, test } from "bun:test";
import { ImportBatches } from "../../src/cli/import-batches.ts";
import { ProgressBar } from "../../src/client/progress-bar.ts";
import type { ImportedConversation } from "../../src/protocol/import.ts";

const conv = (id: string, n: number, text = "x"): ImportedConversation => ({
  conv: id,
  messages: Array.from({ length: n }, (_, i) => ({ role: "user" as const, text, ref: `${id}-${i}` })),
});

const LIMITS = { messages: 10, bytes: 1 << 20, hardMessages: 25, hardBytes: 1 << 20 };

describe("ImportBatches", () => {
  test("whole conversations per call; one too large alone is sent in parts, in order", async () => {
    const calls: string[][] = [];
    const b = new ImportBatches(async (cs) => {
      calls.push(cs.map((c) => `${c.conv}:${c.messages[0]?.ref}+${c.messages.length}`));
    }, LIMITS);
    await b.add(conv("a", 4));
    await b.add(conv("b", 5));
    await b.add(conv("c", 3)); // 12 > 10: a and b go first
    await b.add(conv("empty", 0)); // nothing to send for it
    await b.add(conv("big", 60)); // over the hard limit of 25: c is sent first
    await b.add(conv("d", 1));
    await b.end();
    expect(calls).toEqual([
      ["a:a-0+4", "b:b-0+5"],
      ["c:c-0+3"],
      ["big:big-0+25"],
      ["big:big-25+25"],
      ["big:big-50+10"], // its last part fills the call: d goes on
      ["d:d-0+1"],
    ]);
  });

  test("messages of one conversation arriving one by one gather into one entry; bytes count too", async () => {
    const calls: ImportedConversation[][] = [];
    const b = new ImportBatches(async (cs) => void calls.push(cs), { ...LIMITS, bytes: 3 * 1000 + 3 * 200 });
    for (let i = 0; i < 5; i++)
      await b.add({ conv: "diary", messages: [{ role: "user", text: "y".repeat(500), ref: i }] });
    await b.end();
    // 3 messages of 500 characters fit 2,100 estimated bytes... 2 per call, at 1,700 each.
    expect(calls.map((cs) => cs.map((c) => c.messages.map((m) => m.ref)))).toEqual([[[0, 1]], [[2, 3]], [[4]]]);
  });

  test("a failed call is the import's failure, thrown once the batches are flushed", async () => {
    let n = 0;
    const b = new ImportBatches(async () => {
      if (++n === 1) throw new Error("the daemon closed the connection");
    }, LIMITS);
    await b.add(conv("a", 10));
    await b.add(conv("b", 10)).catch(() => {});
    await expect(b.end()).rejects.toThrow("the daemon closed the connection");
  });
});

describe("ProgressBar", () => {
  const out = (isTTY: boolean) => {
    const written: string[] = [];
    return { isTTY, written, write: (s: string) => written.push(s) };
  };

  test("at a terminal: redrawn in place at most every 100 ms; notes above it; cleared at the end", () => {
    let now = 0;
    const o = out(true);
    const bar = new ProgressBar(o, "homed import", 1000, "messages", () => now);
    now = 500;
    bar.update(500, 1000);
    now = 550;
    bar.update(600, 1200); // too soon
    bar.note("homed import: f.json: line 3: bad; skipped");
    now = 700;
    bar.update(1000, 2000);
    bar.end();
    expect(o.written).toEqual([
      "\r[############............]  50% 1,000 messages · 2,000/s\x1b[K",
      "\r\x1b[K",
      "homed import: f.json: line 3: bad; skipped\n",
      "[##############..........]  60% 1,200 messages · 2,182/s\x1b[K",
      "\r[########################] 100% 2,000 messages · 2,857/s\x1b[K",
      "\r\x1b[K",
    ]);
  });

  test("elsewhere: nothing for a quick run, then a plain line every 5 s", () => {
    let now = 0;
    const o = out(false);
    const bar = new ProgressBar(o, "homed import", 0, "messages", () => now);
    for (now = 0; now < 12_000; now += 250) bar.update(now, now);
    bar.note("a note");
    bar.end();
    expect(o.written).toEqual([
      "homed import: 5,000 messages · 1,000/s\n",
      "homed import: 10,000 messages · 1,000/s\n",
      "a note\n",
    ]);
  });
});
