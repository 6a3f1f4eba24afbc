/**
 * Look-ups in a table of `key<TAB>value` lines sorted by the UTF-8 bytes of their keys, by binary
 * search over the bytes themselves. Nothing is parsed up front: the concept lexicon (5 MB,
 * 116k lines) is ready as soon as it is unpacked, where splitting it into a Map took ~110 ms of
 * the first turn's time, and only the lines a look-up lands on are ever decoded.
 *
 * The table's contract (scripts/build-lexicon.ts writes it so): keys are unique and contain
 * neither a tab nor a newline, every line ends with "\n", and lines are in ascending order of
 * their keys compared as bytes (Buffer.compare), a key before every longer key it begins.
 */
const TAB = 0x09;
const NL = 0x0a;

export class SortedLines {
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();

  constructor(private readonly bytes: Uint8Array) {}

  /** The value on `key`'s line, or undefined when no line has that key. */
  get(key: string): string | undefined {
    const k = this.encoder.encode(key);
    const b = this.bytes;
    // Invariant: every line starting before `lo` has a smaller key, every line starting at or
    // after `hi` a larger one; a probe between them is moved back to the start of its line.
    let lo = 0;
    let hi = b.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      let start = mid;
      while (start > lo && b[start - 1] !== NL) start--;
      let tab = start;
      while (tab < b.length && b[tab] !== TAB && b[tab] !== NL) tab++;
      const c = compare(k, b, start, tab);
      if (c === 0) {
        let end = tab;
        while (end < b.length && b[end] !== NL) end++;
        return this.decoder.decode(b.subarray(Math.min(tab + 1, end), end));
      }
      if (c < 0) hi = start;
      else {
        let next = tab;
        while (next < b.length && b[next] !== NL) next++;
        lo = next + 1;
      }
    }
    return undefined;
  }
}

/** `k` against bytes [from, to) of `b`: negative, zero or positive as Buffer.compare orders them. */
function compare(k: Uint8Array, b: Uint8Array, from: number, to: number): number {
  const n = Math.min(k.length, to - from);
  for (let i = 0; i < n; i++) {
    const d = (k[i] as number) - (b[from + i] as number);
    if (d !== 0) return d;
  }
  return k.length - (to - from);
}
