/**
 * The daemon's metrics (docs/metrics.md lists every series and what it means): the agent and the
 * providers report into it as they work (AgentMetrics, ProviderMetrics), and what is read at
 * scrape time — memory per process, plugin restarts, the log's size — is read when a scrape asks
 * (`kernel/metrics`, answered to built-in plugins; the web plugin serves it at GET /metrics).
 *
 * Label sets whose values are known in advance are made at 0 when their first sibling appears
 * (every outcome of a channel's turns, every decision for a tool, every error kind of a
 * provider), so an alert on a rate has a series to read before the first failure.
 */
import { VERSION } from "../version.ts";
import type { PluginInfo } from "../protocol/plugin.ts";
import type { LlmErrorKind, ProviderKind } from "../llm/types.ts";
import type { ProviderMetrics, ProviderRequestEnd } from "../llm/metered.ts";
import {
  type AgentMetrics,
  APPROVAL_ANSWERS,
  type ApprovalAnswerKind,
  RECALL_PARTS,
  type RecallPart,
  TOOL_DECISIONS,
  type ToolDecision,
  type TurnEnd,
} from "../agent/agent-metrics.ts";
import { TURN_STOP_REASONS } from "../agent/turn.ts";
import { MAX_SERIES, MetricsRegistry } from "../metrics/registry.ts";
import { renderText } from "../metrics/exposition.ts";

/** Every way a provider request fails but the caller's own stop ("aborted"). */
const PROVIDER_ERRORS: Record<Exclude<LlmErrorKind, "aborted">, true> = {
  auth: true,
  model_not_found: true,
  rate_limit: true,
  server: true,
  bad_request: true,
  network: true,
  timeout: true,
  bad_response: true,
};

/** The kernel's own share of a turn: the goal is ≤ 10 ms (bench: turn.overhead_ms), so the buckets are fine there. */
const OVERHEAD_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
/** Memory's time on a context: sub-millisecond on a small log, tens of ms on a large one. */
const RECALL_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
/** A whole streamed reply: a second for a word, minutes for a long answer from a slow local model. */
const PROVIDER_BUCKETS = [0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 320];
/** Time to the first output: what a person waits before anything appears. */
const FIRST_OUTPUT_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64];
/** A person's answer: seconds at the screen, up to [approval] timeout_ms (2 minutes by default) and beyond. */
const APPROVAL_BUCKETS = [1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600, 1800];

/** What a scrape reads from the rest of the kernel. */
export interface MetricsSources {
  /** Resident memory of the daemon and of each running plugin (a confined one with its bwrap), in bytes. */
  rss(): { kernel: number; plugins: Record<string, number> };
  plugins(): readonly PluginInfo[];
  /** Events in the log when it was opened, events appended since, and its files' size. */
  store(): { atOpen: number; appended: number; sizeBytes: number };
  startedAt: Date;
}

export class KernelMetrics implements AgentMetrics, ProviderMetrics {
  private readonly registry = new MetricsRegistry();

  private readonly turns = this.registry.counter(
    "homed_turns_total",
    "Turns finished, by the channel they came in on and how they ended (done, error, denied, cancelled, ...).",
    ["channel", "outcome"],
  );
  private readonly inputTokens = this.registry.counter(
    "homed_input_tokens_total",
    "Tokens the provider read for turns (cached ones included), by channel.",
    ["channel"],
  );
  private readonly cachedTokens = this.registry.counter(
    "homed_cached_input_tokens_total",
    "Of the input tokens, those the provider read from its prompt cache, by channel.",
    ["channel"],
  );
  private readonly outputTokens = this.registry.counter(
    "homed_output_tokens_total",
    "Tokens the provider wrote for turns, by channel.",
    ["channel"],
  );
  private readonly overhead = this.registry.histogram(
    "homed_turn_overhead_seconds",
    "The daemon's own time on a turn: from its start to its reply, less the model's streams, the tools' runs and a person's answers.",
    [],
    OVERHEAD_BUCKETS,
  );
  private readonly recallTime = this.registry.histogram(
    "homed_recall_duration_seconds",
    "Memory's time picking a turn's context: across (other conversations, L3 facts) and conversation (this conversation's history and cold turns).",
    ["part"],
    RECALL_BUCKETS,
  );
  private readonly providerTime = this.registry.histogram(
    "homed_provider_request_duration_seconds",
    "Model provider requests (each retry its own), from the call to the stream's end, by provider kind.",
    ["provider"],
    PROVIDER_BUCKETS,
  );
  private readonly firstOutput = this.registry.histogram(
    "homed_provider_first_output_seconds",
    "Model provider requests, from the call to the first text or tool call, by provider kind.",
    ["provider"],
    FIRST_OUTPUT_BUCKETS,
  );
  private readonly providerErrors = this.registry.counter(
    "homed_provider_errors_total",
    "Model provider requests that failed, by provider kind and error kind (rate_limit, server, timeout, ...).",
    ["provider", "kind"],
  );
  private readonly toolCalls = this.registry.counter(
    "homed_tool_calls_total",
    'Tool calls by tool and the gate\'s decision: allowed, asked, denied, invalid (tool "_unknown": a name no tool has).',
    ["tool", "decision"],
  );
  private readonly approvalTime = this.registry.histogram(
    "homed_approval_wait_seconds",
    "How long a person took to answer a tool call's approval question, by answer (approved, declined, timeout, cancelled).",
    ["answer"],
    APPROVAL_BUCKETS,
  );
  private readonly restarts = this.registry.counter(
    "homed_plugin_restarts_total",
    "Plugin restarts since the daemon started (after a crash, or asked for), by plugin.",
    ["plugin"],
  );
  private readonly eventsStored = this.registry.counter(
    "homed_events_stored_total",
    "Events appended to the log since the daemon started.",
  );
  private readonly events = this.registry.gauge("homed_store_events", "Events in the log (homed.db).");
  private readonly storeSize = this.registry.gauge(
    "homed_store_size_bytes",
    "Size of homed.db and its write-ahead log.",
  );
  private readonly rss = this.registry.gauge(
    "homed_process_resident_memory_bytes",
    'Resident memory per process: the daemon (kind "kernel") and each running plugin (kind "plugin"; a confined one with its sandbox).',
    ["kind", "name"],
  );
  private readonly start = this.registry.gauge("homed_start_time_seconds", "When the daemon started, in Unix seconds.");
  private readonly build = this.registry.gauge("homed_build_info", "The daemon's version, as a label; always 1.", [
    "version",
  ]);

