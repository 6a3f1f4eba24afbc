/**
 * Image blocks get their own dense vectors in the text space (issue 15) when the memory model is
 * CLIP-style: in process with the tiny generated pair (test/harness/tiny-onnx.ts), whose image
 * encoder maps a picture's mean colour into the 4-dimensional text space. In that space the
 * query "cat hound" is close to a green picture (cosine 0.77), far from the word "hello" (-1.0)
 * and a little like "world" (0.25) — so a turn that says "hello" and shows a green picture is
 * found first by what its picture shows, though its words say nothing of it.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { installBunPlugin } from "../harness/plugins.ts";
import { poll } from "../harness/poll.ts";
import { writeTinyClip, writeTinyModel } from "../harness/tiny-onnx.ts";
import { ranked, vectorRows } from "../harness/block-vectors.ts";
import { Store } from "../../src/store/store.ts";
import { BlockStore } from "../../src/store/blocks.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { Memory, eventText } from "../../src/memory/memory.ts";
import { DenseIndex } from "../../src/memory/dense-index.ts";
import { OnnxEmbedder } from "../../src/embed/onnx.ts";
import type { Embedder } from "../../src/embed/embedder.ts";
import { sharpModule } from "../../src/embed/image.ts";

const QUERY = "cat hound";

const png = async (r: number, g: number, b: number) =>
  new Uint8Array(
    await sharpModule()({ create: { width: 16, height: 12, channels: 3, background: { r, g, b } } })
      .png()
      .toBuffer(),
  );

class Logs {
  readonly lines: string[] = [];
  warn = (msg: string, f?: Record<string, unknown>) => this.lines.push(`warn ${msg} ${JSON.stringify(f ?? {})}`);
  info = (msg: string, f?: Record<string, unknown>) => this.lines.push(`info ${msg} ${JSON.stringify(f ?? {})}`);
}

/** A log with three tool results: "hello" + green picture, "world" alone, "hello" + blue picture. */
async function world(dir: string) {
  const store = Store.open(join(dir, "homed.db"), { imageTagChannels: ["qq"] });
  const blocks = new BlockStore(dir);
  const memory = new Memory(store, new Tokenizer());
  const ids: number[] = [];
  const result = async (name: string, image: Uint8Array | null) => {
    const images = image ? [{ sha256: blocks.put(image), mime: "image/png" as const, bytes: image.length }] : undefined;
    const body = { turn: "t", callId: `c${ids.length}`, name, status: "ok", content: "", images };
    const { id } = store.append({ conv: "c", kind: "tool-result", actor: "tool", body });
    memory.add(id);
    ids.push(id);
    return id;
  };
  const green = await result("hello", await png(0, 255, 0));
  const words = await result("world", null);
  const blue = await result("hello", await png(0, 0, 255));
  return { store, blocks, memory, ids, green, words, blue };
}

