/**
 * turn.overhead_ms: median time the kernel spends on a turn, excluding the model's own time —
 * with N events of history in the conversation and one handler (in a plugin process) on each
 * of the seven stages. Measured against the real daemon over its control socket; the model is
 * a minimal OpenAI-compatible server in this process that times itself from request to last
 * byte, and that time is subtracted.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { connectUnixRpc } from "../src/ipc/unix-rpc.ts";
import { median, report } from "./report.ts";

const ROOT = resolve(import.meta.dir, "..");
const quiet = { warn: () => {}, debug: () => {} };

function fakeModel() {
  let llmMs = 0;
  const sse = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const t0 = performance.now();
      await req.text();
      const body =
        sse({ choices: [{ index: 0, delta: { role: "assistant", content: "ok" } }] }) +
        sse({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }) +
        sse({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 1 } }) +
        "data: [DONE]\n\n";
      const res = new Response(body, { headers: { "content-type": "text/event-stream" } });
      llmMs += performance.now() - t0;
      return res;
    },
  });
  return { url: `http://127.0.0.1:${server.port}/v1`, take: () => ((llmMs = 0), 0), spent: () => llmMs, stop: () => server.stop(true) };
}

async function overhead(history: number, turns: number): Promise<number> {
  const data = mkdtempSync(join(tmpdir(), "homed-bench-turn-"));
  const plugin = join(data, "plugins", "stages");
  mkdirSync(plugin, { recursive: true });
  writeFileSync(join(plugin, "plugin.json"), JSON.stringify({ name: "stages", exec: process.execPath, args: [join(ROOT, "bench/plugins/stages.ts")] }));
  const model = fakeModel();
  const proc = Bun.spawn([join(ROOT, "dist/homed"), "-data", data, "-listen", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "ignore"] });
  try {
    let client;
    for (let i = 0; ; i++) {
      try {
        client = await connectUnixRpc(join(data, "homed.sock"), quiet, { timeoutMs: 60_000 });
        const st = (await client.peer.request("status")) as { stages: unknown[] };
        if (st.stages.length === 7) break;
        client.close();
      } catch {
        if (i > 2000) throw new Error("daemon did not come up");
      }
      await Bun.sleep(5);
    }
    await client.peer.request("llm.set", { provider: "openai", baseURL: model.url, model: "bench", apiKey: "k" });
    // History: user/model/reply triples as a real conversation leaves them.
    for (let i = 0; i < history; i += 3) {
      const turn = `h${i}`;
      await client.peer.request("event.append", { conv: "bench", kind: "user-message", actor: "user", body: { turn, text: `question ${i} about the garden and the weather this week`, channel: "cli" } });
      await client.peer.request("event.append", { conv: "bench", kind: "model-output", actor: "agent", body: { turn, iteration: 1, text: `answer ${i}: water the tomatoes in the morning`, toolCalls: [] } });
      await client.peer.request("event.append", { conv: "bench", kind: "agent-reply", actor: "agent", body: { turn, text: `answer ${i}`, fromModel: true, stopReason: "done" } });
    }
    const samples: number[] = [];
    for (let i = 0; i < turns + 3; i++) {
      model.take();
      const t0 = performance.now();
      await client.peer.request("chat.send", { conv: "bench", text: `turn ${i}: what should I plant?` });
      const total = performance.now() - t0;
      if (i >= 3) samples.push(total - model.spent()); // the first turns warm the JIT
    }
    client.close();
    return median(samples);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    model.stop();
    rmSync(data, { recursive: true, force: true });
  }
}

export async function benchTurn(): Promise<void> {
  report("turn.overhead_ms", await overhead(10_000, 30), "ms", 2);
  report("turn.overhead_ms_1k", await overhead(1_000, 30), "ms", 2);
}
