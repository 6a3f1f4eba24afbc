/**
 * L3 recall (src/memory/l3-recall.ts) over a real store and graph: the note states the newest
 * fact per subject and predicate with what it replaced and where it was learned, reaches one or
 * two hops from the nodes the input names, is deduplicated, keeps to its share of the budget,
 * and follows the trust scope (an untrusted conversation sees only facts with a source in it,
 * and a newer fact it may not see does not show through) and forgetting.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { Store } from "../../src/store/store.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { L3Graph } from "../../src/store/l3-graph.ts";
import { L3_HEADER, L3Recall } from "../../src/memory/l3-recall.ts";
import { l3Methods } from "../../src/kernel/methods/l3.ts";
import { L3Method, type L3HistoryResult } from "../../src/protocol/l3.ts";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const trusted = { kind: "person", includeUntrusted: false } as const;

function rig(dir: string) {
  const store = Store.open(join(dir, "homed.db"));
  const graph = new L3Graph(store);
  const tokenizer = new Tokenizer();
  const recall = new L3Recall(
    graph,
    (t) => tokenizer.tokens(t),
    () => store.forgottenBounds(),
  );
  const add = (conv: string, s: string, p: string, o: string, day: number, untrusted = false) => {
    const ts = T0 + day * DAY;
    const e = store.append({
      conv,
      kind: "user-message",
      actor: "user",
      untrusted,
      body: { turn: `t${ts}`, text: `${s} ${p} ${o}` },
      ts,
    });
    store.beginTurn(`t${ts}`, conv, "web", ts);
    return graph.add({
      subject: { label: s },
      predicate: p,
      object: { label: o },
      sources: [e.id],
      validFrom: ts,
      origin: "distill",
      version: "v",
    }).id;
  };
  return { store, graph, recall, add };
}

describe("L3 recall", () => {
  test("the current fact with its history and provenance; two hops; nothing for an unrelated input", () => {
    using dir = tempDir();
    const r = rig(dir.path);
    r.add("c1", "Alice", "lives in", "London", 0);
    r.add("c2", "Alice", "lives in", "Paris", 40);
    r.add("c2", "Paris", "is in", "France", 41);
    r.add("c3", "Bob", "likes", "chess", 2);
    const note = r.recall.note({ conv: "c9", input: "Where does Alice live now?", scope: trusted, budgetTokens: 4000 });
    expect(note?.content.split("\n")).toEqual([
      L3_HEADER,
      "- Alice lives in Paris (since 2026-02-10, conversation c2; earlier: London)",
      "- Paris is in France (since 2026-02-11, conversation c2)",
    ]);
    expect(r.recall.note({ conv: "c9", input: "what is the weather", scope: trusted, budgetTokens: 4000 })).toBeNull();
    // Too small a budget: no note rather than a cut one.
    expect(r.recall.note({ conv: "c9", input: "Alice", scope: trusted, budgetTokens: 100 })).toBeNull();
    r.store.close();
  });

  test("the person speaking is the user node", () => {
    using dir = tempDir();
    const r = rig(dir.path);
    r.add("c1", "user", "works at", "Acme", 0);
    r.add("c1", "user", "works at", "Globex", 9);
    const note = r.recall.note({ conv: "c2", input: "where do I work?", scope: trusted, budgetTokens: 4000 });
    expect(note?.content).toContain("- user works at Globex (since 2026-01-10, conversation c1; earlier: Acme)");
    r.store.close();
  });

  test("an untrusted conversation sees only facts with a source in it; a newer fact elsewhere does not show through", () => {
    using dir = tempDir();
    const r = rig(dir.path);
    r.add("group", "Alice", "lives in", "London", 0, true);
    r.add("owner", "Alice", "lives in", "Berlin", 10);
    r.add("owner", "Alice", "phone is", "555-1234", 11);
    const group = r.recall.note({
      conv: "group",
      input: "Alice?",
      scope: { kind: "conversation", conv: "group" },
      budgetTokens: 4000,
    });
    expect(group?.content.split("\n").slice(1)).toEqual([
      "- Alice lives in London (since 2026-01-01, conversation group)",
    ]);
    // A trusted turn without recall_untrusted does not see the group's fact as a source.
    const owner = r.recall.note({ conv: "x", input: "Alice?", scope: trusted, budgetTokens: 4000 });
    expect(owner?.content).toContain("Alice lives in Berlin (since 2026-01-11, conversation owner)");
    expect(owner?.content).not.toContain("London");
    expect(owner?.content).toContain("555-1234");
    r.store.close();
  });

  test("facts whose only sources are forgotten are hidden with them; a person's deletion hides too", () => {
    using dir = tempDir();
    const r = rig(dir.path);
    r.add("c1", "Alice", "lives in", "London", 0);
    const paris = r.add("c2", "Alice", "lives in", "Paris", 5);
    r.store.forgetConversation("c2");
    const note = r.recall.note({ conv: "c9", input: "Alice", scope: trusted, budgetTokens: 4000 });
    expect(note?.content.split("\n").slice(1)).toEqual(["- Alice lives in London (since 2026-01-01, conversation c1)"]);
    expect(r.graph.get(paris)?.hiddenAt).toBeNull(); // hidden by scope, not marked
    const london = r.graph.list({ includeSuperseded: true }).find((f) => f.object.label === "London");
    r.graph.hide(london?.id ?? 0, "web", "wrong");
    expect(r.recall.note({ conv: "c9", input: "Alice", scope: trusted, budgetTokens: 4000 })).toBeNull();
    r.store.close();
  });

  test("l3/history shows neither a fact hidden with its forgotten sources nor its log", () => {
    using dir = tempDir();
    const r = rig(dir.path);
    const london = r.add("c1", "Alice", "lives in", "London", 0);
    r.add("c2", "Alice", "lives in", "Paris", 5);
    r.store.forgetConversation("c2");
    const methods = l3Methods({ l3: { graph: r.graph, recall: r.recall } } as never, () => {});
    const h = methods[L3Method.History]?.({ id: london }, "web") as L3HistoryResult;
    expect(h.facts.map((f) => f.object.label)).toEqual(["London"]);
    expect(new Set(h.log.map((l) => l.factId))).toEqual(new Set([london]));
    r.store.close();
  });
});
