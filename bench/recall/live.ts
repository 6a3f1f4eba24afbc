/**
 * recall.live_equals_stdio: the path people use and the path the benchmarks measure give the
 * same answers. For a fixed sample of 20 LongMemEval dev questions, each in a fresh data dir:
 * the haystack's user turns imported with `homed import` (JSON lines) into a running daemon and
 * the question asked through the search `memory_search` calls (the control socket's
 * memory.search, at the question's date), against `homed recall --stdio` on the same turns; the
 * share of questions whose ordered top 10 are identical.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BenchDaemon } from "../bench-daemon.ts";
import { runImport } from "../import.ts";
import { parseTime } from "../../src/memory/time.ts";
import { runBinary } from "./harness.ts";
import { type LmeQuestion, lmeOps } from "./longmemeval.ts";

const SAMPLE = 20;
const K = 10;

/** Every fifth question with evidence among the user turns, from the first: a fixed sample. */
export function liveSample(questions: readonly LmeQuestion[]): LmeQuestion[] {
  const usable = questions.filter((q) => lmeOps([q], "user").cases.length === 1);
  const step = Math.max(1, Math.floor(usable.length / SAMPLE));
  return usable.filter((_, i) => i % step === 0).slice(0, SAMPLE);
}

/** The question's user turns as `homed import` JSON lines, ids as `homed recall` gets them. */
function importLines(q: LmeQuestion): string {
  const lines: string[] = [];
  q.haystack_sessions.forEach((session, si) => {
    session.forEach((t, ti) => {
      if (t.role !== "user") return;
      lines.push(
        JSON.stringify({
          conv: q.question_id,
          role: "user",
          text: t.content,
          time: parseTime(q.haystack_dates[si]),
          session: q.haystack_session_ids[si],
          id: `${si}:${ti}`,
        }),
      );
    });
  });
  return `${lines.join("\n")}\n`;
}

/** The top K of `q` through a running daemon that imported its haystack, as the turns' ids. */
async function throughDaemon(q: LmeQuestion): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "homed-bench-live-"));
  const daemon = await BenchDaemon.start({ web: false });
  try {
    const file = join(dir, "haystack.jsonl");
    await Bun.write(file, importLines(q));
    await runImport(daemon.data, file);
    const r = (await daemon.request("memory.search", {
      query: q.question,
      k: K,
      time: parseTime(q.question_date) ?? undefined,
    })) as { hits: { id: number }[] };
    const db = new Database(join(daemon.data, "homed.db"), { readonly: true });
    try {
      const ref = db.query<{ body: string }, [number]>("SELECT body FROM events WHERE id = ?");
      return r.hits.map((h) => String((JSON.parse(ref.get(h.id)?.body ?? "{}") as { ref?: unknown }).ref));
    } finally {
      db.close();
    }
  } finally {
    await daemon.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Share of the sample whose ordered top K agree (an empty answer never counts), and the questions that differ. */
export async function liveEqualsStdio(questions: readonly LmeQuestion[]): Promise<{ share: number; differ: string[] }> {
  const sample = liveSample(questions);
  const differ: string[] = [];
  for (const q of sample) {
    const { ops } = lmeOps([q], "user");
    const stdio = ((await runBinary(ops, "hybrid"))[0] ?? []).map(String);
    const live = await throughDaemon(q);
    if (live.length === 0 || JSON.stringify(stdio) !== JSON.stringify(live)) differ.push(q.question_id);
  }
  return { share: (sample.length - differ.length) / Math.max(sample.length, 1), differ };
}

if (import.meta.main) {
  const { loadLongMemEval } = await import("./longmemeval.ts");
  const r = await liveEqualsStdio(loadLongMemEval());
  console.log(r);
}
