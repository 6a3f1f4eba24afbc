/**
 * blocks/get between the kernel and real plugin processes (issue 15): a 4 MiB image reaches an
 * `shm` plugin through its shared-memory arena — the reply frame holds an {off, len} reference,
 * never base64 — and a `stdio` plugin as base64 in the frame; above the stdio inline limit the
 * plugin gets a clear error naming the limit, while the shm plugin still gets the bytes. The
 * record comes with them (kind, type, size, alt text, holder), `bytes: false` gives the record
 * alone, an unknown id is not_found, and a plugin that is not built in is refused. A block of a
 * forgotten conversation is not_found too, and a block added after the forgetting is not.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { tempDir } from "../harness/binary.ts";
import { pngOf, startBlockRig } from "../harness/block-rig.ts";

const MiB = 1 << 20;
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

describe("blocks/get", () => {
  test("4 MiB over shm (arena) and stdio (base64); over the inline limit stdio gets a clear error", async () => {
    using dir = tempDir();
    await using rig = await startBlockRig(dir.path, 6 * MiB);
    const four = pngOf(4 * MiB);
    const id = rig.addImage(four, "a red bike");
    for (const [name, via] of [
      ["shm", "arena"],
      ["stdio", "inline"],
    ]) {
      const r = await rig.read(name as string, id);
      expect(r.via).toBe(via as "arena" | "inline");
      expect(r.error).toBeUndefined();
      expect(r.len).toBe(four.length);
      expect(r.sha256).toBe(sha(four));
      expect(r.block).toMatchObject({
        id,
        kind: "image",
        mime: "image/png",
        size: four.length,
        text: "a red bike",
        holder: "L1",
      });
    }
    const seven = pngOf(7 * MiB, 9);
    const big = rig.addImage(seven);
    const viaShm = await rig.read("shm", big);
    expect(viaShm.sha256).toBe(sha(seven));
    const viaStdio = await rig.read("stdio", big);
    expect(viaStdio.error).toBe(
      `payload of ${seven.length} bytes exceeds the stdio transport's inline limit of ${6 * MiB}`,
    );
    // The shm arena took both reads and was released: a third read of the large one still fits.
    expect((await rig.read("shm", big)).len).toBe(seven.length);
  }, 60_000);

  test("the record alone, an unknown id, and a plugin that is not built in", async () => {
    using dir = tempDir();
    await using rig = await startBlockRig(dir.path, MiB);
    const id = rig.addImage(pngOf(1000));
    const r = await rig.read("stdio", id, false);
    expect(r.len).toBeNull();
    expect(r.via).toBeNull();
    expect(r.block).toMatchObject({ id, size: 1000 });
    expect((await rig.read("shm", 9999)).error).toBe("no block 9999 (or it was forgotten with its conversation)");
    expect((await rig.read("outsider", id)).error).toBe(
      "reading blocks is reserved to built-in plugins; outsider is not one",
    );
  }, 60_000);

  test("a forgotten conversation's blocks are not handed out; a later one is", async () => {
    using dir = tempDir();
    await using rig = await startBlockRig(dir.path, MiB);
    rig.store.beginTurn("t0", "blocks", "web");
    const before = rig.addImage(pngOf(1000), "said before forgetting");
    expect((await rig.read("shm", before)).len).toBe(1000);
    rig.store.forgetConversation("blocks");
    for (const bytes of [true, false])
      expect((await rig.read("shm", before, bytes)).error).toBe(
        `no block ${before} (or it was forgotten with its conversation)`,
      );
    const after = rig.addImage(pngOf(1200), "said after");
    expect((await rig.read("stdio", after)).len).toBe(1200);
  }, 60_000);
});
