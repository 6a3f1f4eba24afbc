/**
 * Words of a text, for memory's lexical index, in Chinese and English. Han runs go to
 * @node-rs/jieba (search mode, so 南京市长江大桥 also yields 南京, 长江, 大桥); everything else is
 * split on letters and digits by a regular expression, which is an order of magnitude faster than
 * jieba on Latin text and splits it the same way. English words are lower-cased, stop words
 * dropped, irregular past forms of verbs taken back to the verb (spent → spend), and reduced by
 * Porter's stemmer (the `stemmer` package): painting/paints/painted are one word, so a question
 * and its evidence meet more often.
 *
 * jieba's dictionary (5 MB) and the concept lexicon (5 MB) are embedded zstd-compressed (1.6 and
 * 1 MB: the binary is 7 MiB smaller) and unpacked on first use in a few milliseconds each; jieba
 * then builds its dictionary (~150 ms), not at start-up: a daemon that never meets Chinese text
 * never pays for it.
 */
import type { Jieba } from "@node-rs/jieba";
import dictPath from "../generated/jieba-dict.txt.zst" with { type: "file" };
import lexiconPath from "../generated/lexicon.txt.zst" with { type: "file" };
import lemmasPath from "../generated/lemmas.txt" with { type: "file" };
import commonPath from "../generated/common.txt" with { type: "file" };
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { SortedLines } from "./sorted-lines.ts";
import { lightStem, stem } from "./stem.ts";

export { lightStem, stem };

