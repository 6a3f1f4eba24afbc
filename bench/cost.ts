/**
 * cost.request_bytes_plain, cost.tools_offered_plain: what a one-line "Hello, what can you do?"
 * in a fresh conversation of a fresh default install sends the provider — the request's body as
 * compact JSON, in bytes, and the tool specs it carries (src/agent/tool-offer.ts).
 *
 * cost.cached_tokens_reported: what a person is shown of the input the provider read from its
 * prompt cache. A scripted OpenAI-compatible provider reports `cached_tokens` for a turn; the
 * figure is the cached count `homed chat` prints after the reply (the same value the web UI and
 * the API show), beside the count the provider reported (cost.cached_tokens_provider).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startAgentRig } from "../test/harness/agent-daemon.ts";
import { report } from "./report.ts";

const CACHED = 1536;

export async function benchCost(): Promise<void> {
  const data = mkdtempSync(join(tmpdir(), "homed-bench-cost-"));
  try {
    await using rig = await startAgentRig(data, { plugin: false });
    rig.llm.script([{ text: "I can help." }]);
    await rig.chat("Hello, what can you do?", { conv: "plain" });
    const plain = rig.llm.requests[0]?.body ?? {};
    report("cost.request_bytes_plain", Buffer.byteLength(JSON.stringify(plain)), "B", 0);
    report("cost.tools_offered_plain", (plain.tools as unknown[] | undefined)?.length ?? 0, "tools", 0);

    rig.llm.script([{ text: "ok", usage: { input: 2048, output: 16, cached: CACHED } }]);
    const r = await rig.chat("hello");
    const shown = /\d+ in \((\d+) cached\)/.exec(r.stderr)?.[1];
    report("cost.cached_tokens_provider", CACHED, "tokens", 0);
    report("cost.cached_tokens_reported", shown === undefined ? 0 : Number(shown), "tokens", 0);
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchCost();
