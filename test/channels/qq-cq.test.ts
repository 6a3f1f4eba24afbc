/**
 * CQ codes, the string form of OneBot v11 messages (plugins/qq/cq-code.ts): parsing into the
 * segments the array form carries, escaping text and values, and the round trip between them.
 */
import { expect, test } from "bun:test";
import { escapeText, parseCq, toCq } from "../../plugins/qq/cq-code.ts";

test("a CQ string parses into text and code segments, with values and text unescaped", () => {
  expect(parseCq("[CQ:at,qq=10001] look &#91;here&#93; [CQ:image,file=a.jpg,url=http://x/y?a=1&#44;2] &amp;")).toEqual([
    { type: "at", data: { qq: "10001" } },
    { type: "text", data: { text: " look [here] " } },
    { type: "image", data: { file: "a.jpg", url: "http://x/y?a=1,2" } },
    { type: "text", data: { text: " &" } },
  ]);
  expect(parseCq("[CQ:face,id=178][CQ:record,file=v.amr]")).toEqual([
    { type: "face", data: { id: "178" } },
    { type: "record", data: { file: "v.amr" } },
  ]);
  // Something that only looks like a code, escaped, stays text.
  expect(parseCq(escapeText("[CQ:at,qq=1] & more"))).toEqual([{ type: "text", data: { text: "[CQ:at,qq=1] & more" } }]);
  expect(parseCq("")).toEqual([]);
});

test("segments round-trip through their CQ string", () => {
  const segments = [
    { type: "reply", data: { id: "42" } },
    { type: "text", data: { text: "a [b] & c, d" } },
    { type: "at", data: { qq: "all" } },
    { type: "image", data: { file: "x,y].png" } },
  ];
  const cq = toCq(segments);
  expect(cq).toBe("[CQ:reply,id=42]a &#91;b&#93; &amp; c, d[CQ:at,qq=all][CQ:image,file=x&#44;y&#93;.png]");
  expect(parseCq(cq)).toEqual(segments);
});
