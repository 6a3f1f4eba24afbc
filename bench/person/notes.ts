/**
 * `bun bench/person/notes.ts [-v]`: both person sets in process, through the note the daemon adds
 * (crossRecallNote over the memory bench/person/person.ts builds: the same turns in the same
 * order and conversations, each question asked in a new one and answered with nothing). Counts
 * what bench/person/run.ts counts through the daemon's note — the fact quoted, the newer of an
 * update, the older alone, a note for a question about something never told, quoted turns — in
 * seconds, for trying a change to the gate. The daemon's run stays the figure that counts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryRig } from "../../test/harness/memory-rig.ts";
import { mulberry32 } from "../../test/harness/prng.ts";
import { crossRecallNote } from "../../src/memory/cross-recall.ts";
import { PERSON_CASES_DEV, PERSON_FILLERS_DEV, type PersonCase } from "./cases-dev.ts";
import { PERSON_CASES_CHECK, PERSON_FILLERS_CHECK } from "./cases-check.ts";
import { type Lang, REPLIES, shuffled, tellingOrder } from "./person.ts";

const verbose = process.argv.includes("-v");
const sets: [string, PersonCase[], Record<Lang, string[]>][] = [
  ["dev", PERSON_CASES_DEV, PERSON_FILLERS_DEV],
  ["check", PERSON_CASES_CHECK, PERSON_FILLERS_CHECK],
];
const pct = (a: number, b: number) => `${b ? ((100 * a) / b).toFixed(1) : "-"}%`;

for (const [name, cases, fillers] of sets) {
  const hit: Record<Lang, [number, number]> = { en: [0, 0], zh: [0, 0] };
  const kinds = new Map<string, [number, number]>();
  const n = { newest: 0, staleAlone: 0, updates: 0, never: 0, neverNote: 0, quoted: 0, asked: 0 };
  for (const lang of ["en", "zh"] as const) {
    const dir = mkdtempSync(join(tmpdir(), "person-notes-"));
    const rig = memoryRig(dir);
    const rand = mulberry32(41);
    const mine = cases.filter((x) => x.lang === lang);
    for (const t of tellingOrder(lang, mine, fillers[lang], rand)) rig.say(t.conv, t.text, t.reply);
    const pick = (xs: string[]) => xs[Math.floor(rand() * xs.length)] as string;
    for (const c of shuffled(mine, rand)) {
      const note = crossRecallNote(rig.search, rig.memory, {
        conv: `ask-${c.id}`,
        turn: `ask-turn-${c.id}`,
        input: c.question,
        scope: { kind: "person", includeUntrusted: false },
        budgetTokens: 8000,
      });
      // Asked and answered with nothing, as in the daemon's run: later questions meet it.
      rig.say(`ask-${c.id}`, c.question, pick(REPLIES[lang].question));
      const text = note ? note.entry.message.content : "";
      n.quoted += text ? text.split("\n").length - 1 : 0;
      n.asked++;
      if (c.kind === "never") {
        n.never++;
        if (note) n.neverNote++;
        if (verbose && note) console.log(`${name} NOTE ${c.id} ${c.question}\n${text}\n`);
        continue;
      }
      const got = text.includes(c.needle);
      hit[lang][1]++;
      if (got) hit[lang][0]++;
      const k = kinds.get(c.kind) ?? [0, 0];
      kinds.set(c.kind, [k[0] + (got ? 1 : 0), k[1] + 1]);
      if (c.kind === "update") {
        n.updates++;
        if (got) n.newest++;
        else if (c.stale && text.includes(c.stale)) n.staleAlone++;
      }
      if (verbose && !got) console.log(`${name} MISS ${c.id} ${c.question}\n${text || "(no note)"}\n`);
    }
    rig.store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const byKind = [...kinds].map(([k, [a, b]]) => `${k} ${a}/${b}`).join(" ");
  console.log(
    `${name}: en ${pct(...hit.en)} zh ${pct(...hit.zh)} | ${byKind} | newest ${n.newest}/${n.updates} stale-alone ${n.staleAlone} | never-note ${n.neverNote}/${n.never} | quoted ${(n.quoted / n.asked).toFixed(2)}`,
  );
}
