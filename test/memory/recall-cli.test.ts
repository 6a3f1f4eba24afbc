/**
 * `homed recall --stdio` as an evaluation harness would use it: JSON lines in, one line out per
 * query, problems on stderr, conversations isolated, generations reset, run from the compiled
 * binary (jieba's dictionary embedded).
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startDaemon } from "../harness/daemon.ts";

const lines = (...ops: unknown[]) => `${ops.map((o) => (typeof o === "string" ? o : JSON.stringify(o))).join("\n")}\n`;

describe("homed recall --stdio", () => {
  test("indexes English and Chinese turns and answers queries best first, one line each", async () => {
    using dir = tempDir();
    const r = await run([HOMED, "recall", "-stdio", "-data", dir.path], {
      cwd: "/",
      stdin: lines(
        { op: "reset", conv: "a" },
        {
          op: "index",
          conv: "a",
          id: "t1",
          text: "We adopted a beagle puppy and named him Max.",
          speaker: "user",
          time: "2025-01-02T10:00:00Z",
          session: 1,
          seq: 1,
        },
        {
          op: "index",
          conv: "a",
          id: "t2",
          text: "我上个月搬到了杭州，在一家咖啡店工作。",
          speaker: "user",
          time: "last week",
          session: 1,
          seq: 2,
        },
        { op: "index", conv: "a", id: "t3", text: "", speaker: "assistant", session: 1, seq: 3 },
        {
          op: "index",
          conv: "a",
          id: "t4",
          text: "The traffic this morning was terrible.",
          speaker: "user",
          session: 1,
          seq: 4,
        },
        { op: "commit", conv: "a" },
        { op: "query", conv: "a", qid: "q1", text: "what did we name the beagle?", k: 2 },
        { op: "query", conv: "a", qid: "q2", text: "我在杭州做什么工作？", k: 1 },
        { op: "query", conv: "b", qid: "q3", text: "beagle", k: 5 },
      ),
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
    expect(
      r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([{ ids: ["t1"] }, { ids: ["t2"] }, { ids: [] }]);
    // Each turn is an ordinary message in the log, the assistant's a reply, with the caller's id:
    // a time that parses is the event's time, another is kept as given.
    const db = new Database(join(dir.path, "homed.db"), { readonly: true });
    const rows = db
      .query<{ kind: string; ts: number; body: string }, []>(
        "SELECT kind, ts, body FROM events WHERE kind IN ('user-message', 'agent-reply') ORDER BY id",
      )
      .all()
      .map((r) => ({ kind: r.kind, ts: r.ts, ...JSON.parse(r.body) }));
    db.close();
    expect(rows.map((r) => [r.kind, r.ref, r.said])).toEqual([
      ["user-message", "t1", undefined],
      ["user-message", "t2", "last week"],
      ["agent-reply", "t3", undefined],
      ["user-message", "t4", undefined],
    ]);
    expect(rows[0]?.ts).toBe(Date.parse("2025-01-02T10:00:00Z"));
  });

  test("bad lines go to stderr and the stream goes on; a bad query still answers one line", async () => {
    using dir = tempDir();
    const r = await run([HOMED, "recall", "-stdio", "-data", dir.path], {
      stdin: lines(
        "not json",
        { op: "explode" },
        { op: "index", conv: "a", id: "x" },
        { op: "index", conv: "a", id: "x", text: "cello lessons twice a week" },
        { op: "query", conv: "a", text: "cello" },
        { op: "query", conv: "a", text: "cello", k: 3 },
      ),
    });
    expect(r.exitCode).toBe(0);
    const out = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(out.length).toBe(2);
    expect(out[0].ids).toEqual([]);
    expect(out[0].error).toContain("k");
    expect(out[1]).toEqual({ ids: ["x"] });
    expect(r.stderr.trim().split("\n").length).toBe(4);
    expect(r.stderr).toContain("line 1: not JSON");
  });

  test("reset starts a new generation: older turns stay in the log but are no longer visible", async () => {
    using dir = tempDir();
    const first = await run([HOMED, "recall", "-stdio", "-data", dir.path], {
      stdin: lines({ op: "index", conv: "a", id: "old", text: "piano lessons" }, { op: "commit", conv: "a" }),
    });
    expect(first.exitCode).toBe(0);
    const second = await run([HOMED, "recall", "-stdio", "-data", dir.path], {
      stdin: lines(
        { op: "query", conv: "a", text: "piano", k: 5 },
        { op: "reset", conv: "a" },
        { op: "query", conv: "a", text: "piano", k: 5 },
        { op: "index", conv: "a", id: "new", text: "piano recital" },
        { op: "query", conv: "a", text: "piano", k: 5 },
      ),
    });
    expect(
      second.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).ids),
    ).toEqual([["old"], [], ["new"]]);
  });

  test("blank lines count in line numbers, and a last line without a newline is still read", async () => {
    using dir = tempDir();
    const r = await run([HOMED, "recall", "-stdio", "-data", dir.path], {
      stdin: `\n${JSON.stringify({ op: "index", conv: "a", id: "x", text: "cello" })}\r\n\n{oops\n${JSON.stringify({ op: "query", conv: "a", text: "cello", k: 1 })}`,
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("recall: line 4: not JSON\n");
    expect(r.stdout).toBe('{"ids":["x"]}\n');
  });

  test("a 256 MiB line is skipped with a note on stderr, memory stays bounded, and the next query answers", async () => {
    using dir = tempDir();
    await using proc = Bun.spawn([HOMED, "recall", "-stdio", "-data", dir.path], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const stderr = new Response(proc.stderr).text();
    const out = proc.stdout.getReader();
    let got = "";
    /** The next answer line, or a failure after `ms` (an unbounded reader takes minutes and gigabytes). */
    const nextAnswer = async (ms = 15_000): Promise<unknown> => {
      const deadline = Date.now() + ms;
      while (!got.includes("\n")) {
        const timer = Bun.sleep(Math.max(0, deadline - Date.now())).then(() => "timeout" as const);
        const r = await Promise.race([out.read(), timer]);
        if (r === "timeout") throw new Error(`no answer within ${ms} ms`);
        if (r.done) throw new Error(`recall ended early: ${await stderr}`);
        got += new TextDecoder().decode(r.value);
      }
      const line = got.slice(0, got.indexOf("\n"));
      got = got.slice(line.length + 1);
      return JSON.parse(line);
    };
    /** The child's peak resident memory so far (VmHWM), in bytes. */
    const peakRss = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"))![1]) * 1024;
    const send = async (text: string | Uint8Array) => {
      proc.stdin.write(text);
      await proc.stdin.flush();
    };

    await send(
      lines(
        { op: "index", conv: "a", id: "cello", text: "cello lessons twice a week" },
        { op: "query", conv: "a", text: "cello", k: 1 },
      ),
    );
    expect(await nextAnswer()).toEqual({ ids: ["cello"] });
    const before = peakRss();
    const mib = new Uint8Array(1 << 20).fill(0x78); // "xxx…", one line
    const sending = (async () => {
      for (let i = 0; i < 256; i++) await send(mib);
      await send(`\n${lines({ op: "query", conv: "a", text: "cello", k: 1 })}`);
    })();
    expect(await nextAnswer()).toEqual({ ids: ["cello"] });
    await sending;
    const grew = peakRss() - before;
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
    expect(await stderr).toBe(`recall: line 3: longer than 4 MiB (268435456 bytes), skipped\n`);
    // At most one 4 MiB line is held (8 MB of growth measured): far below the line itself, which a
    // reader that buffers it needs whole, and more as a string.
    expect(grew).toBeLessThan(32 << 20);
  }, 60_000);

  test("it refuses to run while a daemon holds the data dir", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path);
    const r = await run([HOMED, "recall", "-stdio", "-data", dir.path], { stdin: "" });
    expect(r.exitCode).toBe(75);
    expect(r.stderr).toContain(`pid ${d.proc.pid}`);
  });
});

