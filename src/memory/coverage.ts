/**
 * How much of what a question asks a remembered turn says, by the turn's own words: the share of
 * the question's weight — each of its words weighs its inverse document frequency in the memory
 * searched, so "dentist" weighs more than "work" — that the turn carries. A word the turn says
 * counts whole; a word that stands for the same thing (bicycle and bike, 计算机 and 电脑, the
 * banjo for "instrument": src/memory/lexical-index.ts concepts) counts BRIDGE; a concept both
 * stand for without either saying the other's word counts SHARED.
 *
 * Ranking orders the turns (src/memory/relevance.ts); its scores are relative (the best of the
 * memory scores 1), so they cannot say whether the best is worth quoting at all. Coverage can:
 * "When is my sister's birthday?" shares "sister" with "Where does my sister work?" and
 * "birthday" with a birthday card for a coworker, and neither turn covers the question. Only a
 * turn's own words count, not the score it borrows from its neighbours, so an "ok, noted." that
 * followed a fact says nothing of it.
 */

/** A word of a text with the concepts it stands for (LexicalIndex.analyseEach). */
export interface AnalysedWord {
  term: string;
  concepts: readonly string[];
  /**
   * The word names the kind of answer asked for ("What *instrument* am I learning?", "What
   * *brand* is my fridge?", 什么*车*): a turn that answers says an instance of it (the banjo, a
   * Frigidaire, 比亚迪) and seldom the word itself, so the word counts when the turn says it or
   * what it stands for, and only SLOT_UNSAID of its weight is missed when it does not.
   */
  slot?: boolean;
}

/** What a word counts when the turn says a word that stands for the same thing. */
export const BRIDGE = 0.8;
/** What a word counts when the turn's word and it only share a concept. */
export const SHARED = 0.4;

/** The share of a slot word's weight a turn misses when it says nothing of it (see AnalysedWord.slot). */
export const SLOT_UNSAID = 0.25;

/** "What / which [kind of] X is …", the word X (the answer's kind). */
const SLOT_EN =
  /\b(?:what|which)\s+(?:(kind|type|sort)s?\s+of\s+)?([a-z]+)\s+(?:is|are|was|were|am|do|does|did|have|has|had|should|can|will|would)\b/d;
/** 什么 X, 哪个 X, 哪家 X …: the word after. */
const SLOT_ZH = /(?:什么|啥|哪一?[个家种所位款类门辆本只])()(\p{Script=Han})/du;

/**
 * `words` (a question's, with their surfaces, in order) with the word that names the kind of
 * answer asked for marked `slot`: the word that begins where SLOT_EN's or SLOT_ZH's X does.
 */
export function markSlot<W extends AnalysedWord & { surface: string }>(
  question: string,
  words: readonly W[],
): (W & { slot?: boolean })[] {
  const lower = question.toLowerCase();
  const m = SLOT_EN.exec(lower) ?? SLOT_ZH.exec(lower);
  const at = m?.indices?.[2]?.[0] ?? -1;
  if (at < 0) return [...words];
  // "kind of", "type of" only say that a kind is asked for.
  const kind = m?.[1] ? (m.indices?.[1]?.[0] ?? -1) : -1;
  return words
    .filter((w) => !(kind >= 0 && lower.startsWith(w.surface, kind)))
    .map((w) => (lower.startsWith(w.surface, at) ? { ...w, slot: true } : w));
}

/** Pronouns and particles that jieba joins to a neighbour (我用, 要把): such a pair is no word the question asks about. */
const HAN_GLUE = new Set([..."我你他她它的了是在要把被给和与就都也还又很吗呢吧啊么"]);
const HAN = /^\p{Script=Han}+$/u;
/**
 * Chinese words that ask rather than name (哪家, 几点, 是不是, 多少): what the question wants, not
 * what it is about (English's interrogatives are stop words already).
 */
const HAN_ASKS = /^(?:哪|几|多少|什么|啥|谁|怎|为什么|是不是|是否|有没有|能不能|会不会)/u;

/**
 * The words of a question that coverage weighs: each distinct word once, less the sub-words
 * jieba's search mode adds beside a longer word (计算 and 算机 beside 计算机: the longer word
 * stands for them) and two-character pairs glued to a pronoun or particle.
 */
export function questionWords<W extends AnalysedWord>(words: readonly W[]): W[] {
  const out = new Map<string, W>();
  for (const w of words) {
    if (out.has(w.term)) continue;
    if (HAN.test(w.term)) {
      if (HAN_ASKS.test(w.term)) continue;
      const chars = [...w.term];
      if (chars.length === 2 && chars.some((c) => HAN_GLUE.has(c))) continue;
      if (words.some((o) => o.term.length > w.term.length && o.term.includes(w.term))) continue;
    }
    out.set(w.term, w);
  }
  return [...out.values()];
}

/** A turn's words, and every concept any of them stands for. */
interface TurnWords {
  words: ReadonlySet<string>;
  concepts: ReadonlySet<string>;
  /** The first concept of each word: what a dictionary gives first for it (单车 and 自行车: bicycle). */
  firsts: ReadonlySet<string>;
}

/** What one word of the question counts in a turn: 1, BRIDGE, SHARED or 0. */
function matchOf(q: AnalysedWord, t: TurnWords): number {
  if (t.words.has(q.term)) return 1;
  // A Chinese word the turn says inside a longer one (生日 in 生日会); a single character (住, 学)
  // inside the turn's word (人住, 学琴) is likely the same word, not certainly.
  if (HAN.test(q.term))
    for (const w of t.words) if (w.length > q.term.length && w.includes(q.term)) return q.term.length >= 2 ? 1 : 0.5;
  if (t.concepts.has(q.term)) return BRIDGE;
  // Two words whose first sense is the same thing are one word in other words (自行车, 单车).
  if (q.concepts.length > 0 && t.firsts.has(q.concepts[0] as string)) return BRIDGE;
  let shared = 0;
  for (const c of q.concepts) {
    if (t.words.has(c)) return BRIDGE;
    if (t.concepts.has(c)) shared = SHARED;
  }
  return shared;
}

/** What a turn says of a question: the share of its weight (0–1), and which of its words it says something of. */
export interface Coverage {
  share: number;
  said: string[];
}

/**
 * What a turn covers of a question. `idf` gives a word's weight in the memory searched (a word no
 * turn holds weighs most: what the question asks about was never said).
 */
export function coverageOf(
  question: readonly AnalysedWord[],
  idf: (term: string) => number,
  turn: readonly AnalysedWord[],
): Coverage {
  if (question.length === 0) return { share: 0, said: [] };
  const t: TurnWords = {
    words: new Set(turn.map((w) => w.term)),
    concepts: new Set(turn.flatMap((w) => w.concepts)),
    // Not a single Chinese character's: 式 is "type" first, and so is 血型 ("blood type").
    firsts: new Set(turn.flatMap((w) => (HAN.test(w.term) && w.term.length < 2 ? [] : w.concepts.slice(0, 1)))),
  };
  let total = 0;
  let covered = 0;
  const said: string[] = [];
  for (const q of question) {
    const weight = idf(q.term);
    const m = matchOf(q, t);
    total += q.slot && m === 0 ? SLOT_UNSAID * weight : weight;
    covered += weight * m;
    if (m > 0) said.push(q.term);
  }
  return { share: total > 0 ? covered / total : 0, said };
}
