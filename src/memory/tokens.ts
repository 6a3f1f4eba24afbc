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
