/**
 * `make bench-scale` (issue 44): ten years of one person's chats on one machine, about a million
 * events, and what a person feels of them — through the compiled daemon (dist/homed), its
 * control socket, its web API and `homed import`, with the scripted model of bench/fake-model.ts.
 *
 *   scale.events_1m                 events in the log after the import (and messages, tool calls,
 *                                   conversations: scale.messages, scale.tool_calls, scale.conversations)
 *   scale.import_turns_s            messages per second of `homed import` into the running daemon,
 *                                   spawn to exit (a tool line counts one message, two events)
 *   scale.import_rss_peak_mb        the daemon and its plugins during the import
 *   scale.first_recall_after_import_ms  the first question after the import, on the daemon that
 *                                   imported, asked at once: the person-wide index is made in the
 *                                   background after an import, and this turn finishes it
 *   scale.index_save_ms             the daemon saving that index (its "memory index saved" line)
 *   scale.db_mb_1m                  homed.db with its WAL, the daemon stopped
 *   scale.start_ms_1m               spawn to the control socket answering `status` (median of 3)
 *   scale.first_turn_ms_1m          the first /v1 turn after a start, web listening and the model
 *                                   set: a question in a new conversation (median of the 3 starts);
 *                                   scale.first_turn_warm_ms_1m the same once the daemon has said
 *                                   "memory ranking warmed up" (a fourth start)
 *   scale.recall_ms_1m              the note from other conversations, as the daemon timed it in its
 *                                   "turn finished" line (`recall_ms`), median over the planted
 *                                   facts asked in new conversations; scale.recall_turn_ms_1m the
 *                                   whole turn less the model's time; scale.recall_hits the facts
 *                                   whose words reached the model
 *   scale.search_tool_ms_1m         `memory_search` called by the model: tool call to tool result
 *                                   as the turn's stream carries them (median)
 *   scale.search_page_ms_1m         the memory page's search, GET /api/memory/search (median)
 *   scale.search_ms_1m              the larger of the two
 *   scale.conversations_list_ms_1m  GET /api/conversations (median); scale.conversations_search_ms_1m
 *                                   the list's search box (its server side: /api/memory/search with
 *                                   what a person types there)
 *   scale.open_conversation_ms_1m   GET /api/conversations/:id of the longest conversation
 *   scale.export_ms_1m              its export as JSON (and scale.export_md_ms_1m as Markdown)
 *   scale.distill_s                 one "Distill now" (POST /api/facts/distill) over the cold
 *                                   history with a bounded budget; scale.knowledge_facts facts made
 *   scale.knowledge_ms_1m           the Knowledge page, GET /api/facts (and with a query)
 *   scale.rss_idle_mb_1m            the daemon and its plugins after the start and the first turn
 *   scale.rss_mb_1m                 their peak while all of the above ran on the last start
 *
 * The history is generated (bench/scale/history.ts) and cached in bench/out/scale/.
 * SCALE_EVENTS (default 1,000,000) sets its size; SCALE_DATA names a data dir to import into
 * and keep (when it holds a homed.db already, the import is skipped: what was imported is
 * measured again).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BenchDaemon, daemonRssMiB, HOMED, ROOT } from "../bench-daemon.ts";
import { type FakeModel, startFakeModel } from "../fake-model.ts";
import { streamTurn } from "../load.ts";
import { median, report } from "../report.ts";
import { PLANTED_FACTS } from "./facts.ts";
import { type HistoryCounts, historyPath, writeHistory } from "./history.ts";
import { connectUnixRpc } from "../../src/ipc/unix-rpc.ts";
import { quietRpcLog } from "../bench-daemon.ts";

const EVENTS = Number(process.env.SCALE_EVENTS ?? 1_000_000);
const STARTS = 3;
/** Tokens the one "Distill now" run may spend: a bounded slice of the cold history. */
const DISTILL_BUDGET_TOKENS = 300_000;

/** Searches as a person types them on the memory page, in both languages. */
const PAGE_QUERIES = [
  "sourdough starter",
  "knee physio appointment",
  "quarterly report deadline",
  "boiler leak",
  "番茄 幼苗",
  "房贷 利息",
  "签证 行程",
  "猫粮",
];
/** What a person types into the conversation list's search box. */
const LIST_QUERIES = ["bike", "ferry", "饺子", "mortgage"];
/** What the model looks up with memory_search. */
const TOOL_QUERIES = ["sailboat sister", "climbing gym locker", "护照 签证", "tomato seedlings frost"];

