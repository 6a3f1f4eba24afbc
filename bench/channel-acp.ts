/**
 * The ACP channel (`homed acp -data DIR`), against a real daemon whose scripted model streams
 * each reply in 8 chunks:
 *   channel.acp.added_ms — median latency a prompt through the bridge adds over the same turn
 *     sent straight to the control socket (`chat.send`), turns alternating between the two so
 *     both see the same daemon state;
 *   channel.acp.turns_s — prompts completed per second by one bridge running 4 sessions at once
 *     (4 conversations, so the daemon runs them side by side).
 * The editor side is raw JSON lines on the bridge's stdio: the bridge is measured, not a client library.
 */
import type { Subprocess } from "bun";
import { BenchDaemon, HOMED } from "./bench-daemon.ts";
import { startFakeModel } from "./fake-model.ts";
import { median, report } from "./report.ts";

const SEQUENTIAL_TURNS = 100;
const WARMUP = 5;
const SESSIONS = 4;
const TURNS_PER_SESSION = 25;

/** A bridge process and a minimal JSON-RPC client over its stdio. */
class Bridge {
  private nextId = 1;
  private readonly waiting = new Map<number, (f: Record<string, unknown>) => void>();
  updates = 0;

  constructor(private readonly proc: Subprocess<"pipe", "pipe", "ignore">) {
    void (async () => {
      const dec = new TextDecoder();
      let buf = "";
      for await (const chunk of proc.stdout) {
        buf += dec.decode(chunk, { stream: true });
        for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
          const f = JSON.parse(buf.slice(0, nl)) as Record<string, unknown>;
          buf = buf.slice(nl + 1);
          if (f.method === "session/update") this.updates++;
          else if (typeof f.id === "number") this.waiting.get(f.id)?.(f);
        }
      }
    })();
  }

  static start(data: string): Bridge {
    return new Bridge(Bun.spawn([HOMED, "acp", "-data", data], { stdin: "pipe", stdout: "pipe", stderr: "ignore" }));
  }

  async call(method: string, params: unknown): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const answer = new Promise<Record<string, unknown>>((resolve) => this.waiting.set(id, resolve));
    this.proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    this.proc.stdin.flush();
    const f = await answer;
    this.waiting.delete(id);
    if (f.error) throw new Error(`${method}: ${JSON.stringify(f.error)}`);
    return f.result as Record<string, unknown>;
  }

  async session(): Promise<string> {
    const r = await this.call("session/new", { cwd: "/tmp", mcpServers: [] });
    return r.sessionId as string;
  }

  async prompt(sessionId: string, text: string): Promise<void> {
    const r = await this.call("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    if (r.stopReason !== "end_turn") throw new Error(`prompt ended ${JSON.stringify(r)}`);
  }

  async stop(): Promise<void> {
    this.proc.stdin.end();
    await this.proc.exited;
  }
}

export async function benchChannelAcp(): Promise<void> {
  const model = startFakeModel({ chunks: 8 });
  const daemon = await BenchDaemon.start({ model, web: false });
  const bridge = Bridge.start(daemon.data);
  try {
    await bridge.call("initialize", { protocolVersion: 1, clientInfo: { name: "bench", version: "1" } });
    const client = await daemon.connect();
    const sessionId = await bridge.session();
    const direct: number[] = [];
    const viaAcp: number[] = [];
    for (let i = 0; i < SEQUENTIAL_TURNS + WARMUP; i++) {
      let t0 = performance.now();
      await client.peer.request("chat.send", { conv: "bench-direct", text: `turn ${i}: what should I plant?` });
      const d = performance.now() - t0;
      t0 = performance.now();
      await bridge.prompt(sessionId, `turn ${i}: what should I plant?`);
      const a = performance.now() - t0;
      if (i >= WARMUP) {
        direct.push(d);
        viaAcp.push(a);
      }
    }
    if (bridge.updates < SEQUENTIAL_TURNS) throw new Error(`only ${bridge.updates} session/update frames came`);
    console.error(
      `channel-acp: median turn ${median(direct).toFixed(2)} ms direct, ${median(viaAcp).toFixed(2)} ms through the bridge`,
    );
    report("channel.acp.added_ms", median(viaAcp) - median(direct), "ms", 2);

    const sessions = await Promise.all(Array.from({ length: SESSIONS }, () => bridge.session()));
    const t0 = performance.now();
    await Promise.all(
      sessions.map(async (s) => {
        for (let i = 0; i < TURNS_PER_SESSION; i++) await bridge.prompt(s, `parallel turn ${i}`);
      }),
    );
    report("channel.acp.turns_s", (SESSIONS * TURNS_PER_SESSION) / ((performance.now() - t0) / 1000), "turns/s");
  } finally {
    await bridge.stop();
    await daemon.stop();
    model.stop();
  }
}

if (import.meta.main) await benchChannelAcp();
