/**
 * `bun bench/person/debug.ts [dev|check] ID…`: one case in process (its facts among the set's
 * fillers), and why its question does or does not quote the fact: the ranked candidates with
 * their coverage, and the question's words with their weights and concepts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryRig } from "../../test/harness/memory-rig.ts";
import { PERSON_CASES_DEV, PERSON_FILLERS_DEV } from "./cases-dev.ts";
import { PERSON_CASES_CHECK, PERSON_FILLERS_CHECK } from "./cases-check.ts";
import { CROSS_RECALL_MIN_COVERAGE } from "../../src/memory/cross-recall.ts";

const set = process.argv[2] === "check" ? "check" : "dev";
const all = process.argv.includes("-all");
const ids = all ? [] : process.argv.slice(3);
const cases = set === "check" ? PERSON_CASES_CHECK : PERSON_CASES_DEV;
const fillers = set === "check" ? PERSON_FILLERS_CHECK : PERSON_FILLERS_DEV;
if (all) {
  // One memory per language with every case told, then each question: where the fact stood.
  for (const lang of ["en", "zh"] as const) {
    const dir = mkdtempSync(join(tmpdir(), "person-debug-"));
    const rig = memoryRig(dir);
    let n = 0;
    const mine = cases.filter((x) => x.lang === lang);
    for (const x of mine)
      for (const t of x.told) rig.say(`talk-${n++ % 8}`, t, lang === "en" ? "ok, noted." : "好的，记下了。");
    for (const f of fillers[lang]) rig.say(`talk-${n++ % 8}`, f, lang === "en" ? "Happy to help." : "没问题。");
    const scope = { kind: "person", includeUntrusted: false } as const;
    for (const c of mine) {
      const found = rig.search.find(scope, c.question, 10).filter((f) => f.role === "user");
      const cover = rig.search.coverage(scope, c.question);
      if (c.kind === "never") {
        const best = found.map((f) => ({ f, cv: cover(f.text) })).sort((a, b) => b.cv.share - a.cv.share)[0];
        console.log(
          `NEVER ${best && best.cv.share >= CROSS_RECALL_MIN_COVERAGE ? "NOTE" : "ok  "} ${c.id.padEnd(12)} best ${best?.cv.share.toFixed(2)} [${best?.cv.said.join(",")}] ${c.question} -> ${best?.f.text.slice(0, 50)}`,
        );
        continue;
      }
      const passing = found.filter((f) => cover(f.text).share >= CROSS_RECALL_MIN_COVERAGE);
      const rank = found.findIndex((f) => f.text.includes(c.needle));
      const fact = c.told.at(-1) as string;
      const q = passing.slice(0, 3).some((f) => f.text.includes(c.needle));
      const cv = cover(fact);
      console.log(
        `${q ? "HIT " : rank < 0 ? "RANK" : cv.share < CROSS_RECALL_MIN_COVERAGE ? "GATE" : "CROWD"} ${c.id.padEnd(12)} rank ${rank} cov ${cv.share.toFixed(2)} [${cv.said.join(",")}] ${c.question}`,
      );
    }
    rig.store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
for (const id of ids) {
  const c = cases.find((x) => x.id === id);
  if (!c) throw new Error(`no case ${id}`);
  const dir = mkdtempSync(join(tmpdir(), "person-debug-"));
  const rig = memoryRig(dir);
  let n = 0;
  for (const x of cases.filter((x) => x.lang === c.lang))
    for (const t of x.told) rig.say(`talk-${n++ % 8}`, t, c.lang === "en" ? "ok, noted." : "好的，记下了。");
  for (const f of fillers[c.lang]) rig.say(`talk-${n++ % 8}`, f, c.lang === "en" ? "Happy to help." : "没问题。");
  const scope = { kind: "person", includeUntrusted: false } as const;
  const found = rig.search.find(scope, c.question, 10);
  const cover = rig.search.coverage(scope, c.question);
  console.log(`\n${c.id} ${c.kind}: ${c.question}   (needle: ${c.needle})`);
  for (const f of found) {
    const cv = cover(f.text);
    const mark = f.text.includes(c.needle) ? "*" : " ";
    console.log(
      `${mark} ${(f.score ?? 0).toFixed(2)} cov ${cv.share.toFixed(2)}${cv.share >= CROSS_RECALL_MIN_COVERAGE ? "✓" : " "} [${cv.said.join(",")}] ${f.role}: ${f.text.slice(0, 80)}`,
    );
  }
  const fact = c.told.at(-1) as string;
  if (!found.some((f) => f.text === fact)) {
    const cv = cover(fact);
    console.log(`  fact not in top 10; cov ${cv.share.toFixed(2)} [${cv.said.join(",")}]`);
  }
  const idx = (rig.memory as unknown as { index: { analyseEach(t: string): { term: string; concepts: string[] }[] } })
    .index;
  console.log(
    "  question:",
    idx
      .analyseEach(c.question)
      .map((w) => `${w.term}{${w.concepts.slice(0, 6).join(" ")}}`)
      .join("  "),
  );
  console.log(
    "  fact:    ",
    idx
      .analyseEach(fact)
      .map((w) => `${w.term}{${w.concepts.slice(0, 6).join(" ")}}`)
      .join("  "),
  );
  rig.store.close();
  rmSync(dir, { recursive: true, force: true });
}
