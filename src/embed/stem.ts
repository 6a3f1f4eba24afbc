/**
 * English words reduced to what the index and the concept lexicon key them by. Apart from the
 * tokenizer, which embeds generated files, so the build's own scripts (scripts/build-lexicon.ts)
 * can stem before those files exist.
 */
import { stemmer } from "stemmer";

const LATIN = /^[a-z]+$/;

/** Porter stem of a lower-case English word; other words (digits, other scripts) as they are. */
export function stem(word: string): string {
  return LATIN.test(word) && word.length > 2 ? stemmer(word) : word;
}

/** Plural and -ing/-ed endings only: the key under which the concept lexicon is looked up. */
export function lightStem(word: string): string {
  if (word.length <= 3 || !LATIN.test(word)) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(sses|ches|shes|xes|zes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us") && !word.endsWith("is"))
    word = word.slice(0, -1);
  const ending = word.endsWith("ing") && word.length > 5 ? 3 : word.endsWith("ed") && word.length > 4 ? 2 : 0;
  if (ending === 0) return word;
  let base = word.slice(0, -ending);
  if (/([b-df-hj-np-tv-z])\1$/.test(base) && !/(ll|ss|ff|zz)$/.test(base)) base = base.slice(0, -1);
  else if (base.length <= 3 && /[b-df-hj-np-tv-z]$/.test(base)) base += "e";
  return base;
}
