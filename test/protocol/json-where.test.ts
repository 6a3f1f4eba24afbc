/** Where a JSON text stops being JSON, and where bytes stop being UTF-8: for messages a person can act on. */
import { describe, expect, test } from "bun:test";
import { firstBadUtf8, jsonErrorPlace } from "../../src/shared/json-where.ts";

describe("json-where", () => {
  test("valid JSON has no error place; a broken one names its line and column", () => {
    for (const ok of ['{"a": [1, -2.5e3, true, null, "x\\u00e9\\n"]}', " [] ", '"s"', "0"])
      expect(jsonErrorPlace(ok)).toBeNull();
    expect(jsonErrorPlace('{\n  "a": [files]\n}')).toEqual({ line: 2, column: 9 });
    expect(jsonErrorPlace('{"a": 1,}')).toEqual({ line: 1, column: 9 });
    expect(jsonErrorPlace('{"a": "\\q"}')).toEqual({ line: 1, column: 9 });
    expect(jsonErrorPlace("[1, 2")).toEqual({ line: 1, column: 6 });
    expect(jsonErrorPlace("{} x")).toEqual({ line: 1, column: 4 });
    expect(jsonErrorPlace("[".repeat(100_000))).not.toBeUndefined();
  });

  test("the first byte that is not UTF-8, a written U+FFFD being no fault", () => {
    const bytes = (...parts: (string | number)[]) =>
      new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...Buffer.from(p)] : [p])));
    expect(firstBadUtf8(bytes("ok é"))).toBe(-1);
    expect(firstBadUtf8(bytes("ab", 0xff, "c"))).toBe(2);
    expect(firstBadUtf8(bytes("é", 0xc3, 0x28))).toBe(2);
    expect(firstBadUtf8(bytes("\uFFFD", 0xfe))).toBe(3);
  });
});
