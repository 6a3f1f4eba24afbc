/**
 * Audio blocks get their own dense vectors in the text space (issue 15) when the memory model is
 * CLAP-style: in process with the tiny generated pair (test/harness/tiny-onnx.ts), whose audio
 * encoder maps a clip's loudness and roughness into the 4-dimensional text space — a low hum onto
 * "hello", a whistle onto "world". The query "world" is far from the words "hello" (−0.24) and
 * close to "cat" (0.71): with the audio vectors, the turn that says "hello" and carries a
 * whistle comes first, though its words say nothing of it.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { sineWav, writeTinyClap, writeTinyClip, writeTinyModel } from "../harness/tiny-onnx.ts";
import { opusOf, ranked, vectorRows } from "../harness/block-vectors.ts";
import { Store } from "../../src/store/store.ts";
import { BlockStore } from "../../src/store/blocks.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { Memory, eventText } from "../../src/memory/memory.ts";
import { DenseIndex } from "../../src/memory/dense-index.ts";
import { OnnxEmbedder } from "../../src/embed/onnx.ts";
import type { Embedder } from "../../src/embed/embedder.ts";

const QUERY = "world";
const WHISTLE = 8000; // Hz at 48 kHz: a sixth of the tiny model's 16 kHz, so exactly on "world"

class Logs {
  readonly lines: string[] = [];
  warn = (msg: string, f?: Record<string, unknown>) => this.lines.push(`warn ${msg} ${JSON.stringify(f ?? {})}`);
  info = (msg: string, f?: Record<string, unknown>) => this.lines.push(`info ${msg} ${JSON.stringify(f ?? {})}`);
}

function log(dir: string) {
  const store = Store.open(join(dir, "homed.db"));
  const blocks = new BlockStore(dir);
  const memory = new Memory(store, new Tokenizer());
  /** A user message with these audio attachments (as an upload or a QQ voice message stores them). */
  const say = (text: string, clips: { bytes: Uint8Array; mime: "audio/wav" | "audio/ogg" }[]) => {
    const attachments = clips.map((c, i) => ({
      sha256: blocks.put(c.bytes),
      mime: c.mime,
      bytes: c.bytes.length,
      kind: "audio" as const,
      name: `clip${i}.${c.mime.slice(6)}`,
    }));
    const body = { turn: "t", text, ...(attachments.length ? { attachments } : {}) };
    const { id } = store.append({ conv: "c", kind: "user-message", actor: "user", body });
    memory.add(id);
    return id;
  };
  return { store, blocks, memory, say };
}

