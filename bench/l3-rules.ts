/**
 * A non-LLM extractor for bench/l3.ts, the offline floor of L3: rules over the person's
 * first-person sentences ("I moved to X", "I've completed 4 projects since …", "my X is Y") in
 * the distillation prompt's excerpts, answering in the versioned triple schema — so the rules go
 * through the same job, parsing and graph as a model would. No registry NLP package: a
 * rule set this small does not need one, and wink-nlp's English model would add ~1 MB to a bench
 * whose question is whether L3 adds anything at all.
 */
import type { Extract } from "../src/memory/distill.ts";

/** One event of the prompt's excerpts: `[e<id> <date> <role>] text`, continuation lines included. */
export function excerptsOf(input: string): { id: number; role: string; text: string }[] {
  const out: { id: number; role: string; text: string }[] = [];
  for (const line of input.split("\n")) {
    const m = /^\[e(\d+) \S+ (\w+)\] (.*)$/.exec(line);
    if (m) out.push({ id: Number(m[1]), role: m[2] as string, text: m[3] as string });
    else if (out.length) (out.at(-1) as { text: string }).text += `\n${line}`;
  }
  return out;
}

const VERBS =
  "moved to|live in|work at|work as|switched to|started|bought|got|upgraded to|adopted|joined|completed|finished|read|tried|tried out|been using|been reading|been keeping|keep|kept|have|own|ran|run|visited|attended|saved|spent|signed up for|collected|made|baked|planted|learned|been learning";
const FIRST_PERSON = new RegExp(
  `\\bI(?:'ve| have|'m| am)?\\s+(?:just |recently |now |already |finally |actually |also |been )?(${VERBS})\\s+([^.!?;\\n]{2,80})`,
  "gi",
);
const MY_IS = /\bmy ([a-z][a-z' -]{1,40}?) (?:is|are|was) (?:now |currently |at )?([^.!?;,\n]{1,60})/gi;
const DETERMINER =
  /^(?:a|an|the|my|some|\d+\w*|\w+th|one|two|three|four|five|six|seven|eight|nine|ten|more|another|new|old|about)$/i;

/** The object's head word: the first that is not a number or a determiner. */
function head(object: string): string {
  for (const w of object.toLowerCase().split(/[^a-z']+/)) if (w && !DETERMINER.test(w)) return w;
  return "";
}

/** Facts the rules find in the person's sentences, each citing its event. */
export function ruleFacts(input: string): { subject: string; predicate: string; object: string; source: number }[] {
  const facts: { subject: string; predicate: string; object: string; source: number }[] = [];
  for (const e of excerptsOf(input)) {
    if (e.role !== "user") continue;
    for (const m of e.text.matchAll(FIRST_PERSON)) {
      const verb = (m[1] as string).toLowerCase().replace(/^been /, "");
      const object = (m[2] as string).trim();
      facts.push({ subject: "user", predicate: `${verb} ${head(object)}`.trim(), object, source: e.id });
    }
    for (const m of e.text.matchAll(MY_IS))
      facts.push({
        subject: "user",
        predicate: `${(m[1] as string).toLowerCase()} is`,
        object: (m[2] as string).trim(),
        source: e.id,
      });
  }
  return facts;
}

/** The rules as the job's extractor. */
export const rulesExtract: Extract = async ({ input }) => ({ text: JSON.stringify({ facts: ruleFacts(input) }) });
