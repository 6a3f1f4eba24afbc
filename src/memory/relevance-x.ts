/** Experimental rerankers (recall9): the question's focus, term proximity. */
import { type ConvIndex, isQuantity, type Postings, PostingsCursor } from "./conv-index.ts";

const HOW_MANY = /\bhow\s+many\s+(?:more\s+|different\s+|total\s+)?([a-z][a-z'-]*)(?:\s+([a-z]+))?/i;
const NOT_AMOUNT = new Set(["ago", "before", "after", "since", "passed", "older", "younger"]);

/** Boost top turns that state a number of the unit a "how many" question asks for ("70 hours"). */
export function unitRerank(
  index: LexicalIndex,
  ci: ConvIndex,
  text: string,
  scores: Float64Array,
  p: LexicalParams,
): void {
  const m = HOW_MANY.exec(text);
  if (!m || NOT_AMOUNT.has((m[2] ?? "").toLowerCase()) || NOT_AMOUNT.has((m[1] as string).toLowerCase())) return;
  const unit = index.analyse(m[1] as string).words[0];
  if (!unit) return;
  const cands: number[] = [];
  for (let d = 0; d < ci.size; d++) if ((scores[d] as number) > 0) cands.push(d);
  cands.sort((a, b) => (scores[b] as number) - (scores[a] as number));
  cands.length = Math.min(cands.length, p.proxTop ?? 50);
  for (const d of cands) {
    const ws = index.storedWords(ci.ids[d] as number);
    let hit = false;
    for (let i = 0; i < ws.length && !hit; i++)
      if (ws[i] === unit && ((i > 0 && isQuantity(ws[i - 1] as string)) || (i > 1 && isQuantity(ws[i - 2] as string))))
        hit = true;
    if (hit) scores[d] = (scores[d] as number) * (1 + (p.unit as number));
  }
}

/** idf with sessions as documents. */
export function sessionIdf(ci: ConvIndex, p: Postings): number {
  const n = ci.sessionCount;
  if (n === 0) return ci.idf(p.n);
  let df = 0;
  let last = -2;
  const c = new PostingsCursor(p);
  while (c.next()) {
    const s = ci.sessions[c.doc] as number;
    if (s !== last) df++;
    last = s;
  }
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}
import type { LexicalIndex } from "./lexical-index.ts";
import type { LexicalParams } from "./relevance.ts";

const FOCUS =
  /\b(?:how\s+many|how\s+much|what\s+(?:kinds?|types?|sorts?)\s+of|which)\s+([a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3})/i;
const FOCUS_END = new Set(
  "do did does have has had i my me we you your he she they it is are was were will would can could should to in on at for of that the a an and or with from did been be am ago before after since than per".split(
    " ",
  ),
);

/** Words that measure rather than name what is asked about ("how many days", "what kind of"). */
const UNITS = new Set(
  "second seconds minute minutes hour hours day days week weeks month months year years time times money dollars more less much many older younger total different type types kind kinds sort sorts of one ones".split(
    " ",
  ),
);

/** Index terms of the noun phrase after "how many / what kind of / which" (empty when none). */
export function focusTerms(index: LexicalIndex, text: string, mode = 0): Set<string> {
  if (mode === 1) {
    const caps: string[] = [];
    for (const m of text.matchAll(/(^|[^.!?]\s+)([A-Z][\w'-]*)/g))
      if (m[1] !== "" && m[2] !== "I") caps.push(m[2] as string);
    return new Set(index.analyse(caps.join(" ")).words);
  }
  const m = FOCUS.exec(text);
  if (!m) return new Set();
  const kept: string[] = [];
  for (const w of (m[1] as string).split(/\s+/)) {
    const l = w.toLowerCase();
    if (kept.length === 0 && UNITS.has(l)) continue;
    if (FOCUS_END.has(l)) break;
    kept.push(w);
  }
  return new Set(index.analyse(kept.join(" ")).words);
}

/** Boost the top candidates where two query words occur close together. */
export function proximityRerank(
  index: LexicalIndex,
  ci: ConvIndex,
  words: readonly string[],
  scores: Float64Array,
  p: LexicalParams,
): void {
  const terms = [...new Set(words)].filter((t) => ci.words.has(t));
  if (terms.length < 2) return;
  const idf = new Map(terms.map((t) => [t, ci.idf((ci.words.get(t) as { n: number }).n)]));
  let mass = 0;
  for (const v of idf.values()) mass += v;
  const top = p.proxTop ?? 30;
  const win = p.proxWindow ?? 8;
  const cands: number[] = [];
  for (let d = 0; d < ci.size; d++) if ((scores[d] as number) > 0) cands.push(d);
  cands.sort((a, b) => (scores[b] as number) - (scores[a] as number));
  cands.length = Math.min(cands.length, top);
  for (const d of cands) {
    const ws = index.storedWords(ci.ids[d] as number);
    const pos = new Map<string, number[]>();
    ws.forEach((w, i) => {
      if (idf.has(w)) {
        const l = pos.get(w);
        if (l) l.push(i);
        else pos.set(w, [i]);
      }
    });
    if (pos.size < 2) continue;
    const present = [...pos.keys()];
    let bonus = 0;
    for (let i = 0; i < present.length; i++)
      for (let j = i + 1; j < present.length; j++) {
        const a = pos.get(present[i] as string) as number[];
        const b = pos.get(present[j] as string) as number[];
        let dist = Number.POSITIVE_INFINITY;
        for (const x of a) for (const y of b) dist = Math.min(dist, Math.abs(x - y));
        if (dist <= win)
          bonus +=
            (Math.min(idf.get(present[i] as string) as number, idf.get(present[j] as string) as number) *
              (win + 1 - dist)) /
            win;
      }
    scores[d] = (scores[d] as number) * (1 + (p.proximity as number) * (bonus / mass));
  }
}

const NOW_WORDS =
  /\b(?:currently|now|these\s+days|nowadays|still|at\s+the\s+moment|so\s+far|most\s+recent(?:ly)?)\b|现在|目前|如今|最近|还在/i;
const PRESENT = /\b(?:do|does|am|is|are|have|has)\b/i;
const PAST = /\b(?:did|was|were|had)\b|\bago\b|\blast\s+(?:week|month|year|time)\b|了|过/i;
/** Whether a question asks for the present state (mode 1: by its words; 2: also by present tense without past). */
export function asksPresent(text: string, mode: number): boolean {
  if (NOW_WORDS.test(text)) return true;
  return mode >= 2 && PRESENT.test(text) && !PAST.test(text);
}
