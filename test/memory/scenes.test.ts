/**
 * Scenes in process (src/memory/scenes.ts) over a real store: the original's numbers (created
 * on the second occurrence, join at 0.5, recall at 0.35, +1 strength a recurrence), decay by the
 * half-life on an injected clock, declared keys that never absorb the full fingerprint while
 * narrower scenes grow inside them, scene memories for recall and their trust confinement, and
 * settings that only narrow. The daemon-level checks are in test/agent/scenes-turn.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { Store } from "../../src/store/store.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { Scenes } from "../../src/memory/scenes.ts";
import { declaredFingerprint, similarity } from "../../src/memory/scene-fingerprint.ts";

const DAY = 86_400_000;

function rig(dir: string, halfLifeDays = 14) {
  const store = Store.open(join(dir, "homed.db"));
  const tokenizer = new Tokenizer();
  let now = Date.UTC(2026, 0, 5, 9); // a Monday, 09:00
  const scenes = new Scenes(store.scenes, (t) => tokenizer.words(t), {
    halfLifeMs: () => halfLifeDays * DAY,
    now: () => now,
    hourOf: (ms) => new Date(ms).getUTCHours(),
  });
  let n = 0;
  /** One turn: its events appended to the log, then observed as the agent does. */
  const turn = (
    conv: string,
    text: string,
    o: { scene?: string; tools?: string[]; channel?: string; untrusted?: boolean } = {},
  ) => {
    const channel = o.channel ?? "web";
    const first = store.append({
      conv,
      actor: "user",
      kind: "user-message",
      body: { turn: `t${n}`, text, channel },
    }).id;
    const last = store.append({ conv, actor: "agent", kind: "agent-reply", body: { turn: `t${n}`, text: "ok" } }).id;
    return {
      first,
      last,
      scenes: scenes.observe({
        turn: `t${n++}`,
        conv,
        channel,
        scene: o.scene,
        text,
        untrusted: o.untrusted ?? false,
        tools: o.tools ?? [],
        firstEvent: first,
        lastEvent: last,
      }),
    };
  };
  return {
    store,
    scenes,
    turn,
    advance: (ms: number) => {
      now += ms;
    },
    [Symbol.dispose]: () => store.close(),
  };
}