describe("concepts bridge words that share no letters", () => {
  test("dog finds a beagle, 城市 finds 杭州, and 狗 finds the English beagle", async () => {
    using dir = tempDir();
    const r = await run([HOMED, "recall", "-stdio", "-data", dir.path], {
      stdin: lines(
        { op: "index", conv: "a", id: "beagle", text: "We adopted a beagle puppy last weekend." },
        { op: "index", conv: "a", id: "hz", text: "我三月份搬到了杭州，箱子还没拆完。" },
        { op: "index", conv: "a", id: "noise", text: "The traffic this morning was terrible." },
        { op: "index", conv: "a", id: "noise2", text: "今天上班好累。" },
        { op: "query", conv: "a", text: "What is my dog like?", k: 1 },
        { op: "query", conv: "a", text: "我现在住在哪个城市？", k: 1 },
        { op: "query", conv: "a", text: "我的狗", k: 1 },
      ),
    });
    expect(r.stderr).toBe("");
    expect(
      r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).ids),
    ).toEqual([["beagle"], ["hz"], ["beagle"]]);
    // Plain word BM25 cannot make these connections.
    const plain = await run([HOMED, "recall", "-stdio", "-data", dir.path], {
      env: { HOMED_RECALL_SCORER: "bm25" },
      stdin: lines(
        { op: "query", conv: "a", text: "What is my dog like?", k: 4 },
        { op: "query", conv: "a", text: "我的狗", k: 4 },
      ),
    });
    for (const ids of plain.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).ids as string[]))
      expect(ids).not.toContain("beagle");
  });
});
