/**
 * The person-wide index is kept between starts (src/memory/person-index.ts, index-snapshot.ts),
 * through the compiled daemon, `homed import` and the fake model: after an import of ten thousand
 * events the daemon makes the index in the background and saves it to DATA/index; the next start
 * restores it and reads only the events told after it, and ranks exactly as an index made from the
 * log; a snapshot of another data dir, or a damaged one, is ignored and the index made again.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, truncateSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { type AgentRig, startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";

const FILLER = "garden tomato ladder kettle violin harbour lantern meadow pepper bicycle tyre recipe".split(" ");

/** 5,100 exchanges (10,200 events) in 100 conversations, one of them telling the sailboat's name. */
function history(): string {
  const lines: string[] = [];
  const t0 = Date.parse("2020-01-01T08:00:00Z");
  for (let i = 0; i < 5_100; i++) {
    const conv = `old-${i % 100}`;
    const w = (k: number) => FILLER[(i * 7 + k * 5) % FILLER.length];
    const said =
      i === 2_345
        ? "My sister named her sailboat Marigold Thunderbird."
        : `The ${w(1)} and the ${w(2)} by the ${w(3)}, note ${i}.`;
    lines.push(JSON.stringify({ conv, role: "user", text: said, time: t0 + i * 60_000, id: `u${i}` }));
    lines.push(
      JSON.stringify({
        conv,
        role: "assistant",
        text: `About the ${w(4)}: fine.`,
        time: t0 + i * 60_000 + 5_000,
        id: `a${i}`,
      }),
    );
  }
  return `${lines.join("\n")}\n`;
}

const noteOf = (rig: AgentRig) => {
  const body = (rig.llm.requests.at(-1)?.body ?? { messages: [] }) as {
    messages: { role: string; content: string | null }[];
  };
  const msgs = body.messages;
  return (
    msgs.find((m) => m.role === "system" && (m.content ?? "").startsWith("From your other conversations"))?.content ??
    ""
  );
};

/** The figures of the daemon's "memory index ready" line. */
async function indexReady(rig: AgentRig): Promise<{ events: number; snapshotUpto: number }> {
  await rig.daemon.waitFor(/msg="memory index ready"/, 60_000);
  const m = /msg="memory index ready".* events=(\d+) snapshot_upto=(\d+)/.exec(rig.daemon.stderr());
  if (!m) throw new Error(`no figures in ${rig.daemon.stderr().slice(-2000)}`);
  return { events: Number(m[1]), snapshotUpto: Number(m[2]) };
}

async function search(rig: AgentRig, q: string): Promise<{ id: number; score: number | null }[]> {
  const web = await webUrlOf(rig.daemon);
  const hits = (await (await fetch(`${web}/api/memory/search?q=${encodeURIComponent(q)}`)).json()) as {
    id: number;
    score: number | null;
  }[];
  return hits.map(({ id, score }) => ({ id, score }));
}

const QUERIES = ["sailboat sister", "tomato ladder", "violin harbour note 4000", "climbing gym locker"];

describe("the person-wide index between starts", () => {
  test("saved after an import, restored at the next start with what came after; ranks as one made from the log", async () => {
    using dir = tempDir();
    const file = join(dir.path, "history.jsonl");
    writeFileSync(file, history());
    const snapshot = join(dir.path, "index", "person-trusted.bin");
    {
      await using rig = await startAgentRig(dir.path, { plugin: false });
      const imp = await run([HOMED, "import", file, "-data", dir.path, "-json"]);
      expect(imp.exitCode).toBe(0);
      // Made in the background once the import stopped coming, and saved: it holds 10,000 more events than none.
      await rig.daemon.waitFor(/msg="memory index saved"/, 60_000);
      expect(existsSync(snapshot)).toBe(true);
      // Told after the snapshot: two events, not enough for another.
      rig.llm.script([{ text: "Noted." }]);
      expect((await rig.chat("My locker code at the climbing gym is 4471.", { conv: "new-1" })).exitCode).toBe(0);
    }

    let restored: { id: number; score: number | null }[][];
    {
      await using rig = await startAgentRig(dir.path, { plugin: false });
      const ready = await indexReady(rig);
      expect(ready.snapshotUpto).toBeGreaterThan(10_000);
      expect(ready.events).toBe(10_202);
      rig.llm.script([{ text: "Marigold Thunderbird." }, { text: "4471." }]);
      await rig.chat("What did my sister name her sailboat?", { conv: "q-1" });
      expect(noteOf(rig)).toContain("Marigold Thunderbird");
      // Told after the snapshot: read from the log at the start.
      await rig.chat("What is the code of my climbing gym locker?", { conv: "q-2" });
      expect(noteOf(rig)).toContain("4471");
      restored = [];
      for (const q of QUERIES) restored.push(await search(rig, q));
      expect(restored.every((hits) => hits.length > 0)).toBe(true);
    }

    // Without the snapshot the index is made from the log: the same hits, the same scores.
    unlinkSync(snapshot);
    {
      await using rig = await startAgentRig(dir.path, { plugin: false });
      expect((await indexReady(rig)).snapshotUpto).toBe(0);
      const made: { id: number; score: number | null }[][] = [];
      for (const q of QUERIES) made.push(await search(rig, q));
      expect(made).toEqual(restored);
    }
  }, 180_000);

  test("a snapshot of another data dir, or a damaged one, is ignored and the index made from the log", async () => {
    using dir = tempDir();
    const file = join(dir.path, "history.jsonl");
    writeFileSync(file, history());
    const snapshot = join(dir.path, "index", "person-trusted.bin");
    {
      await using rig = await startAgentRig(dir.path, { plugin: false });
      expect((await run([HOMED, "import", file, "-data", dir.path, "-json"])).exitCode).toBe(0);
      await rig.daemon.waitFor(/msg="memory index saved"/, 60_000);
    }

    // Another person's data dir given this one's snapshot: their log has no event where it ends.
    using other = tempDir();
    mkdirSync(join(other.path, "index"), { recursive: true });
    copyFileSync(snapshot, join(other.path, "index", "person-trusted.bin"));
    {
      await using rig = await startAgentRig(other.path, { plugin: false });
      rig.llm.script([{ text: "Noted." }, { text: "I don't know." }]);
      await rig.chat("My sister named her sailboat Pebble.", { conv: "o-1" });
      expect((await indexReady(rig)).snapshotUpto).toBe(0);
      await rig.chat("What did my sister name her sailboat?", { conv: "o-2" });
      const note = noteOf(rig);
      expect(note).not.toContain("Marigold");
      expect(note).toContain("Pebble");
    }

    // Cut short (a disk that filled up): made from the log again.
    truncateSync(snapshot, 4096);
    {
      await using rig = await startAgentRig(dir.path, { plugin: false });
      expect(await indexReady(rig)).toEqual({ events: 10_200, snapshotUpto: 0 });
      rig.llm.script([{ text: "Marigold Thunderbird." }]);
      await rig.chat("What did my sister name her sailboat?", { conv: "q-3" });
      expect(noteOf(rig)).toContain("Marigold Thunderbird");
    }
  }, 180_000);
});
