/**
 * The one path by which a tool runs — a foreground turn, a background job and a scheduled job
 * all call `ToolExecutor.execute`, and nothing else sends `tool/run` to a plugin (a test keeps
 * it so). In order: parse and validate the model's arguments, before_toolcall (deny or rewrite),
 * fail closed while a critical plugin is down, the approval policy (asking a person when it
 * says so; no answer in time is a no), run it in its plugin with a timeout, after_toolcall
 * (redact). Every outcome is recorded in the log and returned as text the model can read — a bad
 * call is an error the model can correct, never an exception.
 */
import * as v from "valibot";
import {
  AgentMethod,
  capMark,
  CheckToolResult,
  RunToolResult,
  type ExecutionOrigin,
  outputIsOwn,
  type ToolCallView,
} from "../protocol/agent.ts";
import { RpcErrorCode } from "../protocol/jsonrpc.ts";
import { RpcError } from "../protocol/errors.ts";
import type { StoredImage } from "../protocol/images.ts";
import { eventOf, MAX_TOOL_OUTPUT_CHARS } from "../protocol/event-bodies.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import type { ToolCall } from "../llm/types.ts";
import type { Store } from "../store/store.ts";
import type { ApprovalPolicy } from "./approval.ts";
import { type Given, ungivenOutbound } from "./outbound.ts";
import type { PluginCaller } from "./plugin-caller.ts";
import { runStage, type StageLog, type StageRegistry } from "./stages.ts";
import type { RegisteredTool, ToolRegistry } from "./tools.ts";
import { type BlockSink, releaseToolImages, storeToolImages } from "./tool-images.ts";
import type { AgentMetrics, ApprovalAnswerKind, ToolDecision } from "./agent-metrics.ts";

/** How a denial reads, in the reply and the audit event, when "ask" met nobody to ask. */
export const NO_ONE_TO_ASK = "denied by policy (no one to ask)";

const NOBODY_BY_ORIGIN: Record<ExecutionOrigin, string> = {
  foreground: "this channel cannot ask anyone (e.g. the /v1 API)",
  background: "a background job cannot ask anyone",
  scheduled: "a scheduled job cannot ask anyone",
};

/** A plugin's check of a call (a DNS lookup, a lazy plugin's start) answers within this, or is passed over. */
const CHECK_TIMEOUT_MS = 10_000;

/** What the model (and the log) is told of a tool stopped with its turn. */
const CANCELLED = "cancelled: the turn was stopped while this tool ran";

const ABORTED: unique symbol = Symbol("aborted");

