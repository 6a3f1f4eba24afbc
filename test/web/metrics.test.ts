/**
 * GET /metrics: the daemon's metrics in Prometheus's text format, behind the API's login
 * (docs/metrics.md). A turn through the web API that meets a provider error, calls a tool a
 * person is asked about and is answered, then a scrape: every series docs/metrics.md lists is
 * there with the turn's figures, and `promtool check metrics` (Debian's prometheus package,
 * scripts/ensure-test-tools.sh) finds nothing to say about the body.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, ROOT, run, tempDir } from "../harness/binary.ts";
import { spawnDaemon, startDaemon, webUrlOf } from "../harness/daemon.ts";
import { startFakeLlm } from "../harness/fake-llm.ts";
import { poll } from "../harness/poll.ts";
import { promtoolCheck } from "../harness/promtool.ts";

/** Every family docs/metrics.md lists, with the type its # TYPE line says. */
const FAMILIES: Record<string, "counter" | "gauge" | "histogram"> = {
  homed_turns_total: "counter",
  homed_input_tokens_total: "counter",
  homed_cached_input_tokens_total: "counter",
  homed_output_tokens_total: "counter",
  homed_turn_overhead_seconds: "histogram",
  homed_recall_duration_seconds: "histogram",
  homed_provider_request_duration_seconds: "histogram",
  homed_provider_first_output_seconds: "histogram",
  homed_provider_errors_total: "counter",
  homed_tool_calls_total: "counter",
  homed_approval_wait_seconds: "histogram",
  homed_plugin_restarts_total: "counter",
  homed_events_stored_total: "counter",
  homed_store_events: "gauge",
  homed_store_size_bytes: "gauge",
  homed_process_resident_memory_bytes: "gauge",
  homed_start_time_seconds: "gauge",
  homed_build_info: "gauge",
};

/** Set the fake LLM as the daemon's provider, as `homed provider` does. */
async function useProvider(data: string, baseUrl: string): Promise<void> {
  const set = await run(
    [HOMED, "provider", "-data", data, "-kind", "openai", "-base-url", baseUrl, "-model", "m", "-key-stdin"],
    { stdin: "sk-test-secret-key-1234\n" },
  );
  expect(set.exitCode).toBe(0);
}

