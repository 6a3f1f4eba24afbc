/**
 * Block records with one holder (issue 15): random append / prune / recall (Remove) /
 * distill / forget operations on a real Store + Memory + BlockStore, every block audited after each
 * (test/harness/block-ops.ts); the audit catches a lost block; records cannot be changed or
 * deleted; a database of schema 8 adopts the images it already logged as block records.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { runBlockOps } from "../harness/block-ops.ts";
import { Store } from "../../src/store/store.ts";
import { MIGRATIONS, SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { BlockRecords } from "../../src/store/block-records.ts";
import { imageTag } from "../../src/protocol/blocks.ts";

const SHA_A = "a".repeat(64);
const SHA_B = "b".repeat(64);

describe("block records: one holder", () => {
  test("thousands of random operations keep every block with exactly one holder, none lost", async () => {
    // Fixed seeds plus one new each run; a failure names the seed that reproduces it.
    const seeds = [1, 2, 3, Date.now() % 1_000_000];
    let total = 0;
    for (const seed of seeds) {
      using dir = tempDir();
      const r = await runBlockOps(dir.path, seed, 500);
      if (r.violation) throw new Error(`seed ${seed}: ${r.violation}`);
      expect(r.audits).toBe(500);
      expect(r.blocks).toBeGreaterThan(50);
      expect(r.counts.prune).toBeGreaterThan(50);
      expect(r.counts.recall).toBeGreaterThan(30);
      expect(r.counts.distill).toBeGreaterThan(20);
      expect(r.l3Blocks).toBeGreaterThan(0);
      expect(r.chunks).toBeGreaterThan(10);
      total += r.ops;
    }
    expect(total).toBe(2000);
  }, 180_000);

  test("the audit catches a block record that goes missing", async () => {
    using dir = tempDir();
    const r = await runBlockOps(dir.path, 5, 200, {
      sabotage: (store, i) => {
        if (i !== 120) return;
        store.db.exec("DROP TRIGGER blocks_no_delete");
        store.db.exec("DELETE FROM blocks WHERE id = (SELECT min(id) FROM blocks)");
      },
    });
    expect(r.violation).toMatch(/^op 121 \(.*\): block \d+ lost$/);
  });

  test("the audit catches a block whose event changed layer behind the context's back", async () => {
    using dir = tempDir();
    const r = await runBlockOps(dir.path, 6, 200, {
      sabotage: (store, i) => {
        if (i === 150)
          store.db.exec("UPDATE event_state SET layer = 2 WHERE event_id = (SELECT min(event_id) FROM blocks)");
      },
    });
    // The turn cache still says L1 (or the rest of its turn disagrees): caught either way.
    expect(r.violation).toMatch(/^op 151 /);
  });

  test("the audit catches a long attachment's chunk moved out of its turn's layer", async () => {
    using dir = tempDir();
    const r = await runBlockOps(dir.path, 8, 200, {
      sabotage: (store, i) => {
        if (i === 150)
          store.db.exec(
            "UPDATE event_state SET layer = CASE layer WHEN 1 THEN 2 ELSE 1 END WHERE event_id = (SELECT max(e.id) FROM events e JOIN event_state s ON s.event_id = e.id WHERE e.kind = 'attachment-chunk' AND s.layer < 3)",
          );
      },
    });
    expect(r.chunks).toBeGreaterThan(0);
    expect(r.violation).toMatch(/^op 151 \(.*\): event \d+ of turn t\d+ in L\d, its turn in L\d$/);
  });

  test("the audit catches a distilled block taken back from L3 behind the context's back", async () => {
    using dir = tempDir();
    const r = await runBlockOps(dir.path, 7, 300, {
      sabotage: (store, i) => {
        if (i === 250)
          store.db.exec(
            "UPDATE event_state SET layer = 1 WHERE event_id = (SELECT min(b.event_id) FROM blocks b JOIN event_state s ON s.event_id = b.event_id JOIN events e ON e.id = b.event_id WHERE s.layer = 3 AND e.conv != 'l3:graph')",
          );
      },
    });
    expect(r.counts.distill).toBeGreaterThan(0);
    expect(r.violation).toMatch(/^op 251 .*L3/);
  });

  test("records never change and are never deleted; holder follows the event's layer", () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"), { imageTagChannels: ["qq"] });
    const e = store.append({
      conv: "c",
      kind: "tool-result",
      actor: "browser",
      body: {
        turn: "t",
        callId: "x",
        name: "browser_screenshot",
        status: "ok",
        content: "ok",
        images: [{ sha256: SHA_A, mime: "image/png", bytes: 10, alt: "a red bike" }],
      },
    });
    const records = new BlockRecords(store.db);
    const [b] = records.ofEvents([e.id]).get(e.id) ?? [];
    expect(b).toMatchObject({
      kind: "image",
      sha256: SHA_A,
      mime: "image/png",
      size: 10,
      text: "a red bike",
      holder: "L1",
    });
    expect(() => store.db.exec("UPDATE blocks SET event_id = 99")).toThrow(/UPDATE refused/);
    expect(() => store.db.exec("DELETE FROM blocks")).toThrow(/DELETE refused/);
    store.db.query("UPDATE event_state SET layer = 2 WHERE event_id = ?").run(e.id);
    expect(records.get(b?.id ?? 0)).toMatchObject({ id: b?.id, holder: "L2" });
    expect(records.heldBy("c", "L1")).toEqual([]);
    expect(records.heldBy("c", "L2").map((x) => x.id)).toEqual([b?.id ?? 0]);
    store.close();
  });

  test("a schema-8 database adopts its logged images (tool results, QQ pictures) as block records", () => {
    using dir = tempDir();
    const path = join(dir.path, "homed.db");
    const db = new Database(path, { create: true, strict: true });
    for (const m of MIGRATIONS.slice(0, 8)) db.exec(m.sql);
    db.exec("PRAGMA user_version = 8");
    const add = db.query("INSERT INTO events (ts, conv, kind, actor, body) VALUES (1, ?, ?, ?, ?)");
    const qq = `look [image block ${SHA_A} image/jpeg 1234 bytes] my red bike ${imageTag({ sha256: SHA_B, mime: "image/png", bytes: 5 })}`;
    add.run("qq-g", "user-message", "user", JSON.stringify({ turn: "t1", text: qq, channel: "qq" }));
    add.run("qq-g", "user-message", "user", JSON.stringify({ turn: "t1", text: "no pictures here" }));
    add.run(
      "web",
      "tool-result",
      "browser",
      JSON.stringify({
        turn: "t2",
        callId: "c",
        name: "browser_screenshot",
        status: "ok",
        content: "Screenshot",
        images: [{ sha256: SHA_B, mime: "image/png", bytes: 5 }],
      }),
    );
    db.close();
    const store = Store.open(path, { imageTagChannels: ["qq"] });
    expect(store.schemaVersion).toBe(SCHEMA_VERSION);
    const all = new BlockRecords(store.db).all();
    expect(all.map((b) => [b.eventId, b.seq, b.sha256, b.mime, b.size, b.text, b.holder])).toEqual([
      [1, 0, SHA_A, "image/jpeg", 1234, "look my red bike", "L1"],
      [1, 1, SHA_B, "image/png", 5, "look my red bike", "L1"],
      [3, 0, SHA_B, "image/png", 5, "", "L1"],
    ]);
    store.close();
    // Opening again adopts nothing twice.
    const again = Store.open(path, { imageTagChannels: ["qq"] });
    expect(new BlockRecords(again.db).count()).toBe(3);
    again.close();
  });
});
