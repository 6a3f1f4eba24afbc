/** Content-addressed blocks: one file per content, written whole (no temp file left), private to the owner. */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { BlockStore } from "../../src/store/blocks.ts";
import { tempDir } from "../harness/binary.ts";

describe("BlockStore", () => {
  test("put stores bytes once under sha256[0:2]/sha256, 0600, and reads them back", () => {
    using dir = tempDir();
    const blocks = new BlockStore(dir.path);
    const bytes = new TextEncoder().encode("a picture, say");
    const sha = blocks.put(bytes);
    expect(sha).toBe(createHash("sha256").update(bytes).digest("hex"));
    const file = join(dir.path, "blocks", sha.slice(0, 2), sha);
    expect(readFileSync(file)).toEqual(Buffer.from(bytes));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(blocks.put(bytes)).toBe(sha);
    expect(readdirSync(join(dir.path, "blocks", sha.slice(0, 2)))).toEqual([sha]);
    expect(blocks.read(sha)).toEqual(new Uint8Array(bytes));
    expect(blocks.read("0".repeat(64))).toBeNull();
  });
});