/** The value of the one sample `series` (name and labels exactly as written), or undefined. */
function sample(body: string, series: string): number | undefined {
  const line = body.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** A web turn's SSE events as they come, with the bearer token; `done` resolves when the stream ends. */
function bearerTurn(url: string, token: string, conv: string, text: string) {
  const events: Record<string, unknown>[] = [];
  const done = (async () => {
    const res = await fetch(`${url}api/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ conv, text }),
    });
    expect(res.status).toBe(200);
    const dec = new TextDecoder();
    let buf = "";
    for await (const chunk of res.body as ReadableStream<Uint8Array>) {
      buf += dec.decode(chunk, { stream: true });
      for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
        const data = buf
          .slice(0, i)
          .split("\n")
          .filter((l) => l.startsWith("data:"))
          .map((l) => l.slice(5).trim())
          .join("\n");
        buf = buf.slice(i + 2);
        if (data) events.push(JSON.parse(data) as Record<string, unknown>);
      }
    }
  })();
  return { events, done };
}

describe("GET /metrics", () => {
  test("401 without the login; with the API's bearer token every series is there after a turn, and promtool finds nothing", async () => {
    using dir = tempDir();
    // memory_search (a read) is asked about, so the turn has a question a person answers.
    writeFileSync(join(dir.path, "config.toml"), '[approval]\nask = ["memory_search"]\n');
    await using llm = await startFakeLlm();
    await using d = await startDaemon(dir.path, { loopbackLogin: true });
    const url = await webUrlOf(d);
    const token = readFileSync(join(dir.path, "web-token"), "utf8").trim();
    await useProvider(dir.path, llm.url);

    expect((await fetch(`${url}metrics`)).status).toBe(401);
    expect((await fetch(`${url}metrics`, { headers: { authorization: "Bearer not-the-token" } })).status).toBe(401);

    // A server error first (retried: the provider's error, not the turn's), a tool call, then the reply.
    llm.script([
      { status: 500 },
      { toolCalls: [{ name: "memory_search", arguments: { query: "metrics" } }], usage: { input: 300, output: 9 } },
      { text: "nothing found", usage: { input: 340, output: 4, cached: 256 } },
    ]);
    const turn = bearerTurn(url, token, "watched", "what do you remember about metrics?");
    const question = await poll(
      async () => turn.events.find((e) => e.type === "approval"),
      (e) => e !== undefined,
      { timeoutMs: 20_000, intervalMs: 20, what: "the approval question" },
    );
    const stream = turn.events.find((e) => e.type === "stream")?.stream as string;
    const answer = await fetch(`${url}api/approve`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ stream, callId: question?.callId, approved: true }),
    });
    expect(answer.status).toBe(200);
    await turn.done;
    expect(turn.events.at(-1)).toMatchObject({ type: "done", result: { stopReason: "done" } });

    const res = await fetch(`${url}metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const body = await res.text();

    for (const [name, type] of Object.entries(FAMILIES)) {
      expect(body).toContain(`\n# TYPE ${name} ${type}\n`);
      // Present means a sample, not only its HELP and TYPE lines.
      const suffix = type === "histogram" ? "_count" : "";
      expect(body.split("\n").some((l) => l.startsWith(`${name}${suffix}{`) || l.startsWith(`${name}${suffix} `))).toBe(
        true,
      );
    }
    expect(sample(body, 'homed_turns_total{channel="web",outcome="done"}')).toBe(1);
    // Every outcome of a channel's turns is there, at 0 until one happens.
    expect(sample(body, 'homed_turns_total{channel="web",outcome="error"}')).toBe(0);
    expect(sample(body, 'homed_input_tokens_total{channel="web"}')).toBe(640);
    expect(sample(body, 'homed_output_tokens_total{channel="web"}')).toBe(13);
    expect(sample(body, 'homed_cached_input_tokens_total{channel="web"}')).toBe(256);
    expect(sample(body, "homed_turn_overhead_seconds_count")).toBe(1);
    expect(sample(body, 'homed_turn_overhead_seconds_bucket{le="+Inf"}')).toBe(1);
    expect(sample(body, 'homed_recall_duration_seconds_count{part="across"}')).toBe(1);
    expect(sample(body, 'homed_recall_duration_seconds_count{part="conversation"}')).toBe(1);
    // Three requests: the failed one and the two that streamed.
    expect(sample(body, 'homed_provider_request_duration_seconds_count{provider="openai"}')).toBe(3);
    expect(sample(body, 'homed_provider_first_output_seconds_count{provider="openai"}')).toBe(2);
    expect(sample(body, 'homed_provider_errors_total{provider="openai",kind="server"}')).toBe(1);
    expect(sample(body, 'homed_provider_errors_total{provider="openai",kind="rate_limit"}')).toBe(0);
    expect(sample(body, 'homed_tool_calls_total{tool="memory_search",decision="asked"}')).toBe(1);
    expect(sample(body, 'homed_tool_calls_total{tool="memory_search",decision="allowed"}')).toBe(0);
    expect(sample(body, 'homed_approval_wait_seconds_count{answer="approved"}')).toBe(1);
    expect(sample(body, 'homed_approval_wait_seconds_count{answer="declined"}')).toBe(0);
    expect(sample(body, 'homed_plugin_restarts_total{plugin="web"}')).toBe(0);
    // The turn's events (the message, context, model outputs, the tool call and result, the reply) at least.
    expect(sample(body, "homed_events_stored_total")).toBeGreaterThanOrEqual(7);
    expect(sample(body, "homed_store_events")).toBeGreaterThanOrEqual(sample(body, "homed_events_stored_total") ?? 0);
    expect(sample(body, "homed_store_size_bytes")).toBeGreaterThan(0);
    expect(sample(body, 'homed_process_resident_memory_bytes{kind="kernel",name="homed"}')).toBeGreaterThan(1 << 20);
    expect(sample(body, 'homed_process_resident_memory_bytes{kind="plugin",name="web"}')).toBeGreaterThan(1 << 20);
    expect(sample(body, "homed_start_time_seconds")).toBeLessThanOrEqual(Date.now() / 1000);

    // promtool reads the body as Prometheus would and lints its names: nothing to say.
    const { out, err, code } = await promtoolCheck(body);
    expect({ out, err, code }).toEqual({ out: "", err: "", code: 0 });

    // What the docs promise is what the daemon says: every family is in docs/metrics.md's
    // table, and the example dashboard graphs only series the body has.
    const served = new Set([...body.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1] as string));
    expect([...served].sort()).toEqual(Object.keys(FAMILIES).sort());
    const doc = readFileSync(join(ROOT, "docs/metrics.md"), "utf8");
    for (const name of served) expect(doc).toContain(`| \`${name}\` |`);
    const dashboard = readFileSync(join(ROOT, "docs/metrics-dashboard.json"), "utf8");
    const exprs = (JSON.parse(dashboard) as { panels: { targets: { expr: string }[] }[] }).panels.flatMap((p) =>
      p.targets.map((t) => t.expr),
    );
    const graphed = new Set(exprs.flatMap((e) => [...e.matchAll(/\bhomed_[a-z_]+/g)].map((m) => m[0])));
    expect(graphed.size).toBeGreaterThan(10);
    for (const name of graphed)
      expect(served.has(name.replace(/_(bucket|sum|count)$/, "")) || served.has(name)).toBe(true);
  }, 90_000);

  test("[web] metrics_token opens GET /metrics and nothing else", async () => {
    using dir = tempDir();
    const scraper = "scraper-token-0123456789";
    writeFileSync(join(dir.path, "config.toml"), `[web]\nmetrics_token = "${scraper}"\n`);
    await using d = await startDaemon(dir.path, { loopbackLogin: true });
    const url = await webUrlOf(d);
    const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
    const res = await fetch(`${url}metrics`, as(scraper));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("\nhomed_build_info{");
    expect((await fetch(`${url}api/conversations`, as(scraper))).status).toBe(401);
    expect((await fetch(`${url}v1/models`, as(scraper))).status).toBe(401);
    // The login token still reads them.
    const token = readFileSync(join(dir.path, "web-token"), "utf8").trim();
    expect((await fetch(`${url}metrics`, as(token))).status).toBe(200);
  }, 60_000);

  test("a metrics_token shorter than 16 characters stops the start, naming the setting", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "config.toml"), '[web]\nmetrics_token = "short"\n');
    const d = spawnDaemon(dir.path, { loopbackLogin: true });
    expect(await d.proc.exited).toBe(78);
    expect(d.stderr()).toContain("web.metrics_token: must be at least 16 characters");
  }, 30_000);
});
