/**
 * tools.reach_pct, tools.find_hit_pct: whether the tools a request needs are within the model's
 * reach, through the daemon as a person meets it — each request of bench/data/tool-requests (181
 * requests written from the tools' descriptions alone, blind to their examples; 161 need tools,
 * 20 need none) sent with `chat.send` in a fresh conversation of a default install, read from the
 * scripted provider's record.
 *   - tools.reach_pct: the first model call carries the needed tools or names them, by their
 *     exact names, at the end of its system prompt (src/agent/tool-offer.ts);
 *   - tools.find_hit_pct (and _en, _zh): the model asks tools_find with the person's own words,
 *     and the answer (its best 5) holds the needed tools (all of them; any one for `any`);
 *   - tools.carried_plain: the tools a call carries with their schemas in a fresh install (the
 *     core).
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
    let reached = 0;
    let carried = 0;
    const misses: string[] = [];
    try {
      for (const r of requests) {
        if (r.tools.length === 0) continue;
        const from = rig.llm.requests.length;
        rig.llm.script([{ toolCalls: [{ name: "tools_find", arguments: { query: r.text } }] }, { text: "ok" }]);
        await c.peer.request("chat.send", { conv: `offer-${r.id}`, text: r.text });
        type Body = {
          tools?: { function: { name: string; description: string } }[];
          messages?: { role: string; content: string }[];
        };
        const first = rig.llm.requests[from]?.body as Body | undefined;
        const names = new Set((first?.tools ?? []).map((t) => t.function.name));
        carried = names.size;
        const catalog = first?.messages?.find((m) => m.role === "system")?.content ?? "";
        const within = (t: string) => names.has(t) || catalog.includes(`\n${t}: `);
        if (r.tools.every(within)) reached++;
        const answer = (rig.llm.requests[from + 1]?.body as Body | undefined)?.messages?.findLast(
          (m) => m.role === "tool",
        );
        const found = new Set([...(answer?.content ?? "").matchAll(/^- ([a-z0-9_]+): /gm)].map((m) => m[1] as string));
        const hit = r.any ? r.tools.some((t) => found.has(t)) : r.tools.every((t) => found.has(t));
        met[r.lang].hits += hit ? 1 : 0;
        met[r.lang].n += 1;
        if (!hit && process.env.OFFER_MISSES) misses.push(`${r.id} ${r.text.slice(0, 70)} → ${r.tools.join("/")}`);
      }
    } finally {
      c.close();
    }
    if (misses.length) console.error(misses.join("\n"));
    const pct = (hits: number, n: number) => (n ? (100 * hits) / n : 0);
    const n = met.en.n + met.zh.n;
    report("tools.reach_pct", pct(reached, n), "%", 1);
    report("tools.find_hit_pct", pct(met.en.hits + met.zh.hits, n), "%", 1);
    report("tools.find_hit_pct_en", pct(met.en.hits, met.en.n), "%", 1);
    report("tools.find_hit_pct_zh", pct(met.zh.hits, met.zh.n), "%", 1);
    report("tools.carried_plain", carried, "tools", 0);
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchToolsOffer();