/** What every daemon of the run is started with: one bounded "Distill now" (see scale.distill_s). */
const DAEMON_ENV = { HOMED_MEMORY_DISTILL_RUN_BUDGET_TOKENS: String(DISTILL_BUDGET_TOKENS) };

/** Conversations of this run are new ones, whatever an earlier run on the same data dir left. */
const RUN = Date.now().toString(36);

const t0 = performance.now();
const elapsed = () => ((performance.now() - t0) / 1000).toFixed(0);
const say = (s: string) => console.error(`bench-scale: ${s} (${elapsed()} s)`);

/** The distillation's answer: a fact or two from each of the batch's person's messages. */
function distillReply(body: string): string | null {
  if (!body.includes("personal knowledge graph")) return null;
  const facts: { subject: string; predicate: string; object: string; source: number }[] = [];
  for (const m of body.matchAll(/\[e(\d+) \d{4}-\d\d-\d\d user\] ([^\\]{8,60})/g)) {
    const words = (m[2] as string).split(/[\s，。！？,.!?]+/).filter((w) => w.length > 1);
    if (words.length < 2) continue;
    facts.push({ subject: "user", predicate: "talked about", object: words.slice(-2).join(" "), source: Number(m[1]) });
    if (facts.length >= 12) break;
  }
  return JSON.stringify({ facts });
}

/** The scripted model: memory_search when asked to look something up, distillation answers, else "ok". */
function scaleModel(): FakeModel {
  return startFakeModel({
    reply: (body) => distillReply(body) ?? "ok",
    toolCall: (body) => {
      const m = /Look up in memory: ([^"\\]+)/.exec(body);
      // The second call of the turn carries the tool's result: answer it with text.
      if (!m || body.includes('"role":"tool"')) return null;
      return { name: "memory_search", arguments: JSON.stringify({ query: m[1] }) };
    },
  });
}

/** Keeps the highest resident memory of the daemon and its plugins seen while it runs. */
function rssSampler(daemon: BenchDaemon): { stop(): Promise<number> } {
  let peak = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const st = await daemon.status();
        peak = Math.max(peak, daemonRssMiB(daemon.pid, st.plugins));
      } catch {
        // Between a stop and the next start.
      }
      await Bun.sleep(200);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return peak;
    },
  };
}

async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await f();
  return { ms: performance.now() - t, value };
}

async function getJson(url: string, auth: Record<string, string>): Promise<unknown> {
  const res = await fetch(url, { headers: auth });
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  return await res.json();
}

async function history(): Promise<{ file: string; counts: HistoryCounts | null }> {
  const dir = join(ROOT, "bench/out/scale");
  mkdirSync(dir, { recursive: true });
  const file = historyPath(dir, { events: EVENTS });
  if (existsSync(file)) return { file, counts: null };
  const t = performance.now();
  const counts = await writeHistory(`${file}.tmp`, { events: EVENTS });
  await Bun.write(file, Bun.file(`${file}.tmp`));
  rmSync(`${file}.tmp`);
  report("scale.gen_s", (performance.now() - t) / 1000, "s");
  return { file, counts };
}