/** `work`'s value, or ABORTED as soon as `signal` fires (work keeps going, unobserved). */
function untilAborted<T>(signal: AbortSignal | undefined, work: Promise<T>): Promise<T | typeof ABORTED> {
  if (!signal) return work;
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise<T | typeof ABORTED>((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

/** A tool call waiting for a person's yes or no (src/protocol/turn-stream.ts). */
export type { ApprovalQuestion } from "../protocol/turn-stream.ts";
import type { ApprovalAnswer, ApprovalQuestion } from "../protocol/turn-stream.ts";

export interface ExecContext {
  conv: string;
  turn: string | null;
  untrusted: boolean;
  origin: ExecutionOrigin;
  /** Ask a person; undefined when nobody can be asked (then "ask" means no). */
  ask?: (q: ApprovalQuestion, signal: AbortSignal) => Promise<ApprovalAnswer>;
  /** The turn's cancellation: a question still open when it fires is answered no. */
  signal?: AbortSignal;
  /** Sub-agent depth of the turn (0 for a turn a person or job started). */
  depth?: number;
  /** The tools this turn may call (a sub-agent's restricted set); absent: every registered tool. */
  allowed?: ReadonlySet<string> | null;
  /** A notice on the turn's channel (what a sub-agent is doing). */
  notice?: (text: string) => void;
  /**
   * Where the untrusted text in the model's view came from, or null (approval.ts): what the
   * call writes (its event) carries the same mark.
   */
  tainted?: string | null;
  /** The Agent Skills this turn may load (a scene's list); absent or null: every usable one. */
  skills?: ReadonlySet<string> | null;
  /**
   * The text the person and the tools gave the model so far (not what it wrote): an address in
   * it may be gone to while the conversation is marked (src/agent/outbound.ts).
   */
  given?: () => Given;
}

/** "cancelled": the turn was stopped while the tool ran; the plugin was told to stop it. */
export type ExecStatus = "ok" | "error" | "denied" | "invalid" | "cancelled";

export interface ToolExecution {
  callId: string;
  name: string;
  status: ExecStatus;
  /** What the model is told. */
  content: string;
  arguments: unknown;
  /** Images the tool returned, stored as blocks (the model gets them when it takes images). */
  images?: StoredImage[];
  /**
   * Its result brought text from outside the person's own words, and where from ("fetch_url
   * https://…"): the conversation is marked while the result is in what the model is sent.
   */
  mark?: string;
  /** A built-in plugin said why this result is the person's own (RunToolResult.own): no mark. */
  own?: string;
  /** The gate's decision, when it reached one (absent: derived from the status; see decideAndRun). */
  decision?: ToolDecision;
  /** Time spent waiting on others, in ms: the tool's run and a person's answer (not the gate's own work). */
  waitedMs?: number;
}

/** A call on its way through the gate: what the steps so far have established of it. */
interface GateCall {
  call: ToolCall;
  ctx: ExecContext;
  tool: RegisteredTool;
  /** Its arguments, parsed (and perhaps rewritten by a before_toolcall handler). */
  args: unknown;
  /** A person was asked about it and said yes, after this many ms. */
  asked?: number;
}

function isExecution(g: GateCall | ToolExecution): g is ToolExecution {
  return "status" in g;
}

/** How a call ended, for the model and the log. */
function ended(call: ToolCall, status: ExecStatus, content: string, args: unknown = null): ToolExecution {
  return { callId: call.id, name: call.name, status, content, arguments: args };
}

export interface ToolExecutorDeps {
  tools: ToolRegistry;
  stages: StageRegistry;
  caller: PluginCaller;
  policy: ApprovalPolicy;
  store: Store;
  log: StageLog;
  toolTimeoutMs: number;
  /** Indexes a logged tool result for memory. */
  remember?: (eventId: number) => void;
  /** Where tool-result images are stored; without it images are dropped with a note. */
  blocks?: BlockSink;
  /** Told each call's decision and each question's wait (the daemon's metrics). */
  metrics?: Pick<AgentMetrics, "toolCall" | "approvalWait">;
}

/** Conversations kept with their "Allow in this conversation" grants, at most (the oldest go first). */
const GRANTED_CONVERSATIONS = 1000;

export class ToolExecutor {
  /**
   * Tools a person allowed for the rest of a conversation (an approval answered "conversation"):
   * asked no more there, untrusted text in view or not; a deny rule still wins. Kept while the
   * daemon runs.
   */
  private readonly granted = new Map<string, Set<string>>();

  constructor(private readonly d: ToolExecutorDeps) {}

  /** Whether `tool` was allowed for the rest of `conv`. */
  grantedIn(conv: string, tool: string): boolean {
    return this.granted.get(conv)?.has(tool) ?? false;
  }

  private grant(conv: string, tool: string): void {
    let tools = this.granted.get(conv);
    if (!tools) {
      if (this.granted.size >= GRANTED_CONVERSATIONS) this.granted.delete(this.granted.keys().next().value as string);
      tools = new Set();
      this.granted.set(conv, tools);
    }
    tools.add(tool);
  }

  /** Replace the approval policy (a configuration reload); calls already decided keep their decision. */
  setPolicy(policy: ApprovalPolicy): void {
    this.d.policy = policy;
  }

  async execute(call: ToolCall, ctx: ExecContext): Promise<ToolExecution> {
    const risk = this.d.tools.get(call.name)?.def.risk ?? null;
    this.d.store.append({
      conv: ctx.conv,
      actor: "agent",
      untrusted: ctx.untrusted,
      mark: ctx.tainted ?? null,
      ...eventOf("tool-call", {
        turn: ctx.turn,
        callId: call.id,
        name: call.name,
        risk,
        arguments: call.arguments,
        origin: ctx.origin,
      }),
    });
    const result = await this.decideAndRun(call, ctx);
    const forModel =
      result.content.length > MAX_TOOL_OUTPUT_CHARS
        ? `${result.content.slice(0, MAX_TOOL_OUTPUT_CHARS)}\n[output cut at ${MAX_TOOL_OUTPUT_CHARS} characters]`
        : result.content;
    const event = eventOf("tool-result", {
      turn: ctx.turn,
      callId: call.id,
      name: call.name,
      status: result.status,
      content: result.content,
      arguments: result.arguments,
      ...(result.images?.length ? { images: result.images } : {}),
    });
    const mark = this.markOf(call.name, result);
    const stored = this.d.store.append({
      conv: ctx.conv,
      actor: this.d.tools.get(call.name)?.plugin ?? "kernel",
      untrusted: ctx.untrusted || mark !== null,
      mark: mark ?? ctx.tainted ?? null,
      ...event,
    });
    if (this.d.tools.get(call.name)?.local?.remember !== false) this.d.remember?.(stored.id);
    return { ...result, content: forModel, ...(mark ? { mark } : {}) };
  }

  /**
   * Where the result's text came from when it is from outside the person's own words, or null:
   * the tool's definition says so of every result it returns (unless the owner trusts the tool),
   * or the result itself carries a mark (a sub-agent's answer, memory quoting marked text).
   */
  private markOf(name: string, result: ToolExecution): string | null {
    if (result.mark) return result.mark;
    if (result.own) return null;
    const tool = this.d.tools.get(name);
    // Untrusted unless the tool says why its output is the person's own or the daemon's.
    if (result.status !== "ok" || !tool || outputIsOwn(tool.def)) return null;
    const traits = { name, risk: tool.def.risk, wantsApproval: tool.def.approval === "ask" };
    return this.d.policy.trustsOutput(traits) ? null : sourceOf(name, result.arguments);
  }

  /**
   * The gate: a call goes through each step in turn, and the first that stops it gives its
   * execution (invalid, denied, the tool's own error); one that passes them all runs.
   *   1. known: the tool exists, this turn may use it, its arguments parse and fit its schema;
   *   2. before_toolcall: plugins audit, deny or rewrite it (a critical one that fails denies);
   *   3. fail-closed: no call while a critical plugin is down;
   *   4. the tool's own check: a call it would refuse is its error before anyone is asked;
   *   5. approval: the policy's allow, ask or deny, asked while untrusted text is in view or
   *      the request could carry data out, denied where nobody can be asked;
   *   6. run, then after_toolcall.
   */
  private async decideAndRun(call: ToolCall, ctx: ExecContext): Promise<ToolExecution> {
    const steps: ((g: GateCall) => GateCall | ToolExecution | Promise<GateCall | ToolExecution>)[] = [
      (g) => this.beforeToolcall(g),
      (g) => this.failClosed(g),
      (g) => this.toolsOwnCheck(g),
      (g) => this.approval(g),
    ];
    let g: GateCall | ToolExecution = this.known(call, ctx);
    for (const step of steps) {
      if (isExecution(g)) break;
      g = await step(g);
    }
    const done = isExecution(g) ? g : await this.run(g);
    // Stopped before a decision: refused (denied) or not runnable as made (invalid, the tool's own error).
    const decision = done.decision ?? (done.status === "denied" ? "denied" : "invalid");
    this.d.metrics?.toolCall(this.d.tools.get(call.name) ? call.name : null, decision);
    return done;
  }

  /** Step 1: the tool exists, this turn may use it, and its arguments parse and fit its schema. */
  private known(call: ToolCall, ctx: ExecContext): GateCall | ToolExecution {
    const tool = this.d.tools.get(call.name);
    if (!tool) {
      const known = this.d.tools.list().map((t) => t.def.name);
      return ended(
        call,
        "invalid",
        `error: there is no tool named ${call.name}. Available tools: ${known.join(", ") || "none"}.`,
      );
    }
    if (ctx.allowed && !ctx.allowed.has(call.name))
      return ended(
        call,
        "invalid",
        `error: ${call.name} is not one of the tools this turn may use: ${[...ctx.allowed].sort().join(", ") || "none"}.`,
      );
    let args: unknown;
    try {
      args = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
    } catch (err) {
      return ended(
        call,
        "invalid",
        `error: the arguments are not valid JSON (${(err as Error).message}). Call ${call.name} again with a JSON object.`,
      );
    }
    const problem = this.d.tools.check(tool, args);
    if (problem)
      return ended(
        call,
        "invalid",
        `error: invalid arguments for ${call.name}: ${problem}. Fix them and call again.`,
        args,
      );
    return { call, ctx, tool, args };
  }

  /** Step 2, before_toolcall: audit, deny or rewrite. A critical plugin that fails to answer denies. */
  private async beforeToolcall(g: GateCall): Promise<GateCall | ToolExecution> {
    const { call, ctx, tool } = g;
    let denied: string | null = null;
    const view: ToolCallView = { id: call.id, name: call.name, arguments: g.args };
    const after = await runStage(
      this.d.stages,
      this.d.caller,
      this.d.log,
      "before_toolcall",
      { conv: ctx.conv, call: view, untrusted: ctx.untrusted, origin: ctx.origin },
      (o, p) => {
        if (!o.result) {
          if (this.d.caller.isCritical(o.handler.plugin)) {
            denied = `the policy plugin ${o.handler.plugin} did not answer (${o.error}); denied to be safe`;
            return { payload: p, stop: true };
          }
          return { payload: p };
        }
        if (o.result.action === "deny") {
          denied = o.result.reason
            ? `denied by ${o.handler.plugin}: ${o.result.reason}`
            : `denied by ${o.handler.plugin}`;
          return { payload: p, stop: true };
        }
        if (o.result.arguments) return { payload: { ...p, call: { ...p.call, arguments: o.result.arguments } } };
        return { payload: p };
      },
    );
    if (denied) return ended(call, "denied", `denied: ${denied}`, g.args);
    if (after.call.arguments === g.args) return g;
    const again = this.d.tools.check(tool, after.call.arguments);
    if (again)
      return ended(
        call,
        "invalid",
        `error: arguments rewritten by a policy are invalid: ${again}`,
        after.call.arguments,
      );
    return { ...g, args: after.call.arguments };
  }

  /** Step 3: no call runs while a critical plugin is down. */
  private failClosed(g: GateCall): GateCall | ToolExecution {
    const down = this.d.caller.failClosed();
    if (down.length === 0) return g;
    return ended(
      g.call,
      "denied",
      `denied: critical plugin ${down.join(", ")} is down, so tool calls are refused until it is back`,
      g.args,
    );
  }

  /**
   * Step 4: the tool's own refusal comes before the approval question: asking a person about a
   * call that cannot run (a page on a private address) only to refuse it after their yes wastes
   * it. It is the tool's error, as if it had run: the model may try something else.
   */
  private async toolsOwnCheck(g: GateCall): Promise<GateCall | ToolExecution> {
    const { call, ctx, tool } = g;
    const refused = tool.def.checks && !tool.local ? await this.check(tool.plugin, call.name, g.args, ctx.conv) : null;
    return refused ? ended(call, "error", `error: ${refused}`, g.args) : g;
  }

  /**
   * Step 5: the policy's allow, ask or deny. While untrusted text is in view an allowed call
   * is asked; so is one whose request carries an address or words nobody gave. Where nobody
   * can be asked, asking is a denial that says so.
   */
  private async approval(g: GateCall): Promise<GateCall | ToolExecution> {
    const { call, ctx, tool, args } = g;
    const traits = {
      name: call.name,
      risk: tool.def.risk,
      wantsApproval: tool.def.approval === "ask",
      sendsOut: tool.def.sendsOut,
    };
    const tainted = ctx.tainted ?? null;
    let decision = this.d.policy.decide(traits, ctx.untrusted, tainted);
    if (decision.kind === "deny") return ended(call, "denied", `denied: ${decision.reason}`, args);
    // While marked, an address or words nobody gave could carry data out in the request itself.
    const composed =
      tainted && decision.kind === "allow" && ctx.given
        ? ungivenOutbound(args, ctx.given, tool.def.risk === "network")
        : null;
    if (composed) decision = { kind: "ask" };
    if (decision.kind !== "ask") return g;
    // Asked only because untrusted text is in view: say so and where it came from, to the person and in a denial.
    const note = composed
      ? `asked although allowed: ${composed}, and untrusted text is in view (from ${tainted}); the request itself could carry data out`
      : tainted && this.d.policy.decide(traits, ctx.untrusted).kind === "allow"
        ? `asked although allowed: untrusted text is in view (from ${tainted})`
        : undefined;
    // Never "the user declined" when nobody was asked: the policy said no.
    if (ctx.untrusted || !ctx.ask) {
      const nobody = ctx.untrusted ? "the input is untrusted" : NOBODY_BY_ORIGIN[ctx.origin];
      return ended(
        call,
        "denied",
        `${NO_ONE_TO_ASK}: ${call.name} (${tool.def.risk}) needs a person's approval${note ? ` (${note})` : ""}, and ${nobody}`,
        args,
      );
    }
    if (this.grantedIn(ctx.conv, call.name)) return g;
    const t0 = performance.now();
    const yes = await this.askPerson(call, args, ctx, ctx.ask, note);
    const waited = performance.now() - t0;
    this.d.metrics?.approvalWait(yes.answer, waited / 1000);
    if (!yes.approved)
      return { ...ended(call, "denied", `denied: ${yes.why}`, args), decision: "asked", waitedMs: waited };
    if (yes.conversation) this.grant(ctx.conv, call.name);
    return { ...g, asked: waited };
  }

  /** Step 6: run the tool (in the kernel or its plugin), then after_toolcall. */
  private async run(g: GateCall): Promise<ToolExecution> {
    const { call, ctx, tool, args } = g;
    const decided: { decision: ToolDecision; waitedMs: number } = {
      decision: g.asked === undefined ? "allowed" : "asked",
      waitedMs: g.asked ?? 0,
    };
    const out = (status: ExecStatus, content: string, a: unknown = null) => ({
      ...ended(call, status, content, a),
      ...decided,
    });
    const t0 = performance.now();
    const view: ToolCallView = { id: call.id, name: call.name, arguments: args };
    if (ctx.signal?.aborted) return out("cancelled", CANCELLED, args);
    let raw: unknown;
    try {
      const running = tool.local
        ? tool.local.run(args, {
            conv: ctx.conv,
            turn: ctx.turn,
            untrusted: ctx.untrusted,
            origin: ctx.origin,
            depth: ctx.depth ?? 0,
            allowed: ctx.allowed ?? null,
            ask: ctx.ask,
            signal: ctx.signal,
            notice: ctx.notice,
            tainted: ctx.tainted ?? null,
            skills: ctx.skills ?? null,
          })
        : this.d.caller.call(
            tool.plugin,
            AgentMethod.RunTool,
            {
              name: call.name,
              callId: call.id,
              arguments: args,
              conv: ctx.conv,
              untrusted: ctx.untrusted,
              ...(ctx.tainted && this.d.caller.isBuiltin?.(tool.plugin) ? { mark: capMark(ctx.tainted) } : {}),
            },
            this.d.toolTimeoutMs,
          );
      const stopped = await untilAborted(ctx.signal, Promise.resolve(running)).finally(() => {
        decided.waitedMs += performance.now() - t0;
      });
      if (stopped === ABORTED) {
        // The turn is not held up by a tool that ignores the request: the plugin is told, and
        // its answer, when it comes, is not waited for.
        if (!tool.local) {
          this.d.caller.notify?.(tool.plugin, AgentMethod.CancelTool, { callId: call.id });
          // Its answer may still carry images: their blocks must go back to the plugin's arena.
          Promise.resolve(running).then(
            (late) => releaseToolImages(this.d.caller, tool.plugin, late),
            () => {},
          );
        }
        return out("cancelled", CANCELLED, args);
      }
      raw = stopped;
    } catch (err) {
      // Told, the plugin stops the tool (and sends no images whose blocks nobody would release).
      if (!tool.local && err instanceof RpcError && err.code === RpcErrorCode.Timeout)
        this.d.caller.notify?.(tool.plugin, AgentMethod.CancelTool, { callId: call.id });
      return out("error", `error: ${call.name} failed: ${(err as Error).message}`, args);
    }
    const parsed = v.safeParse(RunToolResult, raw);
    if (!parsed.success) {
      if (!tool.local) releaseToolImages(this.d.caller, tool.plugin, raw);
      return out("error", `error: ${call.name} returned a malformed result (${describeIssues(parsed.issues)})`, args);
    }
    const stored = tool.local
      ? { images: [], notes: [] }
      : storeToolImages(this.d.caller, this.d.blocks, tool.plugin, parsed.output.images ?? []);
    let content = [parsed.output.content, ...stored.notes].join("\n");
    const redacted = await runStage(
      this.d.stages,
      this.d.caller,
      this.d.log,
      "after_toolcall",
      {
        conv: ctx.conv,
        call: { ...view, arguments: args },
        result: {
          content,
          isError: parsed.output.isError,
          ...(stored.images.length ? { images: stored.images } : {}),
        },
      },
      (o, p) =>
        o.result?.content !== undefined
          ? { payload: { ...p, result: { ...p.result, content: o.result.content } } }
          : { payload: p },
    );
    content = redacted.result.content;
    const reported = parsed.output.mark ? { mark: capMark(`${call.name}: ${parsed.output.mark}`) } : {};
    // Only a built-in plugin may say a result is the person's own: an installed one could say anything.
    const own = parsed.output.own && this.d.caller.isBuiltin?.(tool.plugin) ? { own: parsed.output.own } : {};
    const done = { ...out(parsed.output.isError ? "error" : "ok", content, args), ...reported, ...own };
    return stored.images.length ? { ...done, images: stored.images } : done;
  }

  /**
   * The plugin's `tool/check` of a call: why it would refuse it, or null. A plugin that does not
   * answer in time, or answers badly, has not refused: its run still checks.
   */
  private async check(plugin: string, name: string, args: unknown, conv: string): Promise<string | null> {
    try {
      const raw = await this.d.caller.call(
        plugin,
        AgentMethod.CheckTool,
        { name, arguments: args, conv },
        CHECK_TIMEOUT_MS,
      );
      const r = v.safeParse(CheckToolResult, raw);
      if (r.success) return r.output.refuse;
      this.d.log.warn("tool check answered badly", { plugin, tool: name, issues: describeIssues(r.issues) });
    } catch (err) {
      this.d.log.warn("tool check failed", { plugin, tool: name, err: (err as Error).message });
    }
    return null;
  }

  private async askPerson(
    call: ToolCall,
    args: unknown,
    ctx: ExecContext,
    ask: NonNullable<ExecContext["ask"]>,
    note?: string,
  ): Promise<{ approved: boolean; why: string; answer: ApprovalAnswerKind; conversation?: boolean }> {
    const timeoutMs = this.d.policy.config.timeout_ms;
    const ac = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), timeoutMs)));
    const cancelled = new Promise<"cancelled">((r) => {
      if (ctx.signal?.aborted) r("cancelled");
      ctx.signal?.addEventListener("abort", () => r("cancelled"), { once: true });
    });
    try {
      const answer = await Promise.race([
        ask({ tool: call.name, arguments: args, callId: call.id, ...(note ? { note } : {}) }, ac.signal).catch(
          () => false,
        ),
        timeout,
        cancelled,
      ]);
      if (answer === "timeout")
        return {
          approved: false,
          why: `nobody approved ${call.name} within ${Math.round(timeoutMs / 1000)} s`,
          answer: "timeout",
        };
      if (answer === "cancelled")
        return { approved: false, why: "the turn was cancelled before anyone answered", answer: "cancelled" };
      if (answer === "conversation") return { approved: true, why: "", answer: "approved", conversation: true };
      return answer
        ? { approved: true, why: "", answer: "approved" }
        : { approved: false, why: `the user declined ${call.name}`, answer: "declined" };
    } finally {
      clearTimeout(timer);
      ac.abort();
    }
  }
}

/** Argument fields that say where a tool's text came from, in the order they are looked for. */
const SOURCE_FIELDS = [
  "url",
  "path",
  "file",
  "query",
  "name",
  "agent",
  "uid",
  "from",
  "command",
  "language",
  "id",
] as const;

/** "fetch_url https://example.com/page": the tool and what it read, from its arguments. */
export function sourceOf(name: string, args: unknown): string {
  const a = args && typeof args === "object" ? (args as Record<string, unknown>) : {};
  const field = SOURCE_FIELDS.map((f) => a[f]).find((x) => typeof x === "string" || typeof x === "number");
  return capMark(field === undefined ? name : `${name} ${String(field)}`);
}
