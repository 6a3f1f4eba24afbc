/**
 * load.turns_s, load.p99_ms: 20 conversations at once, each sending its next turn as soon as the
 * last one finished, through the path that exercises the most of homed — POST
 * /v1/chat/completions with `stream: true` on the web plugin (HTTP → web plugin → plugin RPC →
 * kernel turn → fake model streaming 8 SSE chunks → chat/event notifications → SSE to the
 * client). A turn counts once its stream ended with `[DONE]` and carried the model's text;
 * latency is from sending the request to that last byte.
 *
 * load.rss_idle_mb, load.rss_peak_mb, load.rss_after_mb: the same 20 streams for two minutes on
 * a fresh daemon, with the resident memory of the daemon and its plugins together (as
 * rss.idle_mb counts it) before, every 250 ms during, and 20 s after — what a person who chats
 * in bursts sees homed keep (issue 30: peak ≤ 200 MiB, after ≤ idle + 30). load.turn_after_idle_ms:
 * one more streamed turn after those 20 s, when each process has trimmed what the burst left.
 */
import type { RpcClient } from "../src/ipc/unix-rpc.ts";
import { BenchDaemon, daemonRssMiB, rssMiB } from "./bench-daemon.ts";
import { startFakeModel, type FakeModel } from "./fake-model.ts";
import { percentile, report } from "./report.ts";

export const LOAD_CONVERSATIONS = 20;
/** Text chunks of each fake reply: what a client sees is the model's w0 … w7. */
export const LOAD_CHUNKS = 8;
const EXPECTED = Array.from({ length: LOAD_CHUNKS }, (_, i) => `w${i}`).join(" ");

const TOPICS = [
  "the garden",
  "tomatoes",
  "the weather this week",
  "a trip to the coast",
  "the new job",
  "my sister's dog",
  "dinner on friday",
  "the bike repair",
];

export interface LoadResult {
  turns: number;
  failures: number;
  seconds: number;
  /** Milliseconds per finished turn, request sent to `[DONE]`. */
  latencies: number[];
  /** The first few failures, for the log. */
  errors: string[];
}

/** One streamed completion; resolves with the text the client assembled from the chunks. */
export async function streamTurn(
  url: string,
  auth: Record<string, string>,
  user: string,
  text: string,
): Promise<string> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...auth },
    body: JSON.stringify({ model: "homed", stream: true, user, messages: [{ role: "user", content: text }] }),
  });
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
  let out = "";
  let buf = "";
  let done = false;
  const dec = new TextDecoder();
  for await (const chunk of res.body) {
    buf += dec.decode(chunk, { stream: true });
    for (let nl = buf.indexOf("\n\n"); nl >= 0; nl = buf.indexOf("\n\n")) {
      const frame = buf.slice(0, nl);
      buf = buf.slice(nl + 2);
      const data = frame.replace(/^data: ?/, "");
      if (data === "[DONE]") done = true;
      else {
        const o = JSON.parse(data) as { choices?: { delta?: { content?: string } }[] };
        out += o.choices?.[0]?.delta?.content ?? "";
      }
    }
  }
  if (!done) throw new Error("stream ended without [DONE]");
  return out;
}

/**
 * Keep `conversations` streaming conversations busy for `durationMs` against `daemon` (whose LLM
 * must already point at a fake model). `tag` keeps runs on one daemon in separate conversations.
 */
export async function runLoad(
  daemon: BenchDaemon,
  opts: {
    conversations?: number;
    durationMs: number;
    tag?: string;
    /**
     * How each conversation's turns arrive: "v1" streams them through /v1/chat/completions
     * (stateless: the request carries the conversation, homed adds only recall); "mixed" sends
     * every other conversation's turns with chat.send on the control socket instead, the path
     * that keeps history — pruning, eviction to L2 and cold recall on every turn.
     */
    via?: "v1" | "mixed";
  },
): Promise<LoadResult> {
  const n = opts.conversations ?? LOAD_CONVERSATIONS;
  const url = daemon.webUrl();
  const auth = daemon.bearer();
  const r: LoadResult = { turns: 0, failures: 0, seconds: 0, latencies: [], errors: [] };
  const t0 = performance.now();
  const end = t0 + opts.durationMs;
  // One control connection per chat.send conversation (odd-numbered ones, with via "mixed").
  const control = new Map<number, RpcClient>();
  if (opts.via === "mixed") for (let i = 1; i < n; i += 2) control.set(i, await daemon.connect());
  const turnOf = async (i: number, name: string, input: string): Promise<string> => {
    const c = control.get(i);
    if (!c) return await streamTurn(url, auth, name, input);
    return ((await c.peer.request("chat.send", { conv: name, text: input })) as { text: string }).text;
  };
  const worker = async (i: number) => {
    for (let k = 0; performance.now() < end; k++) {
      const s = performance.now();
      try {
        const text = await turnOf(
          i,
          `${opts.tag ?? "load"}-${i}`,
          `turn ${k}: what should I do about ${TOPICS[(i + k) % TOPICS.length]}?`,
        );
        if (!text.includes(EXPECTED))
          throw new Error(`reply without the model's text: ${JSON.stringify(text.slice(0, 120))}`);
        r.turns++;
        r.latencies.push(performance.now() - s);
      } catch (err) {
        r.failures++;
        if (r.errors.length < 5) r.errors.push(String(err));
        if (!daemon.alive) return;
      }
    }
  };
  await Promise.all(Array.from({ length: n }, (_, i) => worker(i)));
  r.seconds = (performance.now() - t0) / 1000;
  return r;
}

