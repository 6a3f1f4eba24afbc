/**
 * Development aid (not part of `make bench`): LongMemEval dev questions whose evidence misses the
 * top 5 under the default scorer, with the evidence's ranks and the turns that beat it, e.g.
 * `bun bench/recall/failures.ts user multi-session`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Store } from "../../src/store/store.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { RecallSession } from "../../src/memory/recall-session.ts";
import { DEFAULT_PARAMS, type LexicalParams } from "../../src/memory/relevance.ts";
import { loadLongMemEval } from "./longmemeval.ts";

const roles = (process.argv[2] ?? "user") as "user" | "all";
const type = process.argv[3] ?? "";
const params: LexicalParams = { ...DEFAULT_PARAMS, ...(JSON.parse(process.argv[4] ?? "{}") as Partial<LexicalParams>) };
const dir = mkdtempSync(join(tmpdir(), "homed-fail-"));
const store = Store.open(join(dir, "homed.db"));
const cut = (s: string, n = 220) => s.replace(/\s+/g, " ").slice(0, n);
try {
  const session = new RecallSession(store, new Tokenizer());
  for (const q of loadLongMemEval()) {
    if (q.question_id.endsWith("_abs") || (type && q.question_type !== type)) continue;
    const text = new Map<string, string>();
    const evidence: string[] = [];
    session.handle({ op: "reset", conv: q.question_id });
    q.haystack_sessions.forEach((s, si) => {
      s.forEach((t, ti) => {
        if (roles === "user" && t.role !== "user") return;
        const id = `${si}:${ti}`;
        text.set(id, t.content);
        if (t.has_answer) evidence.push(id);
        session.handle({
          op: "index",
          conv: q.question_id,
          id,
          text: t.content,
          speaker: t.role,
          time: q.haystack_dates[si],
          session: q.haystack_session_ids[si],
          seq: ti,
        });
      });
    });
    session.commit();
    if (evidence.length === 0) continue;
    const top = session
      .query(
        { op: "query", conv: q.question_id, qid: q.question_id, text: q.question, k: 50, time: q.question_date },
        "hybrid",
        params,
      )
      .map(String);
    const hit = evidence.filter((e) => top.slice(0, 5).includes(e)).length;
    if (hit === evidence.length) continue;
    console.log(
      `\n### ${q.question_type} ${q.question_id} ${hit}/${evidence.length} | ${q.question} (${q.question_date})`,
    );
    for (const e of evidence)
      console.log(
        `  EV rank ${top.indexOf(e) + 1} [${e} ${q.haystack_dates[Number(e.split(":")[0])]}] ${cut(text.get(e) ?? "", 400)}`,
      );
    for (const id of top.slice(0, 5))
      if (!evidence.includes(id)) console.log(`  top ${top.indexOf(id) + 1} [${id}] ${cut(text.get(id) ?? "")}`);
  }
} finally {
  store.close();
  rmSync(dir, { recursive: true, force: true });
}
