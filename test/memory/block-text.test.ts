/**
 * A block's text reaches the lexical index with its event (issue 15): a tool's image comes back
 * with alt text ("a red bike leaning on the garden wall") that its result's own text does not
 * say; the compiled daemon records the image as a block record of the tool-result event (held
 * by L1) and "the photo of the red bike" finds the event through the web UI's memory search.
 * A second image without alt text ranks below it: only "photo" (a concept of the tool's name,
 * image_make) matches that one, while the block's text matches "red bike".
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { installBunPlugin } from "../harness/plugins.ts";
import { poll } from "../harness/poll.ts";

const TOKEN = "tok-block-text-0123456789abcdef";

describe("block text in the lexical index", () => {
  test("an image's alt text finds its tool result; its block record is held by L1", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "image", "image.ts", { transport: "shm" });
    await using rig = await startAgentRig(dir.path, { env: { HOMED_WEB_TOKEN: TOKEN } });
    await poll(rig.status, (st) => st.tools.some((t) => t.name === "image_make"), { what: "image_make registered" });
    const shot = (alt?: string) => ({
      name: "image_make",
      arguments: { shots: [{ w: 4, h: 3, ...(alt ? { alt } : {}) }], text: "made it" },
    });
    rig.llm.script([
      { toolCalls: [{ ...shot("a red bike leaning on the garden wall"), id: "call_a" }] },
      { text: "done" },
      { toolCalls: [{ ...shot(), id: "call_b" }] },
      { text: "done too" },
    ]);
    expect((await rig.chat("draw something")).exitCode).toBe(0);
    expect((await rig.chat("draw another")).exitCode).toBe(0);

    const db = new Database(join(rig.data, "homed.db"), { readonly: true });
    const blocks = db
      .query<{ id: number; event_id: number; kind: string; text: string; layer: number }, []>(
        "SELECT b.id, b.event_id, b.kind, b.text, s.layer FROM blocks b JOIN event_state s ON s.event_id = b.event_id ORDER BY b.id",
      )
      .all();
    db.close();
    expect(blocks.map((b) => [b.kind, b.text, b.layer])).toEqual([
      ["image", "a red bike leaning on the garden wall", 1],
      ["image", "", 1],
    ]);

    const web = await webUrlOf(rig.daemon);
    const res = await fetch(`${web}api/memory/search?q=${encodeURIComponent("the photo of the red bike")}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.status).toBe(200);
    const found = (await res.json()) as { id: number; role: string; score: number }[];
    expect(found[0]?.id).toBe(blocks[0]?.event_id ?? -1);
    expect(found[0]?.role).toBe("tool image_make");
    const other = found.find((f) => f.id === blocks[1]?.event_id);
    expect(other?.score ?? 0).toBeLessThan((found[0]?.score ?? 0) / 2);

    // The web UI reads the record through blocks/get, with where its bytes are served.
    const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
    const rec = await fetch(`${web}api/block-records/${blocks[0]?.id}`, auth);
    expect(rec.status).toBe(200);
    const { block, url } = (await rec.json()) as { block: Record<string, unknown>; url: string };
    expect(block).toMatchObject({ id: blocks[0]?.id, kind: "image", mime: "image/png", holder: "L1" });
    expect(block.text).toBe("a red bike leaning on the garden wall");
    const img = await fetch(new URL(url, web), auth);
    expect(img.status).toBe(200);
    expect(new Uint8Array(await img.arrayBuffer()).length).toBe(block.size as number);
    expect((await fetch(`${web}api/block-records/987654`, auth)).status).toBe(404);
    expect((await fetch(`${web}api/block-records/${blocks[0]?.id}`)).status).toBe(401);
  }, 60_000);
});
