/**
 * Scenes in recall: on the generated set of bench/scenes-set.ts (recurring
 * situations whose facts change; a regression set, synthetic), every turn is logged, indexed and
 * clustered exactly as the agent does (Memory, Scenes on an injected clock), and every question
 * searches memory within its turn's trust scope — without scenes (`scenes.recall_r10_base`) and
 * with the memories of the turn's active scenes ranked first (`scenes.recall_r10`): is the
 * situation's latest statement of the asked slot among the first 10? In process, no daemon.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Tokenizer } from "../src/embed/tokenizer.ts";
import { Memory } from "../src/memory/memory.ts";
import { MemorySearch } from "../src/memory/memory-search.ts";
import { recallScope } from "../src/memory/recall-scope.ts";
import { Scenes } from "../src/memory/scenes.ts";
import { Store } from "../src/store/store.ts";
import { report } from "./report.ts";
import { SCENES_SEED, scenesSet } from "./scenes-set.ts";

const K = 10;
const pct = (x: number, n: number) => `${((100 * x) / n).toFixed(1)}%`;

export async function benchScenes(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "homed-bench-scenes-"));
  const store = Store.open(join(dir, "homed.db"));
  try {
    const tokenizer = new Tokenizer();
    const memory = new Memory(store, tokenizer);
    const search = new MemorySearch(store, memory);
    let now = 0;
    const scenes = new Scenes(store.scenes, (t) => tokenizer.words(t), {
      halfLifeMs: () => 14 * 86_400_000,
      now: () => now,
      hourOf: (ms) => new Date(ms).getUTCHours(),
    });
    const latest = new Map<string, number>(); // situation/slot → event id of its latest statement
    const hits = { base: 0, scenes: 0, n: 0 };
    const bySituation = new Map<string, { base: number; scenes: number; n: number; top: number; topBase: number }>();
    const top1 = { base: 0, scenes: 0 };
    let turns = 0;
    for (const item of scenesSet(SCENES_SEED)) {
      now = item.at;
      if (item.kind === "query") {
        const gold = latest.get(`${item.situation}/${item.slot}`);
        if (gold === undefined) continue;
        const scope = recallScope(item.conv, item.untrusted, false);
        const baseList = search.find(scope, item.text, K);
        const active = scenes.forTurn(item);
        const sceneList = search.find(scope, item.text, K, { boost: active.memoryOf });
        const base = baseList.some((f) => f.id === gold);
        const withScenes = sceneList.some((f) => f.id === gold);
        const where =
          item.scene?.includes(item.situation) || item.conv.includes(item.situation)
            ? item.situation
            : `${item.situation} asked elsewhere`;
        const s = bySituation.get(where) ?? { base: 0, scenes: 0, n: 0, top: 0, topBase: 0 };
        bySituation.set(where, s);
        for (const x of [hits, s]) {
          x.n++;
          if (base) x.base++;
          if (withScenes) x.scenes++;
        }
        if (baseList[0]?.id === gold) {
          top1.base++;
          s.topBase++;
        }
        if (sceneList[0]?.id === gold) {
          top1.scenes++;
          s.top++;
        }
        continue;
      }
      const turn = `t${turns++}`;
      const first = store.append({
        conv: item.conv,
        actor: "user",
        untrusted: item.untrusted,
        ts: item.at,
        kind: "user-message",
        body: { turn, text: item.text, channel: item.channel },
      }).id;
      memory.add(first);
      const last = store.append({
        conv: item.conv,
        actor: "agent",
        untrusted: item.untrusted,
        ts: item.at,
        kind: "agent-reply",
        body: { turn, text: "Noted.", fromModel: true, stopReason: "done" },
      }).id;
      if (item.fact) latest.set(`${item.fact.situation}/${item.fact.slot}`, first);
      scenes.observe({ ...item, turn, firstEvent: first, lastEvent: last });
    }
    for (const [name, s] of bySituation)
      console.error(
        `scenes: ${name}: ${s.n} questions, r@10 ${pct(s.scenes, s.n)} (base ${pct(s.base, s.n)}), r@1 ${pct(s.top, s.n)} (base ${pct(s.topBase, s.n)})`,
      );
    console.error(`scenes: ${turns} turns, ${scenes.list().length} scenes, ${hits.n} questions`);
    report("scenes.recall_r10", (100 * hits.scenes) / hits.n, "%");
    report("scenes.recall_r10_base", (100 * hits.base) / hits.n, "%");
    // The first hit is what the cross-recall note quotes first (three at most).
    report("scenes.recall_r1", (100 * top1.scenes) / hits.n, "%");
    report("scenes.recall_r1_base", (100 * top1.base) / hits.n, "%");
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchScenes();