/** The fake model of every load-shaped run (load, soak): replies of LOAD_CHUNKS chunks. */
export function loadModel(): FakeModel {
  return startFakeModel({ chunks: LOAD_CHUNKS });
}

export async function benchLoad(): Promise<void> {
  const model = loadModel();
  const daemon = await BenchDaemon.start({ model });
  try {
    await runLoad(daemon, { durationMs: 3_000, tag: "warm" }); // JIT, caches, sqlite pages
    const r = await runLoad(daemon, { durationMs: 25_000 });
    if (r.failures) console.error(`load: ${r.failures} failed turns, e.g. ${r.errors.join(" | ")}`);
    report("load.turns_s", r.turns / r.seconds, "turns/s");
    report("load.p99_ms", percentile(r.latencies, 99), "ms");
    report("load.p50_ms", percentile(r.latencies, 50), "ms");
    report("load.failed_turns", r.failures, "turns", 0);
  } finally {
    await daemon.stop();
    model.stop();
  }
}

/** Load of the memory figures: two minutes, as issue 30 measured it. */
const MEMORY_LOAD_MS = 120_000;
/** Samples of the peak: often enough to catch one burst between two collections. */
const MEMORY_SAMPLE_MS = 250;
/** How long after the load the daemon has to give memory back. */
const MEMORY_SETTLE_MS = 20_000;

export async function benchLoadMemory(durationMs = MEMORY_LOAD_MS): Promise<void> {
  const model = loadModel();
  const daemon = await BenchDaemon.start({ model });
  try {
    const plugins = (await daemon.status()).plugins;
    const rss = () => daemonRssMiB(daemon.pid, plugins);
    const web = plugins.find((p) => p.name === "web")?.pid ?? 0;
    const line = (what: string) =>
      console.error(
        `load-memory: ${what} total_mb=${rss().toFixed(1)} kernel_mb=${rssMiB(daemon.pid).toFixed(1)} web_mb=${rssMiB(web).toFixed(1)}`,
      );
    await Bun.sleep(1000); // as rss.idle_mb: a second of idling after the plugins are ready
    const idle = rss();
    line("idle");
    let peak = idle;
    let samples = 0;
    const timer = setInterval(() => {
      peak = Math.max(peak, rss());
      if (++samples % 40 === 0) line(`t=${(samples * MEMORY_SAMPLE_MS) / 1000}s`);
    }, MEMORY_SAMPLE_MS);
    const r = await runLoad(daemon, { durationMs, tag: "memory" }).finally(() => clearInterval(timer));
    peak = Math.max(peak, rss());
    line("load end");
    if (r.failures) console.error(`load-memory: ${r.failures} failed turns, e.g. ${r.errors.join(" | ")}`);
    for (let s = 5; s <= MEMORY_SETTLE_MS / 1000; s += 5) {
      await Bun.sleep(5000);
      line(`after ${s}s`);
    }
    report("load.rss_idle_mb", idle, "MiB");
    report("load.rss_peak_mb", peak, "MiB");
    report("load.rss_after_mb", rss(), "MiB");
    report("load.memory_turns", r.turns, "turns", 0);
    // What the trim after the burst (src/shared/idle-trim.ts) costs: the next turn compiles again.
    const s = performance.now();
    await streamTurn(daemon.webUrl(), daemon.bearer(), "memory-after", "and now, what about the garden?");
    report("load.turn_after_idle_ms", performance.now() - s, "ms");
  } finally {
    await daemon.stop();
    model.stop();
  }
}

if (import.meta.main) await benchLoadMemory(Number(process.env.LOAD_S ?? MEMORY_LOAD_MS / 1000) * 1000);
