/**
 * Agent Skills (docs/skills.md):
 *
 * skills.count, skills.invalid: a data dir prepared with 20 well-formed skills of everyday tasks
 * and 2 malformed ones; what the daemon's status counts of them (the catalog the turn uses).
 *
 * skills.scan_ms: what looking at 200 skills costs a turn when nothing changed (the catalog
 * stats each root and SKILL.md and keeps its list), median of 200 looks; skills.rescan_ms: the
 * look after one SKILL.md changed (every folder read and checked again), median of 20.
 *
 * skills.offer_bytes: what the `skill` tool, carrying the names and descriptions of the skills
 * that fit, adds to a request whose input fits some ("plan a week of dinners…"), as compact JSON.
 *
 * skills.prefix_reuse_pct, skills.turns_offered: cost.prefix_reuse_pct's 30-turn conversation
 * (bench/cost.ts) again with the 20 skills in the data dir — how much of each request the
 * provider could still read from its cache while skills ride along, and on how many of the 30
 * turns the request carried `skill`. Beside cost.prefix_reuse_pct (no skills) it says what
 * skills cost the cache.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startAgentRig } from "../test/harness/agent-daemon.ts";
import { SkillCatalog } from "../src/skills/skill-catalog.ts";
import { prefixReuse } from "./cost.ts";
import { median, report } from "./report.ts";

/** Everyday skills a person might install. */
const SKILLS: [string, string][] = [
  ["meal-planner", "Plan a week of dinners from what is in the fridge, with a shopping list grouped by aisle."],
  ["recipe-scaler", "Scale a recipe to a number of servings and convert units between metric and imperial."],
  ["trip-itinerary", "Build a day-by-day travel itinerary with transport between places and opening hours."],
  ["packing-list", "Make a packing list for a trip from its length, weather and activities."],
  ["budget-review", "Review a month of expenses from a CSV export, group them by category and flag unusual ones."],
  ["tax-receipts", "Sort receipts into deductible categories and total them for a tax return."],
  ["workout-plan", "Write a weekly workout plan for a goal (strength, running, mobility) and a schedule."],
  ["running-log", "Summarise a running log: weekly distance, pace trends and rest days."],
  ["garden-calendar", "Plan sowing and planting dates for vegetables from the local frost dates."],
  ["pet-care", "Keep a pet's vaccination, feeding and vet appointment schedule."],
  ["pdf-forms", "Fill in PDF forms: read the form's fields, write values into them and save a filled copy."],
  ["csv-report", "Turn a CSV file into a short report with totals, averages and a chart."],
  ["email-drafts", "Draft a polite email from a few notes, in the person's usual tone."],
  ["meeting-notes", "Turn a meeting transcript into notes with decisions and action items."],
  ["book-notes", "Summarise a book chapter by chapter with quotes and the main ideas."],
  ["language-drills", "Make vocabulary and grammar drills for a language being learnt, at a level."],
  ["home-repairs", "Plan a home repair: tools, materials, steps and when to call a professional."],
  ["car-maintenance", "Track a car's service intervals, tyre changes and inspection dates."],
  ["gift-ideas", "Suggest gift ideas for a person from their interests and a budget."],
  ["photo-organizer", "Sort photos into folders by date and place, and find duplicates."],
];

function writeSkill(root: string, name: string, description: string): void {
  mkdirSync(join(root, name, "scripts"), { recursive: true });
  writeFileSync(
    join(root, name, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n# ${name}\n\n1. Ask what is needed.\n2. Run scripts/run.sh.\n`,
  );
  writeFileSync(join(root, name, "scripts", "run.sh"), "echo done\n");
}

/** The 20 everyday skills (and, with `malformed`, 2 bad ones) in DATA/skills. */
function prepare(data: string, malformed: boolean): void {
  const root = join(data, "skills");
  for (const [name, description] of SKILLS) writeSkill(root, name, description);
  if (!malformed) return;
  mkdirSync(join(root, "no-description"), { recursive: true });
  writeFileSync(join(root, "no-description", "SKILL.md"), "---\nname: no-description\n---\nbody\n");
  mkdirSync(join(root, "Wrong_Name"), { recursive: true });
  writeFileSync(join(root, "Wrong_Name", "SKILL.md"), "---\nname: Wrong_Name\ndescription: x\n---\n");
}

export async function benchSkills(): Promise<void> {
  const data = mkdtempSync(join(tmpdir(), "homed-bench-skills-"));
  try {
    prepare(data, true);
    await using rig = await startAgentRig(data, { plugin: false });
    const counts = (await rig.status()).skills as { valid: number; invalid: number } | undefined;
    report("skills.count", counts?.valid ?? 0, "skills", 0);
    report("skills.invalid", counts?.invalid ?? 0, "skills", 0);
    rig.llm.script([{ text: "ok" }]);
    await rig.chat("plan a week of dinners from what is in my fridge and write the shopping list", { conv: "dinner" });
    const tools = (rig.llm.requests[0]?.body.tools ?? []) as { function: { name: string } }[];
    const skill = tools.find((t) => t.function.name === "skill");
    report("skills.offer_bytes", skill ? Buffer.byteLength(JSON.stringify(skill)) : 0, "B", 0);
  } finally {
    rmSync(data, { recursive: true, force: true });
  }

  const many = mkdtempSync(join(tmpdir(), "homed-bench-skills-"));
  try {
    const root = join(many, "skills");
    for (let i = 0; i < 200; i++) writeSkill(root, `skill-${i}`, `Skill number ${i}: does task ${i}.`);
    const catalog = new SkillCatalog({ dataDir: many, paths: () => [] });
    if (catalog.list().length !== 200) throw new Error("the catalog did not find the 200 skills");
    const looks: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      catalog.list();
      looks.push(performance.now() - t0);
    }
    report("skills.scan_ms", median(looks), "ms", 3);
    const rescans: number[] = [];
    for (let i = 0; i < 20; i++) {
      const file = join(root, `skill-${i}`, "SKILL.md");
      const when = new Date(Date.now() + (i + 1) * 1000);
      utimesSync(file, when, when);
      const t0 = performance.now();
      catalog.list();
      rescans.push(performance.now() - t0);
    }
    report("skills.rescan_ms", median(rescans), "ms", 2);
  } finally {
    rmSync(many, { recursive: true, force: true });
  }

  const r = await prefixReuse((d) => prepare(d, false));
  report("skills.prefix_reuse_pct", r.reusePct, "%", 1);
  report(
    "skills.turns_offered",
    r.bodies.filter((b) =>
      (JSON.parse(b).tools as { function: { name: string } }[]).some((t) => t.function.name === "skill"),
    ).length,
    "turns",
    0,
  );
}

if (import.meta.main) await benchSkills();
