/**
 * A scene's memories as sorted event ranges (src/memory/scene-ranges.ts): for any member turns,
 * in any order, overlapping or not, "is this event a memory" answers as a scan of every member
 * would; and SceneRows keeps the ranges it read up to date as members join.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { addRange, inRanges, type SceneRanges } from "../../src/memory/scene-ranges.ts";
import { SceneRows } from "../../src/memory/scene-rows.ts";
import { migrate } from "../../src/store/migrations.ts";
import { SceneStore } from "../../src/store/scene-store.ts";
import { mulberry32 } from "../harness/prng.ts";

describe("scene ranges", () => {
  test("answer as a scan of every member would, whatever the order and overlaps", () => {
    const rand = mulberry32(5);
    for (let round = 0; round < 40; round++) {
      const ranges: SceneRanges = new Map();
      const members: { conv: string; first: number; last: number }[] = [];
      for (let i = 0; i < 1 + Math.floor(rand() * 60); i++) {
        const conv = rand() < 0.7 ? "a" : "b";
        const first = Math.floor(rand() * 400);
        const last = first + Math.floor(rand() * (rand() < 0.2 ? 40 : 6));
        members.push({ conv, first, last });
        addRange(ranges, conv, first, last);
      }
      for (const conv of ["a", "b", "c"])
        for (let id = 0; id < 460; id++) {
          const scan = members.some((m) => m.conv === conv && id >= m.first && id <= m.last);
          expect(inRanges(ranges, conv, id)).toBe(scan);
        }
      // Kept sorted and apart.
      for (const pairs of ranges.values())
        for (let i = 2; i < pairs.length; i += 2) expect(pairs[i] as number).toBeGreaterThan(pairs[i - 1] as number);
    }
  });

  test("SceneRows reads a scene's ranges once and adds joining members to them", () => {
    const db = new Database(":memory:");
    migrate(db, ":memory:");
    const rows = new SceneRows(new SceneStore(db));
    const settings = { persona: "", tools: null };
    const features = { channel: "cli", partner: "", tools: [], topic: ["garden"], hour: null, words: {} };
    const id = rows.insert({
      status: "scene",
      key: "",
      parentKey: "",
      features,
      counts: {},
      strength: 1,
      createdAt: 0,
      lastSeen: 0,
      settings,
    });
    rows.addMember(id, { turn: "t1", conv: "c", ts: 1, firstEvent: 10, lastEvent: 14 });
    const ranges = rows.memberRanges(id);
    expect(inRanges(ranges, "c", 12)).toBe(true);
    expect(inRanges(ranges, "c", 20)).toBe(false);
    rows.addMember(id, { turn: "t2", conv: "c", ts: 2, firstEvent: 20, lastEvent: 22 });
    expect(rows.memberRanges(id)).toBe(ranges);
    expect(inRanges(ranges, "c", 20)).toBe(true);
    // The same turn again is no new member, and changes nothing.
    rows.addMember(id, { turn: "t2", conv: "c", ts: 3, firstEvent: 30, lastEvent: 31 });
    expect(inRanges(ranges, "c", 30)).toBe(false);
    // What another reader of the same table sees agrees.
    expect(new SceneRows(new SceneStore(db)).memberRanges(id)).toEqual(ranges);
    db.close();
  });

  test("a scene's recent members are its own, newest first, at most the limit", () => {
    const db = new Database(":memory:");
    migrate(db, ":memory:");
    const rows = new SceneRows(new SceneStore(db));
    const scene = () =>
      rows.insert({
        status: "scene",
        key: "",
        parentKey: "",
        features: { channel: "cli", partner: "", tools: [], topic: [], hour: null, words: {} },
        counts: {},
        strength: 1,
        createdAt: 0,
        lastSeen: 0,
        settings: { persona: "", tools: null },
      });
    const [a, b] = [scene(), scene()];
    for (let i = 1; i <= 4; i++)
      rows.addMember(i % 2 ? a : b, { turn: `t${i}`, conv: `c${i}`, ts: i, firstEvent: i * 10, lastEvent: i * 10 + 1 });
    expect(rows.recentMembers(a, 50)).toEqual([
      { turn: "t3", conv: "c3", ts: 3 },
      { turn: "t1", conv: "c1", ts: 1 },
    ]);
    expect(rows.recentMembers(b, 1)).toEqual([{ turn: "t4", conv: "c4", ts: 4 }]);
    db.close();
  });

  test("a row updated is read back as another reader parses it, over random updates", () => {
    const db = new Database(":memory:");
    migrate(db, ":memory:");
    const rows = new SceneRows(new SceneStore(db));
    const rand = mulberry32(5);
    const ids = [0, 1, 2].map((i) =>
      rows.insert({
        status: "candidate",
        key: "",
        parentKey: "",
        features: { channel: "cli", partner: "", tools: [], topic: [`t${i}`], hour: i, words: {} },
        counts: {},
        strength: 1,
        createdAt: 0,
        lastSeen: 0,
        settings: { persona: "", tools: null },
      }),
    );
    for (let step = 0; step < 200; step++) {
      const id = ids[Math.floor(rand() * ids.length)] as number;
      const row = rows.byId(id);
      if (!row) throw new Error("row gone");
      const w = `w${Math.floor(rand() * 20)}`;
      const r = rand();
      // Features without `words` (rows from before it was kept), new tools, settings changed.
      const { words: _w, ...bare } = row.features;
      const features =
        r < 0.2
          ? bare
          : { ...row.features, topic: [...row.features.topic, w].slice(-8), words: { [w]: w.toUpperCase() } };
      rows.update({
        ...row,
        status: rand() < 0.5 ? "candidate" : "scene",
        features: r > 0.9 ? { ...features, tools: [...features.tools, "shell"] } : features,
        counts: { ...row.counts, [w]: (row.counts[w] ?? 0) + 1 },
        strength: row.strength + 1,
        lastSeen: step,
        settings: rand() < 0.1 ? { persona: `p${step}`, tools: null } : row.settings,
      });
      for (const x of ids) expect(rows.byId(x)).toEqual(new SceneRows(new SceneStore(db)).byId(x));
      expect(rows.comparable("")).toEqual(new SceneRows(new SceneStore(db)).comparable(""));
    }
    db.close();
  });
});
