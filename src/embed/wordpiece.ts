/**
 * BERT's WordPiece tokenizer, as multilingual-e5 and Chinese-CLIP text encoders expect it:
 * lower-case (uncased vocabularies), split on whitespace and punctuation, every CJK character its
 * own word, then greedy longest-match sub-words (continuations prefixed "##"). [CLS] and [SEP]
 * wrap the sequence; unknown pieces become [UNK].
 */
const CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{2a6df}]/u;
const PUNCT = /[\p{P}\p{S}]/u;

export class WordPiece {
  private readonly ids = new Map<string, number>();

  constructor(
    vocab: string,
    private readonly lowercase = true,
    private readonly maxWordChars = 100,
  ) {
    vocab.split("\n").forEach((token, i) => {
      const t = token.replace(/\r$/, "");
      if (t && !this.ids.has(t)) this.ids.set(t, i);
    });
    for (const special of ["[CLS]", "[SEP]", "[UNK]"])
      if (!this.ids.has(special)) throw new Error(`vocabulary lacks ${special}`);
  }

  private id(token: string): number {
    return this.ids.get(token) ?? (this.ids.get("[UNK]") as number);
  }

  /** Split text into words the way BERT's basic tokenizer does. */
  private words(text: string): string[] {
    let t = this.lowercase
      ? text
          .toLowerCase()
          .normalize("NFD")
          .replace(/\p{Mn}/gu, "")
      : text;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what BERT's cleaning drops
    t = t.replace(/[\u0000\ufffd]/g, "");
    const out: string[] = [];
    let cur = "";
    for (const ch of t) {
      if (/\s/u.test(ch)) {
        if (cur) out.push(cur);
        cur = "";
      } else if (CJK.test(ch) || PUNCT.test(ch)) {
        if (cur) out.push(cur);
        cur = "";
        out.push(ch);
      } else cur += ch;
    }
    if (cur) out.push(cur);
    return out;
  }

  /** Token ids with [CLS] … [SEP], at most `maxTokens` long. */
  encode(text: string, maxTokens = 512): number[] {
    const ids = [this.id("[CLS]")];
    for (const word of this.words(text)) {
      if (ids.length >= maxTokens - 1) break;
      const chars = [...word];
      if (chars.length > this.maxWordChars) {
        ids.push(this.id("[UNK]"));
        continue;
      }
      const pieces: number[] = [];
      let start = 0;
      let bad = false;
      while (start < chars.length) {
        let end = chars.length;
        let found: number | undefined;
        while (start < end) {
          const sub = (start > 0 ? "##" : "") + chars.slice(start, end).join("");
          found = this.ids.get(sub);
          if (found !== undefined) break;
          end--;
        }
        if (found === undefined) {
          bad = true;
          break;
        }
        pieces.push(found);
        start = end;
      }
      if (bad) ids.push(this.id("[UNK]"));
      else ids.push(...pieces);
    }
    ids.length = Math.min(ids.length, maxTokens - 1);
    ids.push(this.id("[SEP]"));
    return ids;
  }
}