/** `homed import` into the daemon on `data`: messages added and the seconds it took. */
async function importInto(data: string, file: string): Promise<{ added: number; seconds: number }> {
  const t = performance.now();
  const proc = Bun.spawn([HOMED, "import", "-data", data, "-json", file], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const seconds = (performance.now() - t) / 1000;
  if (code !== 0) throw new Error(`homed import exited ${code}: ${err.slice(-2000)}`);
  const summary = JSON.parse(out) as { added: number; into: string; bad: number };
  if (summary.into !== "daemon") throw new Error(`homed import did not go through the daemon: ${out}`);
  return { added: summary.added, seconds };
}

/** A question in a new conversation over the control socket: the turn's time and what the model was sent. */
async function ask(
  daemon: BenchDaemon,
  model: FakeModel,
  conv: string,
  text: string,
): Promise<{ ms: number; modelMs: number; sent: string }> {
  model.take();
  const { ms } = await timed(() => daemon.request("chat.send", { conv, channel: "cli", text }));
  return { ms, modelMs: model.spent(), sent: model.lastBody };
}

/** The daemon's own time for the newest finished turn of `conv` (its "turn finished" line). */
async function recallMsOf(daemon: BenchDaemon, conv: string): Promise<number> {
  const line = new RegExp(`msg="turn finished".* conv=${conv} .*recall_ms=([0-9.]+)`);
  await daemon.waitFor(line, 10_000);
  const all = [...daemon.stderr().matchAll(new RegExp(line, "g"))];
  return Number(all.at(-1)?.[1]);
}

async function main(): Promise<void> {
  const { file, counts } = await history();
  if (counts) say(`generated ${file}: ${JSON.stringify(counts)}`);
  const keep = process.env.SCALE_DATA;
  const data = keep ?? mkdtempSync(join(tmpdir(), "homed-bench-scale-"));
  const model = scaleModel();
  try {
    // 1. The import, into a daemon on a fresh data dir.
    if (!existsSync(join(data, "homed.db"))) {
      const daemon = await BenchDaemon.start({ data, model, web: false, env: DAEMON_ENV });
      try {
        const rss = rssSampler(daemon);
        say("importing");
        const imp = await importInto(data, file);
        report("scale.import_turns_s", imp.added / imp.seconds, "turns/s", 0);
        report("scale.import_s", imp.seconds, "s");
        report("scale.import_rss_peak_mb", await rss.stop(), "MiB");
        const fact = PLANTED_FACTS[0] as (typeof PLANTED_FACTS)[number];
        const first = await ask(daemon, model, `scale-after-import-${RUN}`, fact.question);
        report("scale.first_recall_after_import_ms", first.ms - first.modelMs, "ms");
        say(
          `first question after the import ${first.sent.includes(fact.expect) ? "recalled" : "did not recall"} the fact`,
        );
        // The index made after the import is saved for the next start (the daemon's own timing).
        await daemon.waitFor(/msg="memory index saved"/, 600_000);
        const saved = /msg="memory index saved".* ms=(\d+)/.exec(daemon.stderr());
        if (saved) report("scale.index_save_ms", Number(saved[1]), "ms", 0);
      } finally {
        await daemon.stop();
      }
    } else say(`measuring the data dir ${data} as it is (no import)`);
    const st = (
      await Bun.$`sqlite3 ${join(data, "homed.db")} "SELECT count(*) FROM events; SELECT count(*) FROM conversations; SELECT count(*) FROM events WHERE kind = 'tool-call'"`.text()
    )
      .trim()
      .split("\n")
      .map(Number);
    report("scale.events_1m", st[0] as number, "events", 0);
    report("scale.conversations", st[1] as number, "conversations", 0);
    report("scale.tool_calls", st[2] as number, "calls", 0);
    const size = (f: string) => (existsSync(join(data, f)) ? statSync(join(data, f)).size : 0);
    report("scale.db_mb_1m", (size("homed.db") + size("homed.db-wal")) / 2 ** 20, "MiB");

    // 2. Starts: to the control socket answering, then the first turn.
    const starts: number[] = [];
    const firsts: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      const s0 = performance.now();
      const proc = await startAndTime(data);
      starts.push(proc.readyMs);
      await proc.daemon.request("llm.set", {
        provider: "openai",
        baseURL: model.url,
        model: "bench",
        apiKey: "k",
      });
      const url = proc.daemon.webUrl();
      const turn = await timed(() =>
        streamTurn(
          url,
          proc.daemon.bearer(),
          `scale-first-${RUN}-${i}`,
          "What should I plant in the raised bed this spring?",
        ),
      );
      firsts.push(turn.ms);
      say(
        `start ${i + 1}: ready ${proc.readyMs.toFixed(0)} ms, first turn ${turn.ms.toFixed(0)} ms (${((performance.now() - s0) / 1000).toFixed(1)} s)`,
      );
      await proc.daemon.stop();
    }
    report("scale.start_ms_1m", median(starts), "ms");
    report("scale.first_turn_ms_1m", median(firsts), "ms");
    // A first turn that comes once the daemon has warmed its ranking up (a person typing their
    // first question), on a start of its own; then every other measure on that daemon.
    const daemon = await BenchDaemon.start({ data, web: true, env: DAEMON_ENV });
    try {
      await daemon.waitFor(/msg="memory index ready"/, 120_000);
      // The daemon warms up only an index of 50,000 events or more (src/kernel/kernel.ts WARM_UP_EVENTS).
      const indexed = Number(/msg="memory index ready".* events=(\d+)/.exec(daemon.stderr())?.[1] ?? 0);
      if (indexed >= 50_000) await daemon.waitFor(/msg="memory ranking warmed up"/, 120_000);
      await daemon.request("llm.set", { provider: "openai", baseURL: model.url, model: "bench", apiKey: "k" });
      const turn = await timed(() =>
        streamTurn(
          daemon.webUrl(),
          daemon.bearer(),
          `scale-warm-${RUN}`,
          "What should I plant in the raised bed this spring?",
        ),
      );
      report("scale.first_turn_warm_ms_1m", turn.ms, "ms");
      await measureUse(daemon, model);
    } finally {
      await daemon.stop();
    }
  } finally {
    model.stop();
    if (!keep) rmSync(data, { recursive: true, force: true });
  }
  report("scale.bench_s", (performance.now() - t0) / 1000, "s", 0);
}