describe("scenes", () => {
  test("a one-off makes no scene; the second occurrence does; each recurrence adds 1; idle scenes halve per half-life", () => {
    using dir = tempDir();
    using r = rig(dir.path);
    expect(r.turn("cli-1", "weekly planning: review the sprint board", { tools: ["calendar"] }).scenes).toEqual([]);
    expect(r.scenes.list()).toEqual([]);
    r.advance(7 * DAY);
    const second = r.turn("cli-2", "weekly planning: the sprint board again", { tools: ["calendar"] });
    expect(second.scenes).toHaveLength(1);
    let [s] = r.scenes.list();
    expect(s?.members).toBe(2);
    // Strength: 1 decayed over 7 days of a 14-day half-life (0.707), + 1.
    expect(s?.strength).toBeCloseTo(1 + 0.5 ** 0.5, 3);
    r.turn("cli-3", "weekly planning: sprint board review", { tools: ["calendar"] });
    [s] = r.scenes.list();
    expect(s?.members).toBe(3);
    expect(s?.strength).toBeCloseTo(1 + 0.5 ** 0.5 + 1, 3);
    const before = s?.strength ?? 0;
    r.advance(14 * DAY);
    expect(r.scenes.list()[0]?.strength).toBeCloseTo(before / 2, 2);
    r.advance(28 * DAY);
    expect(r.scenes.list()[0]?.strength).toBeCloseTo(before / 8, 2);
  });

  test("different situations stay apart: a turn joins the scene it matches best, not any scene", () => {
    using dir = tempDir();
    using r = rig(dir.path);
    r.turn("a", "deploy the release to production", { tools: ["shell"], channel: "cli" });
    r.turn("b", "deploy the release to staging", { tools: ["shell"], channel: "cli" });
    r.advance(12 * 3600_000); // 21:00
    r.turn("c", "what should I cook for dinner tonight", { channel: "web" });
    r.turn("d", "dinner ideas for tonight please", { channel: "web" });
    const list = r.scenes.list();
    expect(list).toHaveLength(2);
    expect(list.map((s) => s.tools)).toContainEqual(["shell"]);
    expect(list.find((s) => s.channel === "web")?.topic).toContain("dinner");
  });

  test("the topic is shown in the words people wrote, not as index stems (Friday, not fridai)", () => {
    using dir = tempDir();
    using r = rig(dir.path);
    r.turn("w-1", "Friday standup: what did the team ship this week?", { channel: "cli" });
    r.advance(7 * DAY);
    r.turn("w-2", "Friday standup again: what did the team ship?", { channel: "cli" });
    const [s] = r.scenes.list();
    expect(s?.topic).toEqual(expect.arrayContaining(["friday", "standup", "team", "ship"]));
    expect(s?.topic).not.toContain("fridai");
    // Rows written before the words were kept still list their terms.
    r.store.db.run("UPDATE scenes SET features = json_remove(features, '$.words')");
    expect(r.scenes.list()[0]?.topic).toContain("fridai");
  });

  test("a declared key matches on its key only (~0.59, never ~1.0), and narrower scenes grow inside it", () => {
    using dir = tempDir();
    using r = rig(dir.path);
    const key = "chan:qq/peer:group_1";
    // Morning weather checks, evening banter: all in one group.
    for (let day = 0; day < 3; day++) {
      r.turn("qq:group_1", "what is the weather today, umbrella or not", {
        scene: key,
        tools: ["weather"],
        channel: "qq",
      });
      r.advance(11 * 3600_000);
      r.turn("qq:group_1", "who is up for board games tonight", { scene: key, channel: "qq" });
      r.advance(13 * 3600_000);
    }
    const list = r.scenes.list();
    const declared = list.find((s) => s.key === key);
    expect(declared?.members).toBe(6);
    expect(declared?.tools).toEqual([]);
    expect(declared?.topic).toEqual([]);
    expect(declared?.hour).toBeNull();
    const inside = list.filter((s) => s.parentKey === key);
    expect(inside).toHaveLength(2);
    expect(inside.find((s) => s.tools.includes("weather"))?.members).toBe(3);
    expect(inside.find((s) => s.topic.includes("games"))?.members).toBe(3);
    // The declared scene's features never absorbed the turns': a full match is 2.0 / 3.4.
    const weatherTurn = { channel: "qq", partner: "group_1", tools: ["weather"], topic: ["weather"], hour: 9 };
    expect(similarity(weatherTurn, declaredFingerprint(key), "declared")).toBeCloseTo(2 / 3.4, 5);
  });

  test("recall: a turn's active scenes and their memories; an untrusted turn's are its own conversation's", () => {
    using dir = tempDir();
    using r = rig(dir.path);
    const key = "chan:a2a/peer:bob";
    const one = r.turn("call-1", "weekly call with bob: the budget is 40k", { scene: key, channel: "a2a" });
    r.advance(7 * DAY);
    const two = r.turn("call-2", "weekly call with bob: budget moved to 45k", { scene: key, channel: "a2a" });
    const other = r.turn("web-1", "the budget for the kitchen is 3k");
    r.advance(7 * DAY);
    const t = r.scenes.forTurn({
      conv: "call-3",
      channel: "a2a",
      scene: key,
      text: "what is the budget now?",
      untrusted: false,
    });
    // The declared scene (2.0 of the 2.6 known before the turn runs), and the one grown inside it.
    const declared = r.scenes.list().find((s) => s.key === key);
    expect(t.scenes.find((s) => s.id === declared?.id)?.similarity).toBeCloseTo(2 / 2.6, 5);
    expect(t.scenes.every((s) => s.similarity >= 0.35)).toBe(true);
    expect(t.memoryOf(one.first, "call-1")).toBeGreaterThan(0);
    expect(t.memoryOf(two.last, "call-2")).toBeGreaterThan(0);
    expect(t.memoryOf(other.first, "web-1")).toBe(0);
    // The same key from an untrusted turn: only its own conversation's scene memories.
    const u = r.scenes.forTurn({ conv: "call-2", channel: "a2a", scene: key, text: "budget?", untrusted: true });
    expect(u.memoryOf(one.first, "call-1")).toBe(0);
    expect(u.memoryOf(two.first, "call-2")).toBeGreaterThan(0);
    // Another key: no scene, nothing recalled first.
    const none = r.scenes.forTurn({
      conv: "x",
      channel: "a2a",
      scene: "chan:a2a/peer:carol",
      text: "budget?",
      untrusted: false,
    });
    expect(none.scenes).toEqual([]);
  });

  test("settings: set on a key before its first turn, applied from then on; tool lists only narrow", () => {
    using dir = tempDir();
    using r = rig(dir.path);
    const key = "chan:qq/peer:group_7";
    const set = r.scenes.set({ key }, { persona: "You are the quiz host.", tools: ["weather", "notes"] });
    expect(set?.settings.tools).toEqual(["weather", "notes"]);
    let t = r.scenes.forTurn({ conv: "g7", channel: "qq", scene: key, text: "hi", untrusted: true });
    expect(t.persona).toEqual(["You are the quiz host."]);
    expect([...(t.tools ?? [])].sort()).toEqual(["notes", "weather"]);
    // A narrower scene inside it with its own list: the intersection applies.
    r.turn("g7", "weather for the picnic", { scene: key, tools: ["weather"], channel: "qq" });
    r.turn("g7", "weather for the picnic tomorrow", { scene: key, tools: ["weather"], channel: "qq" });
    const inside = r.scenes.list().find((s) => s.parentKey === key);
    expect(inside).toBeDefined();
    r.scenes.set({ id: inside?.id ?? 0 }, { persona: "", tools: ["weather", "shell"] });
    t = r.scenes.forTurn({ conv: "g7", channel: "qq", scene: key, text: "weather for the picnic", untrusted: true });
    expect([...(t.tools ?? [])]).toEqual(["weather"]);
    expect(r.scenes.set({ id: 999 }, { persona: "", tools: null })).toBeNull();
    // Kept in the store: a new Scenes over the same database sees the same.
    const again = new Scenes(r.store.scenes, () => [], { halfLifeMs: () => DAY });
    expect(again.list().find((s) => s.key === key)?.settings.persona).toBe("You are the quiz host.");
  });
});