/** A Han run, or a word/number (inner apostrophes, decimal points and thousands commas kept). */
const PIECE =
  /(\p{Script=Han}+)|\p{N}+(?:[.,]\p{N}+)*|[[\p{L}\p{M}\p{N}]--\p{Script=Han}]+(?:['’][[\p{L}\p{M}]--\p{Script=Han}]+)*/gv;
const WORD = /[\p{L}\p{N}]/u;

/**
 * English words too common to say what a text is about: NLTK's list, with contractions written
 * without their apostrophe (as the tokenizer leaves them).
 */
const STOP_EN = new Set(
  (
    "i me my myself we our ours ourselves you youre youve youll youd your yours yourself yourselves he him his himself she shes her hers herself " +
    "it its itself they them their theirs themselves what which who whom this that thatll these those am is are was were be been being have has had " +
    "having do does did doing a an the and but if or because as until while of at by for with about against between into through during before after " +
    "above below to from up down in out on off over under again further then once here there when where why how all any both each few more most other " +
    "some such no nor not only own same so than too very s t can will just don dont should shouldve now d ll m o re ve y ain aren arent couldn couldnt " +
    "didn didnt doesn doesnt hadn hadnt hasn hasnt haven havent isn isnt ma mightn mightnt mustn mustnt needn neednt shan shant shouldn shouldnt wasn " +
    "wasnt weren werent won wont wouldn wouldnt im ive id ill its lets"
  ).split(" "),
);

/**
 * Chinese function words (particles, pronouns, question words): jieba segments them as words of
 * their own, and in a short turn they would otherwise weigh as much as its content.
 */
const STOP_ZH = new Set(
  "的 了 着 过 吗 呢 吧 啊 呀 哦 嗯 么 是 在 和 与 也 都 就 还 又 我 你 您 他 她 它 我们 你们 他们 她们 咱们 这 那 这个 那个 这些 那些 什么 哪 哪个 哪里 哪儿 怎么 怎样 为什么 吗 个 把 被 让 给 得 地".split(
    " ",
  ),
);

/** One word of a text: the index term and the surface form it came from (for the lexicon). */
export interface Word {
  term: string;
  surface: string;
}

export class Tokenizer {
  private jieba: Jieba | null = null;
  private lexicon: SortedLines | null = null;
  /**
   * Concepts by surface form, cached like stems: a binary search of the lexicon costs ~1 µs, five
   * times a Map look-up, and indexing asks for the same few thousand words over and over.
   */
  private readonly conceptCache = new Map<string, readonly string[]>();
  private readonly stems = new Map<string, string>();
  private lemmas: Map<string, string> | null = null;
  private common: SortedLines | null = null;

  /** Chinese is segmented in this process already (jieba, ~42 MiB, is loaded). */
  get segmentsHan(): boolean {
    return this.jieba !== null;
  }

  private segmenter(): Jieba {
    if (!this.jieba) {
      // Required here, not imported at the top: the native addon loads only in a process that
      // actually segments text (the daemon's idle footprint stays without it).
      const { Jieba: JiebaClass } = require("@node-rs/jieba") as typeof import("@node-rs/jieba");
      this.jieba = JiebaClass.withDict(Bun.zstdDecompressSync(readFileSync(dictPath)));
    }
    return this.jieba;
  }

  /**
   * An English word's index term: its verb when it is an irregular past form (spent → spend,
   * bought → buy, src/generated/lemmas.txt), then Porter's stem; cached.
   */
  private stemOf(w: string): string {
    let s = this.stems.get(w);
    if (s === undefined) {
      if (!this.lemmas) {
        this.lemmas = new Map();
        for (const line of readFileSync(lemmasPath, "utf8").split("\n")) {
          const tab = line.indexOf("\t");
          if (tab > 0) this.lemmas.set(line.slice(0, tab), line.slice(tab + 1));
        }
      }
      s = stem(this.lemmas.get(w) ?? w);
      if (this.stems.size > 100_000) this.stems.clear();
      this.stems.set(w, s);
    }
    return s;
  }

  /**
   * Load now what an English text's first words and concepts would load (the irregular verbs
   * and the concept lexicon, ~9 MiB), so the daemon's first turn does not. The lexicon is read
   * and unpacked off the main thread: done in line it held the event loop for ~20 ms just after
   * start. jieba stays for the first Chinese text: its dictionary costs ~150 ms and ~42 MiB,
   * which a daemon that never meets Chinese should not carry.
   */
  async preload(): Promise<void> {
    this.stemOf("preloaded");
    if (!this.lexicon) {
      const unpacked = await Bun.zstdDecompress(await readFile(lexiconPath));
      // A turn may have loaded it meanwhile (concepts() loads in line when it is missing).
      this.lexicon ??= new SortedLines(unpacked);
    }
    this.concepts("preload");
  }

  /**
   * How much an index term says in general use, 0–1: under 1 for the most frequent words of
   * English and Chinese (take 0.31, work 0.41, 公司 0.55; src/generated/common.txt), 1 for the rest.
   */
  commonness(term: string): number {
    this.common ??= new SortedLines(new Uint8Array(readFileSync(commonPath)));
    const f = this.common.get(term);
    return f === undefined ? 1 : Number(f);
  }

  /** The words of `text` in order, with their surface forms; stop words left out. */
  words(text: string): Word[] {
    const out: Word[] = [];
    if (!text) return out;
    for (const m of text.toLowerCase().matchAll(PIECE)) {
      if (m[1] !== undefined) {
        for (const raw of this.segmenter().cutForSearch(m[1], true)) {
          if (WORD.test(raw) && !STOP_ZH.has(raw)) out.push({ term: raw, surface: raw });
        }
        continue;
      }
      let w = m[0];
      if (w.includes("'") || w.includes("’")) w = w.replace(/['’]s$/, "").replace(/['’]/g, "");
      if (!w || STOP_EN.has(w)) continue;
      out.push({ term: this.stemOf(w), surface: w });
    }
    return out;
  }

  /** Index terms of `text`: words and Chinese sub-words, lower-cased, stemmed, stop words out. */
  tokens(text: string): string[] {
    return this.words(text).map((w) => w.term);
  }

  /**
   * Related concepts of a word (its surface form), from the lexicon built out of WordNet and
   * CC-CEDICT (scripts/build-lexicon.ts): beagle → hound, dog; 猎犬 → hound, dog; 城市 → city;
   * stemmed like words, so a concept meets the word it names. Loaded on first call.
   */
  concepts(surface: string): readonly string[] {
    let concepts = this.conceptCache.get(surface);
    if (concepts === undefined) {
      this.lexicon ??= new SortedLines(Bun.zstdDecompressSync(readFileSync(lexiconPath)));
      const found = this.lexicon.get(surface) ?? this.lexicon.get(lightStem(surface));
      concepts = found === undefined ? [] : found.split(" ").map((c) => this.stemOf(c));
      if (this.conceptCache.size > 100_000) this.conceptCache.clear();
      this.conceptCache.set(surface, concepts);
    }
    return concepts;
  }
}