/** A start on `data`: spawn to `status` answering on the control socket, then the web listening. */
async function startAndTime(data: string): Promise<{ daemon: BenchDaemon; readyMs: number }> {
  const t = performance.now();
  const starting = BenchDaemon.start({ data, web: true, env: DAEMON_ENV });
  // Polls the socket as bench/startup.ts does: ready is when a client gets an answer.
  let readyMs = 0;
  const socket = join(data, "homed.sock");
  for (;;) {
    if (performance.now() - t > 120_000) throw new Error("no answer on the control socket after 120 s");
    if (existsSync(socket)) {
      try {
        const c = await connectUnixRpc(socket, quietRpcLog, { timeoutMs: 2000 });
        await c.peer.request("status");
        c.close();
        readyMs = performance.now() - t;
        break;
      } catch {
        // Not accepting yet (or an old socket file): again.
      }
    }
    await Bun.sleep(2);
  }
  return { daemon: await starting, readyMs };
}

/** The resident memory of the daemon and of each plugin now, on stderr (what scale.rss_mb_1m is made of). */
async function sayRss(daemon: BenchDaemon, when: string): Promise<void> {
  const r = await daemon.rss();
  const plugins = Object.entries(r.plugins)
    .map(([name, mb]) => `${name} ${mb.toFixed(0)}`)
    .join(", ");
  say(`RSS ${when}: kernel ${r.kernel.toFixed(0)} MiB, plugins: ${plugins || "none"}`);
}