describe("audio block vectors", () => {
  test("a CLAP-style model gives audio blocks vectors; recall finds the turn by its sound", async () => {
    using dir = tempDir();
    writeTinyModel(join(dir.path, "text-only"), "tiny@1");
    writeTinyClip(join(dir.path, "clip"));
    writeTinyClap(join(dir.path, "clap"));
    const w = log(dir.path);
    const whistle = w.say("hello", [{ bytes: await opusOf(sineWav(WHISTLE, 1.5)), mime: "audio/ogg" }]);
    const cat = w.say("cat", []);
    const hum = w.say("hello", [{ bytes: sineWav(100, 1), mime: "audio/wav" }]);
    const ids = [whistle, cat, hum];
    expect(w.memory.score("c", QUERY, ids).size).toBe(0); // no word in common

    // Without an audio encoder (text only, or CLIP's images only): the words alone, no audio looked at.
    const logs = new Logs();
    for (const model of ["text-only", "clip"]) {
      const dense = new DenseIndex(w.store, await OnnxEmbedder.load(join(dir.path, model)), logs, w.blocks);
      w.memory.dense = dense;
      dense.backfill(eventText);
      await dense.idle();
      await w.memory.prepare(QUERY);
      expect(ranked(w.memory.score("c", QUERY, ids))[0]).toBe(cat);
      expect(dense.audioMade + dense.audioFailed + dense.imagesMade).toBe(0);
    }
    expect(vectorRows(w.store)).toEqual([]);

    // The CLAP-style pair: both clips get vectors; the whistle's turn comes first.
    const clap = new DenseIndex(w.store, await OnnxEmbedder.load(join(dir.path, "clap")), logs, w.blocks);
    w.memory.dense = clap;
    clap.backfill(eventText);
    await clap.idle();
    expect(clap.audioMade).toBe(2);
    expect(vectorRows(w.store)).toEqual([
      { block_id: 1, embedder: "tiny-clap@1", dim: 4, has: 1 },
      { block_id: 2, embedder: "tiny-clap@1", dim: 4, has: 1 },
    ]);
    await w.memory.prepare(QUERY);
    const cos = clap.cosines("c", QUERY, ids) as Map<number, number>;
    expect(cos.get(whistle)).toBeGreaterThan(0.85); // through Opus; the sound's cosine, not its words' (−0.24)
    expect(cos.get(cat)).toBeCloseTo(0.71, 2);
    expect(cos.get(hum)).toBeLessThan(0); // the hum sounds like "hello", far from "world"
    expect(ranked(w.memory.score("c", QUERY, ids)).slice(0, 2)).toEqual([whistle, cat]); // the hum scores too low to count
    expect(w.memory.peekCold("c", QUERY, ids, 1).map((s) => s.id)).toEqual([whistle]);
    await w.memory.prepare("hello");
    expect(ranked(w.memory.score("c", "hello", [whistle, hum]))[0]).toBe(hum);

    // A new voice message is embedded as it is added (the cache picks it up).
    const next = w.say("cat", [{ bytes: sineWav(WHISTLE, 0.8, 44100), mime: "audio/wav" }]);
    await clap.idle();
    expect(clap.audioMade).toBe(3);
    expect(clap.cosines("c", QUERY, [next])?.get(next)).toBeGreaterThan(0.9);
    expect(logs.lines.filter((l) => l.startsWith("warn"))).toEqual([]);
    expect(logs.lines.join("\n")).toMatch(/embedding audio blocks that have no vector from this model.*"clips":2/);
    w.store.close();
  });

  test("a corrupt clip is logged once and skipped; the queue goes on; the same bytes are embedded once", async () => {
    using dir = tempDir();
    writeTinyClap(join(dir.path, "clap"));
    const w = log(dir.path);
    const inner = await OnnxEmbedder.load(join(dir.path, "clap"));
    let calls = 0;
    const counting: Embedder = {
      id: inner.id,
      dim: inner.dim,
      embedTexts: (t) => inner.embedTexts(t),
      embedAudio: (c) => {
        calls += c.length;
        return inner.embedAudio(c);
      },
    };
    const logs = new Logs();
    w.memory.dense = new DenseIndex(w.store, counting, logs, w.blocks);
    const good = sineWav(WHISTLE, 1);
    const junk = new TextEncoder().encode("OggS but not really a voice message");
    const bad = w.say("hello", [
      { bytes: junk, mime: "audio/ogg" },
      { bytes: good, mime: "audio/wav" },
    ]);
    const again = w.say("hello", [{ bytes: good, mime: "audio/wav" }]);
    await w.memory.dense.idle();
    expect(calls).toBe(2); // the junk and the first whistle; the second reuses its vector
    expect(w.memory.dense.audioMade).toBe(2);
    expect(w.memory.dense.audioFailed).toBe(1);
    expect(vectorRows(w.store).map((r) => [r.block_id, r.dim, r.has])).toEqual([
      [1, 0, 0],
      [2, 4, 1],
      [3, 4, 1],
    ]);
    const warns = logs.lines.filter((l) => l.startsWith("warn"));
    expect(warns).toHaveLength(1);
    expect(warns[0]).toContain("audio block not embedded; it is found by its text alone");
    expect(warns[0]).toContain("ffmpeg cannot read it as audio");
    await w.memory.prepare(QUERY);
    const cos = w.memory.dense.cosines("c", QUERY, [bad, again]) as Map<number, number>;
    expect(cos.get(bad)).toBeCloseTo(cos.get(again) as number, 5); // its good clip counts

    // Next start with the same model: nothing is tried again, nothing logged.
    const logs2 = new Logs();
    const next = new DenseIndex(w.store, counting, logs2, w.blocks);
    next.backfill(eventText);
    await next.idle();
    expect(calls).toBe(2);
    expect(logs2.lines.filter((l) => l.includes("audio"))).toEqual([]);
    w.store.close();
  });

  test("without ffmpeg: one log line for all clips, none marked; WAV still embedded; the rest once ffmpeg is back", async () => {
    using dir = tempDir();
    writeTinyClap(join(dir.path, "clap"));
    const w = log(dir.path);
    const clip = await opusOf(sineWav(WHISTLE, 1));
    const clip2 = await opusOf(sineWav(WHISTLE, 1.2));
    w.say("hello", [{ bytes: clip, mime: "audio/ogg" }]);
    w.say("hello", [{ bytes: clip2, mime: "audio/ogg" }]);
    w.say("hello", [{ bytes: sineWav(100, 1), mime: "audio/wav" }]);
    const embedder = await OnnxEmbedder.load(join(dir.path, "clap"));
    const PATH = process.env.PATH;
    const logs = new Logs();
    try {
      process.env.PATH = "/nonexistent";
      const dense = new DenseIndex(w.store, embedder, logs, w.blocks);
      dense.backfill(eventText);
      await dense.idle();
      expect([dense.audioMade, dense.audioFailed]).toEqual([1, 2]);
    } finally {
      process.env.PATH = PATH;
    }
    const warns = logs.lines.filter((l) => l.startsWith("warn"));
    expect(warns).toHaveLength(1);
    expect(warns[0]).toContain("ffmpeg is not installed: apt install ffmpeg");
    expect(vectorRows(w.store).map((r) => [r.block_id, r.has])).toEqual([[3, 1]]);

    const dense = new DenseIndex(w.store, embedder, new Logs(), w.blocks);
    dense.backfill(eventText);
    await dense.idle();
    expect(dense.audioMade).toBe(2);
    expect(vectorRows(w.store).map((r) => [r.block_id, r.has])).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
    ]);
    w.store.close();
  });
});
