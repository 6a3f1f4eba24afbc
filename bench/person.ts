/**
 * memory.person_*: what a person meets of memory, through the daemon (bench/person/person.ts):
 * facts told in some conversations among everyday turns, each question asked in a new
 * conversation over `homed chat`, the web UI's /api/chat and /v1, and what counts is the request
 * the model gets. On the development person set (bench/person/cases-dev.ts; `_check`: the check
 * set written apart from it, bench/person/cases-check.ts):
 *   memory.person_hit_en / _zh          the fact's turn reached the model (% of told facts)
 *   memory.person_hit_<kind>            the same by kind, both languages (same, detail,
 *                                       synonym, paraphrase, category)
 *   memory.person_update_newest_pct     of updated facts, the newer reached the model
 *   memory.person_update_stale_alone_pct  the older did and the newer did not
 *   memory.person_unrelated_note_pct    questions about things never told that got remembered turns
 *   memory.person_remembered_avg        remembered turns that rode along with a question
 *   memory.person_search_top5_pct       memory.search with the question's words: the fact in the top 5
 *   memory.person_failed_turns          turns that failed or went unanswered
 */
import { PERSON_CASES_DEV, PERSON_FILLERS_DEV } from "./person/cases-dev.ts";
import { PERSON_CASES_CHECK, PERSON_FILLERS_CHECK } from "./person/cases-check.ts";
import { personFigures, runPersonSet } from "./person/person.ts";
import { report } from "./report.ts";

export async function benchPerson(): Promise<void> {
  for (const [suffix, cases, fillers] of [
    ["", PERSON_CASES_DEV, PERSON_FILLERS_DEV],
    ["_check", PERSON_CASES_CHECK, PERSON_FILLERS_CHECK],
  ] as const) {
    const f = personFigures(await runPersonSet(cases, fillers));
    report(`memory.person_hit_en${suffix}`, f.hitEn, "%");
    report(`memory.person_hit_zh${suffix}`, f.hitZh, "%");
    for (const kind of ["same", "detail", "synonym", "paraphrase", "category"] as const)
      report(`memory.person_hit_${kind}${suffix}`, f.byKind[kind], "%");
    report(`memory.person_update_newest_pct${suffix}`, f.updateNewest, "%");
    report(`memory.person_update_stale_alone_pct${suffix}`, f.updateStaleAlone, "%");
    report(`memory.person_unrelated_note_pct${suffix}`, f.unrelatedNote, "%");
    report(`memory.person_remembered_avg${suffix}`, f.remembered, "turns", 2);
    report(`memory.person_search_top5_pct${suffix}`, f.searchTop5, "%");
    report(`memory.person_failed_turns${suffix}`, f.failed, "turns", 0);
  }
}

if (import.meta.main) await benchPerson();
