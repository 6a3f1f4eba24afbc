/**
 * tools.offer_hit_pct: how often the first model call of a turn is offered the tools the request
 * needs, through the daemon as a person meets it — each request of bench/data/tool-requests (181
 * requests written from the tools' descriptions alone, blind to their examples; 161 need tools,
 * 20 need none) sent with `chat.send` in a fresh conversation of a default install, and the tools
 * of the model call read from the scripted provider's record. A request is met when its tools are
 * offered (all of them; any one of them for `any`). Also by language, and how many tools a
 * request that needs none is offered (the core alone is 3).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectUnixRpc } from "../src/ipc/unix-rpc.ts";
import { startAgentRig } from "../test/harness/agent-daemon.ts";
import { report } from "./report.ts";

interface ToolRequest {
  id: string;
  lang: "en" | "zh";
  text: string;
  tools: string[];
  any: boolean;
}

const SET = join(import.meta.dir, "data/tool-requests/requests.jsonl");

export async function benchToolsOffer(): Promise<void> {
  const requests = readFileSync(SET, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ToolRequest);
  const data = mkdtempSync(join(tmpdir(), "homed-bench-offer-"));
  try {
    await using rig = await startAgentRig(data, { plugin: false });
    const c = await connectUnixRpc(rig.daemon.socket, { warn: () => {}, debug: () => {} });
    const met: Record<"en" | "zh", { hits: number; n: number }> = { en: { hits: 0, n: 0 }, zh: { hits: 0, n: 0 } };
    const idle: number[] = [];
    const misses: string[] = [];
    try {
      for (const r of requests) {
        const from = rig.llm.requests.length;
        rig.llm.script([{ text: "ok" }]);
        await c.peer.request("chat.send", { conv: `offer-${r.id}`, text: r.text });
        const body = rig.llm.requests[from]?.body as { tools?: { function: { name: string } }[] } | undefined;
        const offered = new Set((body?.tools ?? []).map((t) => t.function.name));
        if (r.tools.length === 0) {
          idle.push(offered.size);
          continue;
        }
        const hit = r.any ? r.tools.some((t) => offered.has(t)) : r.tools.every((t) => offered.has(t));
        met[r.lang].hits += hit ? 1 : 0;
        met[r.lang].n += 1;
        if (!hit && process.env.OFFER_MISSES) misses.push(`${r.id} ${r.text.slice(0, 70)} → ${r.tools.join("/")}`);
      }
    } finally {
      c.close();
    }
    if (misses.length) console.error(misses.join("\n"));
    const pct = (hits: number, n: number) => (n ? (100 * hits) / n : 0);
    report("tools.offer_hit_pct", pct(met.en.hits + met.zh.hits, met.en.n + met.zh.n), "%", 1);
    report("tools.offer_hit_pct_en", pct(met.en.hits, met.en.n), "%", 1);
    report("tools.offer_hit_pct_zh", pct(met.zh.hits, met.zh.n), "%", 1);
    report("tools.offered_no_tool", idle.reduce((a, b) => a + b, 0) / Math.max(1, idle.length), "tools", 1);
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchToolsOffer();
