/** Token estimates for budgeting context, without the model's tokenizer. */

const CJK = /[\u3000-\u9fff\uac00-\ud7af\uf900-\ufaff]/g;

/**
 * A token estimate without the model's tokenizer: a CJK character is about one token, other
 * text about four characters a token.
 */
export function estimateTokens(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  return cjk + Math.ceil((text.length - cjk) / 4);
}

/** The longest prefix of `text` (shortened by fifths) whose estimate is within `tokens`; "" if none. */
export function cutToTokens(text: string, tokens: number): string {
  let cut = text;
  while (cut.length > 0 && estimateTokens(cut) > tokens) cut = cut.slice(0, Math.floor(cut.length * 0.8));
  return cut;
}
