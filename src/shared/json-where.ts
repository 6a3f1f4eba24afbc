/**
 * Where a JSON text stops being JSON, as a person looks for it: line and column (from 1). The
 * engine's JSON.parse says what it met ("Unexpected identifier") but not where; this walks the
 * text by RFC 8259's grammar and stops at the first character that cannot continue it.
 */

export interface TextPlace {
  line: number;
  column: number;
}

/** The line and column of `offset` in `text`. */
export function placeOf(text: string, offset: number): TextPlace {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++)
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  return { line, column: offset - start + 1 };
}

/** The place of the first error in `text`, or null when it is valid JSON. */
export function jsonErrorPlace(text: string): TextPlace | null {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i] as string)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => {
    if (!text.startsWith(word, i)) fail();
    i += word.length;
  };
  const string = () => {
    i++; // the opening quote
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 34) return void i++;
      if (c < 0x20) fail();
      if (c === 92) {
        i++;
        const e = text[i];
        if (e === "u") {
          for (let k = 1; k <= 4; k++)
            if (!/[0-9a-fA-F]/.test(text[i + k] ?? "")) {
              i += k;
              fail();
            }
          i += 5;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
        else fail();
      } else i++;
    }
    fail();
  };
  const number = () => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === "" || m[0] === "-") fail();
    i += (m as RegExpExecArray)[0].length;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ":") fail();
        i++;
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return void i++;
        else fail();
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return void i++;
        else fail();
      }
    }
    if (c === '"') string();
    else if (c === "t") literal("true");
    else if (c === "f") literal("false");
    else if (c === "n") literal("null");
    else if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) number();
    else fail();
  };
  try {
    value();
    ws();
    if (i < text.length) fail();
    return null;
  } catch (at) {
    // Nesting too deep for this walk (RangeError): the engine's own message has to do.
    if (typeof at !== "number") return null;
    return placeOf(text, Math.min(at, text.length));
  }
}

/**
 * The offset of the first byte of `bytes` that is not well-formed UTF-8, or -1 when all is: the
 * lenient decoder's first replacement character, counted back in bytes.
 */
export function firstBadUtf8(bytes: Uint8Array): number {
  const text = new TextDecoder("utf-8").decode(bytes);
  for (let at = text.indexOf("\uFFFD"); at >= 0; at = text.indexOf("\uFFFD", at + 1)) {
    const offset = Buffer.byteLength(text.slice(0, at));
    // A U+FFFD written in the text itself is three well-formed bytes: not the fault.
    if (!(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) return offset;
  }
  return -1;
}
