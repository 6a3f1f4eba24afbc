/**
 * Dense vectors in memory: made in the background for every event, used in scoring, and re-made
 * when the model changes — through the daemon, with the tiny model the tests generate.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { writeTinyModel } from "../harness/tiny-onnx.ts";
import { poll } from "../harness/poll.ts";
import { Store } from "../../src/store/store.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { Memory } from "../../src/memory/memory.ts";
import { DenseIndex } from "../../src/memory/dense-index.ts";
import { OnnxEmbedder } from "../../src/embed/onnx.ts";

const quiet = { warn: () => {}, info: () => {} };

async function vectorsBy(data: string): Promise<Record<string, number>> {
  const db = new Database(join(data, "homed.db"), { readonly: true });
  const rows = db
    .query<{ embedder: string; n: number }, []>("SELECT embedder, count(*) AS n FROM event_vectors GROUP BY embedder")
    .all();
  db.close();
  return Object.fromEntries(rows.map((r) => [r.embedder, r.n]));
}

describe("dense memory", () => {
  test("events get vectors from the configured model; a changed model re-embeds the past", async () => {
    using dir = tempDir();
    writeTinyModel(join(dir.path, "models", "tiny"), "tiny@1");
    await Bun.write(join(dir.path, "config.toml"), '[memory]\nmodel = "tiny"\n');
    {
      await using rig = await startAgentRig(dir.path, { plugin: false });
      await rig.daemon.waitFor(/dense memory model loaded.*id=tiny@1 dim=4/);
      rig.llm.script([{ text: "hello to you" }, { text: "the world says hi" }]);
      expect((await rig.chat("hello world")).exitCode).toBe(0);
      expect((await rig.chat("dog playing")).exitCode).toBe(0);
      await poll(
        () => rig.status() as Promise<unknown> as Promise<{ memory: { vectorsMade: number } }>,
        (st) => st.memory.vectorsMade >= 4,
        { what: "four vectors made" },
      );
      const st = (await rig.status()) as unknown as { memory: { embedder: string; vectorsMade: number } };
      expect(st.memory.embedder).toBe("tiny@1");
      expect(st.memory.vectorsMade).toBe(4); // two inputs, two replies
      const human = await run([HOMED, "status", "-data", dir.path]);
      expect(human.stdout).toContain("dense model tiny@1");
    }
    expect(await vectorsBy(dir.path)).toEqual({ "tiny@1": 4 });
    // A new version of the model: the same events are embedded again, the old vectors stay.
    writeTinyModel(join(dir.path, "models", "tiny"), "tiny@2");
    {
      await using rig = await startAgentRig(dir.path, { plugin: false });
      await rig.daemon.waitFor(/embedding events that have no vector from this model.*embedder=tiny@2 events=4/);
      await poll(
        () => rig.status() as Promise<unknown> as Promise<{ memory: { vectorsMade: number } }>,
        (st) => st.memory.vectorsMade >= 4,
        { what: "four vectors made" },
      );
    }
    expect(await vectorsBy(dir.path)).toEqual({ "tiny@1": 4, "tiny@2": 4 });
  });

  test("a missing model is reported and memory goes on with words and concepts", async () => {
    using dir = tempDir();
    await Bun.write(join(dir.path, "config.toml"), '[memory]\nmodel = "nothing-here"\n');
    await using rig = await startAgentRig(dir.path, { plugin: false });
    await rig.daemon.waitFor(/dense memory model not loaded; memory uses words and concepts only.*model=nothing-here/);
    rig.llm.script([{ text: "still fine" }]);
    expect((await rig.chat("hi")).stdout).toBe("still fine\n");
  });

  test("scoring uses dense cosine: an event sharing no word with the query can still be found", async () => {
    using dir = tempDir();
    writeTinyModel(join(dir.path, "tiny"));
    const store = Store.open(join(dir.path, "m.db"));
    const memory = new Memory(store, new Tokenizer());
    const ids: number[] = [];
    for (const text of ["hello world", "cat", "你好"]) {
      const { id } = store.append({ conv: "c", kind: "user-message", actor: "u", body: { text } });
      memory.add(id);
      ids.push(id);
    }
    expect(memory.score("c", "play", ids).size).toBe(0); // lexically, nothing matches "play"
    memory.dense = new DenseIndex(store, await OnnxEmbedder.load(join(dir.path, "tiny")), quiet);
    memory.dense.backfill((_k, body) => JSON.parse(body).text);
    await memory.dense.idle();
    await memory.prepare("play");
    const scored = memory.score("c", "play", ids);
    expect(scored.size).toBeGreaterThan(0);
    for (const s of scored.values()) expect(s).toBeGreaterThan(0);
    store.close();
  });
});