describe("image block vectors", () => {
  test("a CLIP-style model gives image blocks vectors; recall finds the turn by its picture", async () => {
    using dir = tempDir();
    writeTinyModel(join(dir.path, "text-only"), "tiny@1");
    writeTinyClip(join(dir.path, "clip"));
    const w = await world(dir.path);
    expect(w.memory.score("c", QUERY, w.ids).size).toBe(0); // no word in common

    // The same text space without an image encoder: the words alone, "world" first; no block vector.
    const logs = new Logs();
    w.memory.dense = new DenseIndex(w.store, await OnnxEmbedder.load(join(dir.path, "text-only")), logs, w.blocks);
    w.memory.dense.backfill(eventText);
    await w.memory.dense.idle();
    await w.memory.prepare(QUERY);
    expect(ranked(w.memory.score("c", QUERY, w.ids))[0]).toBe(w.words);
    expect(vectorRows(w.store)).toEqual([]);
    expect(w.memory.dense.imagesMade).toBe(0);

    // The CLIP-style pair: both pictures get vectors; the green one's turn comes first.
    const clip = new DenseIndex(w.store, await OnnxEmbedder.load(join(dir.path, "clip")), logs, w.blocks);
    w.memory.dense = clip;
    clip.backfill(eventText);
    await clip.idle();
    expect(clip.imagesMade).toBe(2);
    expect(vectorRows(w.store)).toEqual([
      { block_id: 1, embedder: "tiny-clip@1", dim: 4, has: 1 },
      { block_id: 2, embedder: "tiny-clip@1", dim: 4, has: 1 },
    ]);
    await w.memory.prepare(QUERY);
    const cos = clip.cosines("c", QUERY, w.ids) as Map<number, number>;
    expect(cos.get(w.green)).toBeCloseTo(0.768, 2); // the picture's cosine, not its words' (-1.0)
    expect(cos.get(w.words)).toBeCloseTo(0.25, 2);
    expect(cos.get(w.blue)).toBeCloseTo(0.19, 2); // blue beats the words "hello" too
    expect(ranked(w.memory.score("c", QUERY, w.ids))).toEqual([w.green, w.words, w.blue]);
    expect(w.memory.peekCold("c", QUERY, w.ids, 1).map((s) => s.id)).toEqual([w.green]);

    // A new turn is embedded as it is added, picture included (the cache picks it up).
    const bytes = await png(0, 250, 10);
    const body = {
      turn: "t2",
      callId: "n",
      name: "hello",
      status: "ok",
      content: "",
      images: [{ sha256: w.blocks.put(bytes), mime: "image/png" as const, bytes: bytes.length }],
    };
    const { id } = w.store.append({ conv: "c", kind: "tool-result", actor: "tool", body });
    w.memory.add(id);
    await clip.idle();
    expect(clip.imagesMade).toBe(3);
    expect(clip.cosines("c", QUERY, [id])?.get(id)).toBeGreaterThan(0.7);
    expect(logs.lines.filter((l) => l.startsWith("warn"))).toEqual([]);
    w.store.close();
  });

  test("a bad image is logged once and skipped; the queue goes on; the same bytes are embedded once", async () => {
    using dir = tempDir();
    writeTinyClip(join(dir.path, "clip"));
    const store = Store.open(join(dir.path, "homed.db"), { imageTagChannels: ["qq"] });
    const blocks = new BlockStore(dir.path);
    const memory = new Memory(store, new Tokenizer());
    const good = await png(0, 255, 0);
    const junk = new TextEncoder().encode("not an image at all");
    const add = (parts: Uint8Array[]) => {
      const images = parts.map((b) => ({ sha256: blocks.put(b), mime: "image/png" as const, bytes: b.length }));
      const body = { turn: "t", callId: "x", name: "hello", status: "ok", content: "", images };
      const { id } = store.append({ conv: "c", kind: "tool-result", actor: "tool", body });
      memory.add(id);
      return id;
    };
    const inner = await OnnxEmbedder.load(join(dir.path, "clip"));
    let calls = 0;
    const counting: Embedder = {
      id: inner.id,
      dim: inner.dim,
      embedTexts: (t) => inner.embedTexts(t),
      embedImages: (i) => {
        calls += i.length;
        return inner.embedImages(i);
      },
    };
    const logs = new Logs();
    memory.dense = new DenseIndex(store, counting, logs, blocks);
    const bad = add([junk, good]);
    const again = add([good]);
    await memory.dense.idle();
    expect(calls).toBe(2); // the junk and the first green picture; the second green one reuses its vector
    expect(memory.dense.imagesMade).toBe(2);
    expect(memory.dense.imagesFailed).toBe(1);
    expect(vectorRows(store).map((r) => [r.block_id, r.dim, r.has])).toEqual([
      [1, 0, 0],
      [2, 4, 1],
      [3, 4, 1],
    ]);
    const warns = logs.lines.filter((l) => l.startsWith("warn"));
    expect(warns).toHaveLength(1);
    expect(warns[0]).toContain("image block not embedded; it is found by its text alone");
    expect(warns[0]).toContain("not an image sharp can read");
    await memory.prepare(QUERY);
    const cos = memory.dense.cosines("c", QUERY, [bad, again]) as Map<number, number>;
    expect(cos.get(bad)).toBeCloseTo(cos.get(again) as number, 5); // its good picture counts

    // Next start with the same model: nothing is tried again, nothing logged.
    const logs2 = new Logs();
    const next = new DenseIndex(store, counting, logs2, blocks);
    next.backfill(eventText);
    await next.idle();
    expect(calls).toBe(2);
    expect(logs2.lines.filter((l) => l.includes("image"))).toEqual([]);
    store.close();
  });

  test("a small file claiming over 60 MP (a decompression bomb) is refused, not decoded", async () => {
    using dir = tempDir();
    writeTinyClip(join(dir.path, "clip"));
    const store = Store.open(join(dir.path, "homed.db"), { imageTagChannels: ["qq"] });
    const blocks = new BlockStore(dir.path);
    const bomb = new Uint8Array(
      await sharpModule()({ create: { width: 9000, height: 7000, channels: 3, background: "#0f0" } })
        .png({ compressionLevel: 9 })
        .toBuffer(),
    );
    expect(bomb.length).toBeLessThan(1 << 20); // 63 MP in well under a megabyte
    const images = [{ sha256: blocks.put(bomb), mime: "image/png" as const, bytes: bomb.length }];
    const body = { turn: "t", callId: "x", name: "hello", status: "ok", content: "", images };
    const { id } = store.append({ conv: "c", kind: "tool-result", actor: "tool", body });
    const logs = new Logs();
    const dense = new DenseIndex(store, await OnnxEmbedder.load(join(dir.path, "clip")), logs, blocks);
    dense.enqueue(id, "c", "hello\n");
    await dense.idle();
    expect(vectorRows(store).map((r) => [r.dim, r.has])).toEqual([[0, 0]]);
    expect(logs.lines.filter((l) => l.startsWith("warn")).join("\n")).toContain("exceeds pixel limit");
    store.close();
  });

  test("bytes missing from the block store: logged, marked, skipped", async () => {
    using dir = tempDir();
    writeTinyClip(join(dir.path, "clip"));
    const store = Store.open(join(dir.path, "homed.db"), { imageTagChannels: ["qq"] });
    const memory = new Memory(store, new Tokenizer());
    const body = {
      turn: "t",
      callId: "x",
      name: "hello",
      status: "ok",
      content: "",
      images: [{ sha256: "ab".repeat(32), mime: "image/png" as const, bytes: 10 }],
    };
    const { id } = store.append({ conv: "c", kind: "tool-result", actor: "tool", body });
    const logs = new Logs();
    memory.dense = new DenseIndex(
      store,
      await OnnxEmbedder.load(join(dir.path, "clip")),
      logs,
      new BlockStore(dir.path),
    );
    memory.add(id);
    await memory.dense.idle();
    expect(vectorRows(store).map((r) => [r.dim, r.has])).toEqual([[0, 0]]);
    expect(logs.lines.filter((l) => l.startsWith("warn")).join("\n")).toContain("is not in the block store");
    expect(memory.dense.made).toBe(1); // the text still got its vector
    store.close();
  });

  test("through the compiled daemon: a tool's picture gets its vector; a changed model re-embeds it", async () => {
    using dir = tempDir();
    writeTinyClip(join(dir.path, "models", "clip"));
    await Bun.write(join(dir.path, "config.toml"), '[memory]\nmodel = "clip"\n');
    installBunPlugin(dir.path, "image", "image.ts", { transport: "shm" });
    const vectors = () => {
      const db = new Database(join(dir.path, "homed.db"), { readonly: true });
      try {
        return db
          .query<{ block_id: number; embedder: string; dim: number }, []>(
            "SELECT block_id, embedder, dim FROM block_vectors WHERE vec IS NOT NULL ORDER BY embedder, block_id",
          )
          .all();
      } finally {
        db.close();
      }
    };
    {
      await using rig = await startAgentRig(dir.path);
      await rig.daemon.waitFor(/dense memory model loaded.*id=tiny-clip@1 dim=4/);
      await poll(rig.status, (st) => st.tools.some((t) => t.name === "image_make"), { what: "image_make registered" });
      rig.llm.script([
        { toolCalls: [{ id: "call_a", name: "image_make", arguments: { shots: [{ w: 6, h: 4 }] } }] },
        { text: "done" },
      ]);
      expect((await rig.chat("draw something")).exitCode).toBe(0);
      await poll(
        async () => vectors(),
        (v) => v.length >= 1,
        { what: "the picture's vector" },
      );
      expect(vectors()).toEqual([{ block_id: 1, embedder: "tiny-clip@1", dim: 4 }]);
      const st = (await rig.status()) as unknown as { memory: { imageVectorsMade: number } };
      expect(st.memory.imageVectorsMade).toBe(1);
      const human = await run([HOMED, "status", "-data", dir.path]);
      expect(human.stdout).toMatch(/dense model tiny-clip@1 \(\d+ vectors made, 1 of images, /);
    }
    // A new version of the model: the picture is embedded again at start, the old vector stays.
    const manifest = join(dir.path, "models", "clip", "homed-model.json");
    const m = JSON.parse(await Bun.file(manifest).text());
    await Bun.write(manifest, JSON.stringify({ ...m, id: "tiny-clip@2" }));
    {
      await using rig = await startAgentRig(dir.path);
      await rig.daemon.waitFor(
        /embedding image blocks that have no vector from this model.*embedder=tiny-clip@2 images=1/,
      );
      await poll(
        async () => vectors(),
        (v) => v.length >= 2,
        { what: "the picture's vector from the new model" },
      );
    }
    expect(vectors()).toEqual([
      { block_id: 1, embedder: "tiny-clip@1", dim: 4 },
      { block_id: 1, embedder: "tiny-clip@2", dim: 4 },
    ]);
  }, 60_000);
});
