/**
 * channel.a2a.added_ms: median latency the A2A channel adds to a turn over the control socket —
 * the same one-chunk scripted reply sent as a blocking A2A 1.0 SendMessage (HTTP JSON-RPC to the
 * web plugin, a task record written at start and end, the turn through chat/send) and as
 * chat.send on DATA/homed.sock, the model's own time subtracted from both.
 * channel.a2a.turns_s: completed A2A turns per second with 8 peers sending at once, each in its
 * own context (turns of one conversation queue, different ones run side by side).
 */
import { BenchDaemon } from "./bench-daemon.ts";
import { startFakeModel } from "./fake-model.ts";
import { median, report } from "./report.ts";

const WARMUP = 3;
const SAMPLES = 30;
const PARALLEL = 8;
const THROUGHPUT_TURNS = 120;

async function a2aSend(url: string, auth: Record<string, string>, contextId: string, text: string): Promise<void> {
  const res = await fetch(`${url}/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0", ...auth },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", contextId, parts: [{ text }] } },
    }),
  });
  const body = (await res.json()) as { result?: { task?: { status?: { state?: string } } }; error?: unknown };
  if (body.result?.task?.status?.state !== "TASK_STATE_COMPLETED")
    throw new Error(`A2A send did not complete: ${JSON.stringify(body).slice(0, 300)}`);
}

export async function benchChannelA2a(): Promise<void> {
  const model = startFakeModel();
  const daemon = await BenchDaemon.start({ model });
  try {
    const url = daemon.webUrl();
    // An A2A client on this machine sends homed's login token, as any API client must now.
    const auth = daemon.bearer();
    const client = await daemon.connect();
    const timed = async (send: (i: number) => Promise<unknown>) => {
      const samples: number[] = [];
      for (let i = 0; i < WARMUP + SAMPLES; i++) {
        model.take();
        const t0 = performance.now();
        await send(i);
        const total = performance.now() - t0;
        if (i >= WARMUP) samples.push(total - model.spent());
      }
      return median(samples);
    };
    const socket = await timed((i) => client.peer.request("chat.send", { conv: "bench-ctl", text: `turn ${i}` }));
    const a2a = await timed((i) => a2aSend(url, auth, "bench-a2a", `turn ${i}`));
    report("channel.a2a.added_ms", a2a - socket, "ms", 2);

    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: PARALLEL }, async (_, peer) => {
        while (next < THROUGHPUT_TURNS) {
          const i = next++;
          await a2aSend(url, auth, `bench-peer-${peer}`, `turn ${i}`);
        }
      }),
    );
    report("channel.a2a.turns_s", THROUGHPUT_TURNS / ((performance.now() - t0) / 1000), "turns/s", 1);
  } finally {
    await daemon.stop();
    model.stop();
  }
}

if (import.meta.main) await benchChannelA2a();