  private readonly channels = new Set<string>();
  private readonly tools = new Set<string>();
  private readonly providers = new Set<ProviderKind>();

  constructor(sources: MetricsSources) {
    for (const part of RECALL_PARTS) this.recallTime.touch([part]);
    for (const answer of APPROVAL_ANSWERS) this.approvalTime.touch([answer]);
    this.start.set([], Math.floor(sources.startedAt.getTime() / 1000));
    this.build.set([VERSION], 1);
    this.registry.onCollect(() => {
      const st = sources.store();
      this.eventsStored.setTotal([], st.appended);
      this.events.set([], st.atOpen + st.appended);
      this.storeSize.set([], st.sizeBytes);
      for (const p of sources.plugins()) this.restarts.setTotal([p.name], p.restarts);
      // Read afresh: a plugin that stopped has no memory to show.
      const rss = sources.rss();
      this.rss.clear();
      this.rss.set(["kernel", "homed"], rss.kernel);
      for (const [name, bytes] of Object.entries(rss.plugins)) this.rss.set(["plugin", name], bytes);
    });
  }

  /** Every series in Prometheus's text format (src/metrics/exposition.ts). */
  text(): string {
    return renderText(this.registry.collect());
  }

  turnFinished(t: TurnEnd): void {
    const channel = t.channel;
    if (!this.channels.has(channel) && this.channels.size < MAX_SERIES) {
      this.channels.add(channel);
      for (const outcome of TURN_STOP_REASONS) this.turns.touch([channel, outcome]);
    }
    this.turns.inc([channel, t.outcome]);
    this.inputTokens.inc([channel], t.usage.inputTokens);
    this.outputTokens.inc([channel], t.usage.outputTokens);
    this.cachedTokens.inc([channel], t.usage.cachedInputTokens ?? 0);
    this.overhead.observe([], t.overheadSeconds);
  }

  recall(part: RecallPart, seconds: number): void {
    this.recallTime.observe([part], seconds);
  }

  toolCall(tool: string | null, decision: ToolDecision): void {
    const name = tool ?? "_unknown";
    if (!this.tools.has(name) && this.tools.size < MAX_SERIES) {
      this.tools.add(name);
      for (const d of TOOL_DECISIONS) this.toolCalls.touch([name, d]);
    }
    this.toolCalls.inc([name, decision]);
  }

  approvalWait(answer: ApprovalAnswerKind, seconds: number): void {
    this.approvalTime.observe([answer], seconds);
  }

  requestEnded(r: ProviderRequestEnd): void {
    if (!this.providers.has(r.provider)) {
      this.providers.add(r.provider);
      for (const kind of Object.keys(PROVIDER_ERRORS)) this.providerErrors.touch([r.provider, kind]);
    }
    // The caller's own stop says nothing of the provider's speed or health.
    if (r.error === "aborted") return;
    this.providerTime.observe([r.provider], r.seconds);
    if (r.firstOutputSeconds !== null) this.firstOutput.observe([r.provider], r.firstOutputSeconds);
    if (r.error) this.providerErrors.inc([r.provider, r.error]);
  }
}
