/**
 * The tools as memory indexes text: one document per tool — its name's words and its
 * description — in a small in-memory ConvIndex, ranked with memory's own BM25 and concept
 * bridges (src/memory/relevance.ts lexicalScores), so "a picture of the page" finds
 * browser_screenshot through "image" in its description. What memory's ranking adds for turns of
 * a conversation (neighbours, sessions, time, who speaks) means nothing for a tool and is off.
 */
import { ConvIndex } from "./conv-index.ts";
import { DEFAULT_PARAMS, type LexicalParams, lexicalScores, PLAIN_BM25 } from "./relevance.ts";

/** A tool as the index takes it. */
export interface ToolDoc {
  name: string;
  description: string;
  /** What a person says when they need it (ToolDefinition.examples). */
  examples?: readonly string[];
}

/** A text's words and the concepts they stand for (src/memory/lexical-index.ts LexicalIndex.analyse). */
export type AnalyseText = (text: string) => { words: string[]; concepts: string[] };

/** A query text and its weight beside the others (the input counts more than the turns before it). */
export interface WeightedText {
  text: string;
  weight: number;
}

/** BM25 over words, with concept bridges at the weights memory's turns use. */
const TOOL_PARAMS: LexicalParams = {
  ...PLAIN_BM25,
  concepts: DEFAULT_PARAMS.concepts,
  sharedConcepts: DEFAULT_PARAMS.sharedConcepts,
};

export class ToolIndex {
  private readonly index = new ConvIndex(1);
  private readonly names: string[] = [];

  constructor(
    docs: readonly ToolDoc[],
    private readonly analyse: AnalyseText,
  ) {
    for (const d of docs) this.add(d);
  }

  /** Index one more tool (a daemon makes its index a tool at a time in the background, agent.ts). */
  add(d: ToolDoc): void {
    // "browser_screenshot" is the words "browser screenshot".
    const { words, concepts } = this.analyse(
      [d.name.replaceAll("_", " "), d.description, ...(d.examples ?? [])].join("\n"),
    );
    this.names.push(d.name);
    this.index.add({ id: this.names.length, words, concepts, speaker: [], session: null, time: null });
  }

  /**
   * Tools that match the texts, best first, scores summed by weight (raw BM25, not normalised:
   * only the order is used); only those in `among` when given, at most `limit`.
   */
  rank(texts: readonly WeightedText[], limit: number, among?: ReadonlySet<string> | null): string[] {
    const total = new Float64Array(this.names.length);
    for (const t of texts) {
      if (!t.text.trim() || t.weight <= 0) continue;
      const { words, concepts } = this.analyse(t.text);
      // The index's score buffer is valid until its next query: summed here first.
      const s = lexicalScores(this.index, words, concepts, TOOL_PARAMS);
      for (let d = 0; d < total.length; d++) total[d] = (total[d] as number) + t.weight * (s[d] as number);
    }
    return this.names
      .map((name, d) => ({ name, score: total[d] as number }))
      .filter((x) => x.score > 0 && (!among || among.has(x.name)))
      .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
      .slice(0, limit)
      .map((x) => x.name);
  }
}
