/**
 * One retrieval path: the same turns imported into a running daemon with `homed import` and
 * asked through memory.search (what `memory_search` and the memory page call), or given to
 * `homed recall --stdio`, come back in the same order — with speakers, sessions and a question
 * date that names a span ("last month").
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startDaemon } from "../harness/daemon.ts";
import { connectUnixRpc } from "../../src/ipc/unix-rpc.ts";

const DAY = 86_400_000;
const ASKED = Date.parse("2024-06-20T18:00:00Z");
const TURNS = [
  ["s1", -60, "user", "We adopted a beagle puppy called Max from the shelter."],
  ["s1", -60, "assistant", "Congratulations on Max! Beagles are friendly and curious."],
  ["s2", -25, "user", "Max chewed my running shoes last night, the new ones."],
  ["s2", -25, "assistant", "Puppies chew when teething; give him a rubber toy instead."],
  ["s3", -10, "user", "I ran my first 10k race on Sunday, finished in 58 minutes."],
  ["s3", -10, "assistant", "Well done on the 10k! Under an hour is a great first time."],
  ["s4", -2, "user", "Should I buy new running shoes before the half marathon?"],
  ["s4", -2, "assistant", "If yours have more than 600 km on them, yes."],
] as const;
const QUESTIONS = [
  "What did my puppy chew last month?",
  "How long did my first 10k take?",
  "What is my dog called?",
  "Which shoes did Max ruin?",
];

const quiet = { warn: () => {}, debug: () => {} };

describe("one retrieval path", () => {
  test("homed import + memory.search answers as homed recall --stdio does", async () => {
    using dir = tempDir();
    const lines = TURNS.map(([session, days, role, text], i) =>
      JSON.stringify({ conv: "dog", role, text, time: ASKED + days * DAY, session, id: `t${i}` }),
    );
    const file = join(dir.path, "turns.jsonl");
    await Bun.write(file, `${lines.join("\n")}\n`);

    // The stdio path, in a data dir of its own.
    using offline = tempDir();
    const ops = [
      { op: "reset", conv: "dog" },
      ...TURNS.map(([session, days, speaker, text], i) => ({
        op: "index",
        conv: "dog",
        id: `t${i}`,
        text,
        speaker,
        session,
        time: ASKED + days * DAY,
      })),
      ...QUESTIONS.map((text) => ({ op: "query", conv: "dog", text, k: 5, time: ASKED })),
    ];
    const stdio = await run([HOMED, "recall", "-stdio", "-data", offline.path], {
      stdin: `${ops.map((o) => JSON.stringify(o)).join("\n")}\n`,
    });
    expect(stdio.stderr).toBe("");
    const expected = stdio.stdout
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { ids: string[] }).ids);
    expect(expected.every((ids) => ids.length > 0)).toBe(true);

    // The daemon's path.
    await using d = await startDaemon(dir.path);
    const imported = await run([HOMED, "import", "-data", dir.path, file]);
    expect(imported.exitCode).toBe(0);
    const c = await connectUnixRpc(d.socket, quiet);
    const db = new Database(join(dir.path, "homed.db"), { readonly: true });
    try {
      const refOf = db.query<{ body: string }, [number]>("SELECT body FROM events WHERE id = ?");
      for (const [i, query] of QUESTIONS.entries()) {
        const r = (await c.peer.request("memory.search", { query, k: 5, time: ASKED })) as { hits: { id: number }[] };
        const live = r.hits.map((h) => (JSON.parse(refOf.get(h.id)?.body ?? "{}") as { ref: string }).ref);
        expect([query, live]).toEqual([query, expected[i] as string[]]);
      }
      await expect(c.peer.request("memory.search", { query: "", k: 5 })).rejects.toThrow();
    } finally {
      db.close();
      c.close();
    }
  }, 30_000);
});