async function measureUse(daemon: BenchDaemon, model: FakeModel): Promise<void> {
  const st = await daemon.status();
  report("scale.rss_idle_mb_1m", daemonRssMiB(daemon.pid, st.plugins), "MiB");
  await sayRss(daemon, "after the start and the first turn");
  const rss = rssSampler(daemon);
  const url = daemon.webUrl();
  const auth = daemon.bearer();

  // The note from other conversations: each planted fact asked in a conversation of its own.
  const notes: number[] = [];
  const turns: number[] = [];
  let hits = 0;
  for (const [i, f] of PLANTED_FACTS.entries()) {
    const conv = `scale-recall-${RUN}-${i}`;
    const r = await ask(daemon, model, conv, f.question);
    turns.push(r.ms - r.modelMs);
    notes.push(await recallMsOf(daemon, conv));
    if (r.sent.includes(f.expect)) hits++;
  }
  report("scale.recall_ms_1m", median(notes), "ms");
  report("scale.recall_turn_ms_1m", median(turns), "ms");
  report("scale.recall_hits", hits, `of ${PLANTED_FACTS.length}`, 0);
  await sayRss(daemon, "after recall");

  // memory_search as the model calls it: from the tool call to its result in the turn's stream.
  const events: { t: number; type: string }[] = [];
  const client = await daemon.connect({
    onNotification: (method, params) => {
      const type = (params as { event?: { type?: string } }).event?.type;
      if (method === "chat.event" && type) events.push({ t: performance.now(), type });
    },
  });
  const tool: number[] = [];
  for (const [i, q] of TOOL_QUERIES.entries()) {
    events.length = 0;
    await client.peer.request("chat.send", {
      conv: `scale-tool-${RUN}-${i}`,
      channel: "cli",
      text: `Look up in memory: ${q}`,
    });
    const call = events.find((e) => e.type === "tool-call");
    const result = events.find((e) => e.type === "tool-result");
    if (!call || !result) throw new Error(`memory_search was not called for "${q}": ${JSON.stringify(events)}`);
    tool.push(result.t - call.t);
  }
  const page: number[] = [];
  for (const q of PAGE_QUERIES) {
    const r = await timed(() => getJson(`${url}/api/memory/search?q=${encodeURIComponent(q)}`, auth));
    if (!Array.isArray(r.value) || r.value.length === 0) throw new Error(`the memory page found nothing for "${q}"`);
    page.push(r.ms);
  }
  report("scale.search_tool_ms_1m", median(tool), "ms");
  report("scale.search_page_ms_1m", median(page), "ms");
  report("scale.search_ms_1m", Math.max(median(tool), median(page)), "ms");
  await sayRss(daemon, "after searches");

  // The conversation list, its search box, one long conversation opened and exported.
  const list: number[] = [];
  let listed = 0;
  for (let i = 0; i < 5; i++) {
    const r = await timed(() => getJson(`${url}/api/conversations`, auth));
    listed = (r.value as unknown[]).length;
    list.push(r.ms);
  }
  report("scale.conversations_list_ms_1m", median(list), "ms");
  report("scale.conversations_listed", listed, "conversations", 0);
  const boxed: number[] = [];
  for (const q of LIST_QUERIES)
    boxed.push((await timed(() => getJson(`${url}/api/memory/search?q=${encodeURIComponent(q)}`, auth))).ms);
  report("scale.conversations_search_ms_1m", median(boxed), "ms");
  await sayRss(daemon, "after conversation list");
  const longest = (
    await Bun.$`sqlite3 ${join(daemon.data, "homed.db")} "SELECT conv FROM events GROUP BY conv ORDER BY count(*) DESC LIMIT 1"`.text()
  ).trim();
  const conv = encodeURIComponent(longest);
  const open = await timed(() => getJson(`${url}/api/conversations/${conv}`, auth));
  report("scale.open_conversation_ms_1m", open.ms, "ms");
  const exp = await timed(async () => {
    const res = await fetch(`${url}/api/conversations/${conv}/export?format=json`, { headers: auth });
    return (await res.text()).length;
  });
  report("scale.export_ms_1m", exp.ms, "ms");
  report("scale.export_kb", exp.value / 1024, "KiB", 0);
  const md = await timed(async () => {
    const res = await fetch(`${url}/api/conversations/${conv}/export?format=md`, { headers: auth });
    return (await res.text()).length;
  });
  report("scale.export_md_ms_1m", md.ms, "ms");
  await sayRss(daemon, "after export");

  // The Knowledge page, after one bounded "Distill now" over the cold history.
  const distill = await timed(async () => {
    const res = await fetch(`${url}/api/facts/distill`, { method: "POST", headers: auth });
    return res.ok ? await res.json() : { error: `HTTP ${res.status}: ${(await res.text()).slice(0, 300)}` };
  });
  say(`distill: ${JSON.stringify(distill.value).slice(0, 300)}`);
  report("scale.distill_s", distill.ms / 1000, "s");
  const facts: number[] = [];
  let count = 0;
  for (const q of ["", "", "garden", "饺子"]) {
    const r = await timed(() => getJson(`${url}/api/facts${q ? `?q=${encodeURIComponent(q)}` : ""}`, auth));
    count = Math.max(count, (r.value as { counts: { facts: number } }).counts.facts);
    facts.push(r.ms);
  }
  report("scale.knowledge_facts", count, "facts", 0);
  report("scale.knowledge_ms_1m", median(facts), "ms");
  await sayRss(daemon, "after knowledge");
  report("scale.rss_mb_1m", await rss.stop(), "MiB");
}

if (import.meta.main) await main();
