/**
 * The versioned distillation prompt and triple schema: what the model is asked to
 * extract from cold turns, and the valibot schema its answer must pass. A change to either
 * bumps its version, and every fact records the version that made it (l3_facts.version), so
 * facts of an old prompt can be told apart and re-made.
 */
import * as v from "valibot";

export const DISTILL_PROMPT_VERSION = "distill-v1";
export const TRIPLE_SCHEMA_VERSION = "triple-v1";
/** What l3_facts.version records for a fact the model extracted. */
export const DISTILL_VERSION = `${DISTILL_PROMPT_VERSION}/${TRIPLE_SCHEMA_VERSION}`;

/** One event as the model is shown it. */
export interface DistillEvent {
  id: number;
  ts: number;
  role: string;
  text: string;
  /** Image blocks the event carries, by block id, with their text (alt, caption). */
  images: { blockId: number; text: string }[];
}

export const DISTILL_SYSTEM = `You turn conversation excerpts into stable facts for a personal knowledge graph.
Extract durable facts about the person, the people, places, things and plans they mention: where someone lives or works, names, preferences, possessions, relationships, dates of events, decisions.
Skip chit-chat, questions, the assistant's own suggestions, and anything only true for a moment.
Each fact is a subject, a predicate and an object:
- subject and object are short names ("user", "Alice", "Paris", "red bike"); call the person speaking "user";
- predicate is a short lower-case verb phrase ("lives in", "works at", "owns", "likes", "birthday is");
- a property with one value at a time (where someone lives, their job, a phone number) always uses the same predicate, so a newer fact can replace an older one;
- an image may be an object: write its id as "block:<id>";
- source is the id of the event ([e<id>]) that states the fact.
Answer with JSON only, no prose: {"facts":[{"subject":"…","predicate":"…","object":"…","source":<id>}]}
If nothing is worth keeping, answer {"facts":[]}. If you will not do this, answer {"refused":true}.`;

/** The user message: the events, oldest first, each with its id, time and speaker. */
export function distillInput(events: readonly DistillEvent[]): string {
  const lines = events.map((e) => {
    const pics = e.images.map((i) => ` [image block:${i.blockId}${i.text ? `: ${i.text}` : ""}]`).join("");
    return `[e${e.id} ${new Date(e.ts).toISOString().slice(0, 10)} ${e.role}] ${e.text}${pics}`;
  });
  return `Excerpts:\n${lines.join("\n")}`;
}

const Name = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200));

const Triple = v.object({
  subject: Name,
  predicate: Name,
  object: v.pipe(v.union([v.string(), v.number()]), v.transform(String), Name),
  source: v.union([
    v.pipe(v.number(), v.integer()),
    v.pipe(
      v.string(),
      v.regex(/^e?\d+$/),
      v.transform((s) => Number(s.replace(/^e/, ""))),
    ),
  ]),
});
export type Triple = v.InferOutput<typeof Triple>;

const Answer = v.union([
  v.object({ facts: v.pipe(v.array(Triple), v.maxLength(200)) }),
  v.object({ refused: v.literal(true) }),
]);

export type ParsedAnswer = { kind: "facts"; facts: Triple[] } | { kind: "refused" } | { kind: "bad"; reason: string };

/** Phrases of a model declining in prose rather than in the schema. */
const REFUSAL = /^\s*(i'?m sorry|sorry|i can(?:no|')t|i (?:won'?t|am unable|'m unable)|as an ai)/i;

/**
 * The model's answer, parsed: JSON (possibly inside a ``` fence or after a line of prose) that
 * passes the triple schema; a refusal, in the schema or in words; else bad, with why.
 */
export function parseAnswer(text: string): ParsedAnswer {
  const t = text.trim();
  const start = t.indexOf("{");
  const end = t.lastIndexOf("}");
  if (start < 0 || end <= start)
    return REFUSAL.test(t) ? { kind: "refused" } : { kind: "bad", reason: "no JSON object" };
  let raw: unknown;
  try {
    raw = JSON.parse(t.slice(start, end + 1));
  } catch (err) {
    return { kind: "bad", reason: `invalid JSON: ${(err as Error).message}` };
  }
  const r = v.safeParse(Answer, raw);
  if (!r.success) return { kind: "bad", reason: `schema: ${v.summarize(r.issues).split("\n")[0]}` };
  return "refused" in r.output ? { kind: "refused" } : { kind: "facts", facts: r.output.facts };
}
