/**
 * Chinese query words a conversation never uses, taken apart into words it does use. jieba
 * joins an unknown name to the character after it and a character to its neighbour when the
 * pair is in its dictionary: "王芳订了什么车" is segmented 王芳订 / 车, "小雨的狗叫什么名字" 小雨 /
 * 狗叫 / 名字, and those joined words are in no turn, while the turns say 王芳, 订, 小狗, 叫. So a
 * query word that no turn holds (nor any speaker's name) stands for its parts that some turn
 * does hold — the two sides of each split (王芳订 → 王芳, 订) — and a one-character part no turn
 * holds on its own stands for the conversation's words of two or three characters that contain
 * it (狗 → 小狗). Only the query is taken apart: the index is unchanged, and words the
 * conversation uses are left whole. English words never reach this (they are not Han).
 */
import type { ConvIndex } from "./conv-index.ts";

/** A word of two or more Han characters. */
const HAN_WORD = /^\p{Script=Han}{2,}$/u;

/** The conversation's words that stand in for `terms` it never uses (see above); none of `terms` itself. */
export function hanParts(ci: ConvIndex, terms: readonly string[]): string[] {
  const own = new Set(terms);
  const out = new Set<string>();
  for (const t of terms) {
    if (!HAN_WORD.test(t) || ci.words.has(t) || ci.speakers.has(t)) continue;
    for (let i = 1; i < t.length; i++)
      for (const part of [t.slice(0, i), t.slice(i)]) {
        if (own.has(part)) continue;
        if (ci.words.has(part) || ci.speakers.has(part)) out.add(part);
        else if (part.length === 1) for (const w of ci.hanChars.get(part) ?? []) if (!own.has(w)) out.add(w);
      }
  }
  return [...out];
}
