/**
 * The stable graph's store (src/store/l3-graph.ts, migration 11) on a real sqlite file: entity
 * nodes are text blocks held by L3, a new fact on the same subject and predicate supersedes the
 * old one (both kept), a fact said again gains sources instead of a copy, a fact distilled late
 * from an older event arrives superseded, a person's correction supersedes and a deletion hides,
 * both logged; and sqlite itself refuses deleting or rewriting a fact.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { Store } from "../../src/store/store.ts";
import { L3_CONV, L3Graph } from "../../src/store/l3-graph.ts";
import { BlockRecords } from "../../src/store/block-records.ts";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

function rig(dir: string) {
  const store = Store.open(join(dir, "homed.db"));
  const graph = new L3Graph(store);
  const say = (conv: string, text: string, ts: number) =>
    store.append({ conv, kind: "user-message", actor: "user", body: { turn: `t${ts}`, text }, ts }).id;
  return { store, graph, say };
}

const fact = (subject: string, predicate: string, object: string, sources: number[], validFrom: number) => ({
  subject: { label: subject },
  predicate,
  object: { label: object },
  sources,
  validFrom,
  origin: "distill" as const,
  version: "distill-v1/triple-v1",
});

describe("L3 graph", () => {
  test("entities are text blocks held by L3, one per name", () => {
    using dir = tempDir();
    const { store, graph } = rig(dir.path);
    const a = graph.entity("Alice");
    expect(graph.entity("  alice ")).toBe(a);
    expect(graph.entity("The Alice")).toBe(a);
    const rec = new BlockRecords(store.db).get(a);
    expect(rec).toMatchObject({ kind: "text", text: "Alice", holder: "L3", conv: L3_CONV, sha256: null });
    expect(new BlockRecords(store.db).heldBy(null, "L3").map((b) => b.id)).toEqual([a]);
    store.close();
  });

  test("a new fact on the same subject and predicate supersedes the old one; both are kept", () => {
    using dir = tempDir();
    const { store, graph, say } = rig(dir.path);
    const e1 = say("c1", "Alice lives in London", T0);
    const e2 = say("c2", "Alice moved to Paris", T0 + 30 * DAY);
    const london = graph.add(fact("Alice", "lives in", "London", [e1], T0));
    const paris = graph.add(fact("Alice", "Lives_In", "Paris", [e2], T0 + 30 * DAY));
    expect(paris.superseded).toEqual([london.id]);
    const hist = graph.history(paris.id);
    expect(hist.map((f) => [f.object.label, f.supersededBy])).toEqual([
      ["London", paris.id],
      ["Paris", null],
    ]);
    expect(hist[0]?.sources).toEqual([{ eventId: e1, conv: "c1", ts: T0, untrusted: false, mark: null }]);
    expect(graph.list().map((f) => f.object.label)).toEqual(["Paris"]);
    expect(graph.list({ includeSuperseded: true }).map((f) => f.object.label)).toEqual(["Paris", "London"]);
    expect(graph.logOf(london.id).map((l) => l.action)).toEqual(["add", "supersede"]);
    store.close();
  });

  test("the same fact again gains a source, not a copy; one from an older event arrives superseded", () => {
    using dir = tempDir();
    const { store, graph, say } = rig(dir.path);
    const e1 = say("c1", "I work at Acme", T0 + 10 * DAY);
    const e2 = say("c2", "still at Acme", T0 + 20 * DAY);
    const e0 = say("c3", "back then I worked at Initech", T0);
    const a = graph.add(fact("user", "works at", "Acme", [e1], T0 + 10 * DAY));
    const again = graph.add(fact("user", "works at", "Acme", [e2], T0 + 20 * DAY));
    expect(again).toEqual({ id: a.id, merged: true, superseded: [] });
    expect(graph.get(a.id)?.sources.map((s) => s.eventId)).toEqual([e1, e2]);
    const late = graph.add(fact("user", "works at", "Initech", [e0], T0));
    expect(late.superseded).toEqual([late.id]);
    expect(graph.get(late.id)?.supersededBy).toBe(a.id);
    expect(graph.get(a.id)?.supersededBy).toBeNull();
    expect(graph.count()).toEqual({ facts: 2, current: 1, nodes: 3 });
    store.close();
  });

  test("a correction is a new superseding fact by the person; a deletion hides and is logged", () => {
    using dir = tempDir();
    const { store, graph, say } = rig(dir.path);
    const e1 = say("c1", "my dentist is Dr Wu", T0);
    const wrong = graph.add(fact("user", "dentist is", "Dr Wu", [e1], T0));
    const fixed = graph.correct(wrong.id, "Dr Woo", "web", T0 + DAY);
    expect(graph.get(fixed.id)).toMatchObject({ origin: "person", version: "person", object: { label: "Dr Woo" } });
    expect(graph.get(wrong.id)?.supersededBy).toBe(fixed.id);
    expect(graph.logOf(fixed.id).map((l) => [l.action, l.actor])).toEqual([
      ["add", "person"],
      ["correct", "web"],
    ]);
    graph.hide(fixed.id, "web", "not true", T0 + 2 * DAY);
    expect(graph.list()).toEqual([]);
    expect(graph.get(fixed.id)).toMatchObject({ hiddenAt: T0 + 2 * DAY, hiddenBy: "web" });
    expect(graph.logOf(fixed.id).at(-1)).toMatchObject({ action: "hide", actor: "web", detail: "not true" });
    expect(() => graph.hide(999, "web", "")).toThrow(/no fact 999/);
    store.close();
  });

  test("what only untrusted input said never supersedes the person's own facts; theirs supersedes it", () => {
    using dir = tempDir();
    const { store, graph } = rig(dir.path);
    const say = (conv: string, ts: number, untrusted: boolean) =>
      store.append({ conv, kind: "user-message", actor: "user", untrusted, body: { turn: `t${ts}`, text: "x" }, ts })
        .id;
    const london = graph.add(fact("Alice", "lives in", "London", [say("web", T0, false)], T0));
    const berlin = graph.add(fact("Alice", "lives in", "Berlin", [say("group", T0 + DAY, true)], T0 + DAY));
    expect(berlin.superseded).toEqual([]);
    expect(graph.list().map((f) => f.object.label)).toEqual(["Berlin", "London"]);
    const paris = graph.add(fact("Alice", "lives in", "Paris", [say("web", T0 + 2 * DAY, false)], T0 + 2 * DAY));
    expect(paris.superseded.sort()).toEqual([london.id, berlin.id].sort());
    expect(graph.list().map((f) => f.object.label)).toEqual(["Paris"]);
    store.close();
  });

  test("sqlite refuses deleting a fact or rewriting anything but its marks", () => {
    using dir = tempDir();
    const { store, graph, say } = rig(dir.path);
    const e1 = say("c1", "x", T0);
    const f = graph.add(fact("a", "b", "c", [e1], T0));
    const g = graph.add(fact("a", "b", "d", [e1], T0 + 1));
    expect(() => store.db.exec("DELETE FROM l3_facts")).toThrow(/DELETE refused/);
    expect(() => store.db.exec(`UPDATE l3_facts SET object = subject WHERE id = ${f.id}`)).toThrow(/UPDATE refused/);
    expect(() => store.db.exec(`UPDATE l3_facts SET superseded_by = NULL WHERE id = ${f.id}`)).toThrow(
      /UPDATE refused/,
    );
    expect(() => store.db.exec("DELETE FROM l3_log")).toThrow(/DELETE refused/);
    // Setting a mark once is what the graph does.
    store.db.exec(`UPDATE l3_facts SET hidden_at = 1, hidden_by = 'x' WHERE id = ${g.id}`);
    expect(() => store.db.exec(`UPDATE l3_facts SET hidden_at = NULL WHERE id = ${g.id}`)).toThrow(/UPDATE refused/);
    store.close();
  });
});
