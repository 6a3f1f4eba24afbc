/**
 * `bun bench/person/run.ts [dev|check|all] [-v]`: the person set through the daemon, its figures
 * and, with -v, every case that missed (the fact did not reach the model, a never-told question
 * got remembered turns, a turn failed) with what reached the model instead.
 */
import { PERSON_CASES_DEV, PERSON_FILLERS_DEV, type PersonCase } from "./cases-dev.ts";
import { PERSON_CASES_CHECK, PERSON_FILLERS_CHECK } from "./cases-check.ts";
import { personFigures, runPersonSet, type PersonOutcome } from "./person.ts";

const which = process.argv[2] ?? "dev";
const verbose = process.argv.includes("-v");
const sets: [string, PersonCase[], Record<"en" | "zh", string[]>][] = [];
if (which === "dev" || which === "all") sets.push(["dev", PERSON_CASES_DEV, PERSON_FILLERS_DEV]);
if (which === "check" || which === "all") sets.push(["check", PERSON_CASES_CHECK, PERSON_FILLERS_CHECK]);

const show = (o: PersonOutcome) =>
  `  ${o.id} [${o.channel}] ${o.question}\n${o.quoted.map((q) => `      ${q.slice(0, 110)}`).join("\n")}${o.failed ? `\n      FAILED ${o.failed}` : ""}`;
for (const [name, cases, fillers] of sets) {
  const t0 = performance.now();
  const out = await runPersonSet(cases, fillers);
  const f = personFigures(out);
  console.log(
    `${name}: ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    JSON.stringify(f, (_, v) => (typeof v === "number" ? Math.round(v * 10) / 10 : v)),
  );
  if (verbose) {
    console.log("missed:");
    for (const o of out.filter((o) => o.kind !== "never" && !o.hit)) console.log(show(o));
    console.log("never told, yet remembered turns:");
    for (const o of out.filter((o) => o.kind === "never" && o.remembered > 0)) console.log(show(o));
    console.log(
      "search missed:",
      out
        .filter((o) => o.kind !== "never" && !o.searchTop5)
        .map((o) => o.id)
        .join(" "),
    );
  }
}
