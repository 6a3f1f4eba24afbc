import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SortedLines } from "../../src/embed/sorted-lines.ts";

const ROOT = join(import.meta.dir, "../..");

/** A table in the order scripts/build-lexicon.ts writes: keys compared as UTF-8 bytes. */
function table(entries: [string, string][]): SortedLines {
  const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])));
  return new SortedLines(Buffer.from(sorted.map(([k, v]) => `${k}\t${v}\n`).join("")));
}

test("finds every key, first and last lines included, and a key beside its longer neighbours", () => {
  const entries: [string, string][] = [
    ["a", "first"],
    ["dog", "hound canine"],
    ["dogs", "plural"],
    ["dogsled", "sled"],
    ["do", "verb"],
    ["城市", "city"],
    ["城", "wall"],
    ["ünïcode", "latin"],
    ["𠀀", "astral"],
    ["zzz", "last"],
  ];
  const t = table(entries);
  for (const [k, v] of entries) expect(t.get(k)).toBe(v);
});

test("a key no line has is undefined, whether it sorts before, between or after the lines", () => {
  const t = table([
    ["b", "1"],
    ["dog", "2"],
    ["dogsled", "3"],
    ["城市", "4"],
  ]);
  for (const k of ["a", "c", "d", "dogs", "dogsleds", "城", "城市化", "zzz", ""]) expect(t.get(k)).toBeUndefined();
});

test("an empty table answers undefined", () => {
  expect(new SortedLines(new Uint8Array()).get("x")).toBeUndefined();
});

test("the generated concept lexicon answers every one of its keys with its own line's value", () => {
  // The order the lookup relies on is the build's promise (scripts/build-lexicon.ts): this holds
  // it to that over all 116k lines, Chinese keys included.
  const text = readFileSync(join(ROOT, "src/generated/lexicon.txt"), "utf8");
  const t = new SortedLines(Buffer.from(text));
  let checked = 0;
  for (const line of text.split("\n")) {
    const tab = line.indexOf("\t");
    if (tab <= 0) continue;
    if (t.get(line.slice(0, tab)) !== line.slice(tab + 1)) throw new Error(`lexicon line not found: ${line}`);
    checked++;
  }
  expect(checked).toBeGreaterThan(100_000);
});
