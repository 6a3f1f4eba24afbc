/**
 * The steps of one turn (src/agent/turn.ts runs the loop): each takes the turn's scope, runs its
 * stage, records what it must in the log, and returns what the loop decides on — a verdict is a
 * return value, never state a callback set.
 */
import type { Given } from "./outbound.ts";
import { capMark, type ExecutionOrigin, type StageName, type StagePayloads } from "../protocol/agent.ts";
import { type EventKind, eventOf } from "../protocol/event-bodies.ts";
import type { ChatMessage, LanguageModel, ToolCall, ToolSpec, Usage } from "../llm/types.ts";
import type { ContextEntry, ContextItem } from "../memory/context.ts";
import type { TextMark } from "../memory/turn-log.ts";
import { estimateTokens } from "../memory/tokens.ts";
import { attachmentChunkEvents } from "../memory/attachment-chunks.ts";
import { type FoldStep, foldStage, runStage } from "./stages.ts";
import { CATALOG_SHARE, offeredSpecs, toolCatalog } from "./tool-offer.ts";
import { TOOLS_FIND } from "./tools-find.ts";
import { SKILL, SKILL_FILE_TOOL } from "./skill-tools.ts";
import { inputMessages, inputQuery, withImageData } from "./prompt-images.ts";
import { type Attachment, attachmentLine, userMessageText } from "../protocol/attachments.ts";
import type { TurnConfig, TurnDeps, TurnInput, TurnResult, TurnSink, TurnStopReason } from "./turn.ts";

/** What every step of one turn shares: who it is for, its deps, and its running totals. */
export interface TurnScope {
  d: TurnDeps;
  sink: TurnSink;
  signal: AbortSignal;
  turn: string;
  conv: string;
  channel: string;
  untrusted: boolean;
  origin: ExecutionOrigin;
  cfg: TurnConfig;
  usage: Usage;
  iterations: number;
  /** Tools the client runs itself, by name (the /v1 API's `tools`). */
  clientTools: Map<string, ToolSpec>;
  /** A sub-agent's tools (the only ones offered and callable); null: every registered tool. */
  allowed: ReadonlySet<string> | null;
  /** Sub-agent depth: 0 for a turn a person or a job started. */
  depth: number;
  /** The Agent Skills the turn may be offered and load (a scene's list); null: every usable one. */
  skills: ReadonlySet<string> | null;
  /**
   * Homed's tools a model call carries with their schemas (src/agent/tool-offer.ts); null: every
   * tool the turn may use. What it may call is `allowed`, carried or not.
   */
  offered: Set<string> | null;
  /**
   * Where the untrusted text in the model's view came from (a page, a file, an untrusted
   * channel's words, what the model wrote with such text in view), or null while there is none.
   * Everything the turn appends from then on carries it as its mark, so the mark stays with the
   * conversation for as long as that text is in what the model is sent (src/agent/approval.ts).
   */
  tainted: string | null;
  /** The first event this turn logged (its input), once it logged one. */
  firstEvent?: number;
  /** Messages at the start of the prompt that the conversation's previous request carried too (assembleContext). */
  prefix: number;
  /** Memory made the context's plan again for this turn: the previous request's prefix is gone anyway. */
  replanned: boolean;
  /** Estimated tokens of that prefix (system prompt and history): a provider caches none below ~1,024. */
  prefixTokens: number;
  /** The reply's max tokens on this turn's calls: what the prompt leaves of the window, capped (assembleContext). */
  replyTokens: number;
  /** When the turn began (performance.now()): its overhead counts from here (src/agent/agent-metrics.ts). */
  startedAt: number;
  /** Ms the turn spent waiting on others so far: the model's streams, the tools' runs, a person's answers. */
  waitedMs: number;
}

/** One message the model is sent, with what memory knows of it (null: system, input, this turn's own). */
export interface PromptEntry {
  message: ChatMessage;
  item: ContextItem | null;
}

/** Open the turn in the log and on the channel: the person's input first, then long attachments' chunks. */
export function beginTurn(d: TurnDeps, input: TurnInput, sink: TurnSink, signal: AbortSignal): TurnScope {
  const s: TurnScope = {
    d,
    sink,
    signal,
    turn: crypto.randomUUID(),
    conv: input.conv,
    channel: input.channel,
    untrusted: input.untrusted ?? false,
    origin: input.origin ?? "foreground",
    cfg: input.subAgent ? { ...d.config(), maxIterations: input.subAgent.maxIterations } : d.config(),
    usage: { inputTokens: 0, outputTokens: 0 },
    iterations: 0,
    clientTools: new Map((input.clientTools ?? []).map((t) => [t.name, t])),
    allowed: input.subAgent?.tools ?? null,
    depth: input.subAgent?.depth ?? 0,
    skills: null,
    offered: null,
    prefix: 0,
    replanned: false,
    prefixTokens: 0,
    replyTokens: 0,
    startedAt: d.startedAt ?? performance.now(),
    waitedMs: 0,
    // Untrusted input counts from its first word; a sub-agent starts with its parent's mark; an
    // API client's own tools brought their results from outside (pages, files), as ours do.
    // An attachment's text (a document's, an image's by OCR, a recording's transcript) is its
    // author's, not the person's: the message that carries it is marked, as a page is.
    tainted: input.untrusted
      ? `untrusted input on ${input.channel}`
      : (input.mark ?? clientToolMark(input) ?? attachmentMark(input)),
  };
  d.store.beginTurn(s.turn, s.conv, s.channel, Date.now(), input.scene);
  const shown = (input.attachments ?? []).map(({ text: _t, anchors: _a, ...a }) => a);
  sink.event({ type: "turn-start", turn: s.turn, conv: s.conv, text: input.text, attachments: shown });
  const words = userMessageText(input.text, input.attachments);
  const attachments = input.attachments?.length ? { attachments: input.attachments } : {};
  const said = { turn: s.turn, text: input.text, channel: s.channel, ...attachments };
  if (words) append(s, eventOf("user-message", said), "user");
  for (const c of attachmentChunkEvents(s.turn, input.attachments)) append(s, c.event, "user");
  for (const r of input.toolResults ?? [])
    append(
      s,
      eventOf("tool-result", { turn: s.turn, callId: r.callId, name: r.name, status: "ok", content: r.content }),
      "user",
    );
  return s;
}

/**
 * Where the client's tool results came from, when the turn carries any (the /v1 API: results
 * of the client's own tools, new or in the history it sends), or null.
 */
/** Where the text read out of the message's attachments came from, or null when none has text. */
function attachmentMark(input: Pick<TurnInput, "attachments">): string | null {
  const named = (input.attachments ?? []).filter((a) => a.text).map((a) => a.name ?? a.mime);
  return named.length ? capMark(`the text of the attachment ${named.join(", ")}`) : null;
}

function clientToolMark(input: Pick<TurnInput, "toolResults" | "history">): string | null {
  const names = new Set<string>();
  for (const r of input.toolResults ?? []) names.add(r.name);
  for (const m of input.history ?? []) if (m.role === "tool") names.add(m.name);
  return names.size ? capMark(`the API client's tools ${[...names].join(", ")}`) : null;
}

/**
 * Append one of the turn's events, and index it for memory: what it indexes of each kind, and
 * which it leaves out (a failure's reply, a discarded output), is memory's (src/memory/event-text.ts).
 */
function append(s: TurnScope, event: { kind: EventKind; body: unknown }, actor = "agent"): void {
  const r = s.d.store.append({ conv: s.conv, actor, untrusted: s.untrusted, mark: s.tainted, ...event });
  s.firstEvent ??= r.id;
  s.d.remember?.(r.id);
}

/** Run one of the turn's stages, folding its handlers' answers into a value (see foldStage). */
function fold<S extends StageName, A>(
  s: TurnScope,
  stage: S,
  payload: StagePayloads[S],
  init: A,
  step: FoldStep<S, A>,
) {
  return foldStage(s.d.stages, s.d.caller, s.d.log, stage, payload, init, step);
}

/** The input stopped at on_input, with the reply the person gets instead. */
export type Gated = { stop: "blocked" | "short_circuit"; reply: string };

/** on_input: a handler may block the input, answer it instead of the model, or rewrite it. */
export async function gateInput(
  s: TurnScope,
  text: string,
  attached: readonly Attachment[] = [],
): Promise<{ stop: null; text: string } | Gated> {
  const files = attached.length ? { attachments: attached.map(attachmentLine) } : {};
  const r = await fold(
    s,
    "on_input",
    { conv: s.conv, channel: s.channel, text, untrusted: s.untrusted, ...files },
    null as Gated | null,
    (o, p, acc) => {
      const res = o.result;
      if (res?.action === "block")
        return {
          payload: p,
          acc: { stop: "blocked" as const, reply: res.reason ? `Not processed: ${res.reason}` : "Not processed." },
          stop: true,
        };
      if (res?.action === "reply")
        return { payload: p, acc: { stop: "short_circuit" as const, reply: res.text ?? "" }, stop: true };
      if (res?.text !== undefined) return { payload: { ...p, text: res.text }, acc };
      return { payload: p, acc };
    },
  );
  return r.acc ?? { stop: null, text: r.payload.text };
}

/** Tokens the history budget leaves free beyond the estimates (message framing, estimate error). */
const PROMPT_MARGIN_TOKENS = 256;

/**
 * The prompt, laid out so that it extends the previous request of the conversation (providers
 * read a repeated prefix from their cache, billed at a fraction):
 *   1. homed's system prompt, the same on every turn, ending with the tools the turn may call by
 *      name that its calls do not carry (src/agent/tool-offer.ts);
 *   2. the conversation so far as memory planned it (src/memory/context.ts: between plans it only
 *      grows at its end) — or a stateless client's own history (`input.history`, the /v1 API),
 *      its leading system messages first;
 *   3. what changes from turn to turn: the scene's persona and what pre_action injects, memory's
 *      quotes from other conversations, its quotes of this conversation's cold turns;
 *   4. the input: a message, or tool results (which must follow the call they answer, so the
 *      per-turn part goes after them).
 * `s.prefix` is set to the length of 1–2: the part the previous request carried too.
 */
export async function assembleContext(
  s: TurnScope,
  text: string,
  input: Pick<TurnInput, "history" | "toolResults" | "subAgent" | "attachments"> = {},
): Promise<PromptEntry[]> {
  const { contextWindow, outputReserve } = s.cfg;
  const systemPrompt = withCatalog(s.cfg.systemPrompt, uncarried(s));
  const persona = s.cfg.persona ?? [];
  const given = input.history ?? null;
  const tail = inputMessages(text, input);
  const givenCost = (given ?? []).reduce((n, m) => n + estimateTokens(m.content) + 4, 0);
  const fixed =
    outputReserve +
    estimateTokens(systemPrompt) +
    persona.reduce((n, p) => n + estimateTokens(p), 0) +
    tail.reduce((n, m) => n + estimateTokens(m.content), 0) +
    givenCost +
    PROMPT_MARGIN_TOKENS;
  const budgetTokens = Math.max(0, contextWindow - fixed);
  // What memory searches for: the new message, or (tool results) the last thing the person said.
  const query = inputQuery(text, input.attachments, given);
  // Other conversations' matches are quoted first, within a share of the budget; the rest is this conversation's.
  const known = given ? new Set(given.map((m) => m.content).filter(Boolean)) : undefined;
  const t0 = performance.now();
  // A sub-agent's context is its task: no quotes from the person's other conversations.
  const across = input.subAgent
    ? null
    : (s.d.recallAcross?.({
        conv: s.conv,
        turn: s.turn,
        input: query,
        untrusted: s.untrusted,
        budgetTokens,
        known,
        // A client that brings its own history may leave out earlier turns: memory brings them.
        includeOwn: given !== null,
        askedFrom: s.firstEvent,
      }) ?? null);
  const t1 = performance.now();
  if (!input.subAgent && s.d.recallAcross) s.d.metrics?.recall("across", (t1 - t0) / 1000);
  const context = given
    ? null
    : await s.d.context.assemble({
        conv: s.conv,
        input: query,
        budgetTokens: budgetTokens - (across?.tokens ?? 0),
        excludeTurn: s.turn,
        boost: s.d.sceneBoost,
      });
  if (!given) s.d.metrics?.recall("conversation", (performance.now() - t1) / 1000);
  const history = context?.history.length ?? given?.length ?? 0;
  const payload = { conv: s.conv, channel: s.channel, input: query, messages: history + 1 };
  const injected = await fold(s, "pre_action", payload, [] as string[], (o, p, acc) => ({
    payload: p,
    acc: [...acc, ...(o.result?.inject ?? []).map((text) => `[from plugin ${o.handler.plugin}]\n${text}`)],
  }));
  markFromContext(s, [...(context?.history ?? []), context?.recalledNote], across);
  // The reply may take what the prompt leaves of the window, up to the configured maximum.
  const unused = budgetTokens - (across?.tokens ?? 0) - (context?.tokens ?? 0);
  s.replyTokens = Math.min(s.cfg.maxOutputTokens, outputReserve + Math.max(0, unused));
  const entry = (message: ChatMessage): PromptEntry => ({ message, item: null });
  const lead = given ? given.findIndex((m) => m.role !== "system") : 0;
  const leading = given ? given.slice(0, lead === -1 ? given.length : lead) : [];
  const past = given ? given.slice(leading.length).map(entry) : [];
  const stable = [
    ...(systemPrompt ? [entry({ role: "system", content: systemPrompt })] : []),
    ...leading.map(entry),
    ...(context?.history ?? past),
  ];
  const said = [...persona, ...injected.acc].filter(Boolean).join("\n\n");
  const perTurn = [
    ...(said ? [entry({ role: "system", content: said })] : []),
    ...(across ? [across.entry] : []),
    ...(context?.recalledNote ? [context.recalledNote] : []),
  ];
  s.prefix = stable.length;
  s.replanned = context !== null && context.evicted + context.recalled > 0;
  const note = context?.recalledNote ? estimateTokens(context.recalledNote.message.content) + 4 : 0;
  s.prefixTokens = estimateTokens(systemPrompt) + (context ? context.tokens - note : givenCost);
  const inputs = tail.map(entry);
  const prompt = tail[0]?.role === "tool" ? [...stable, ...inputs, ...perTurn] : [...stable, ...perTurn, ...inputs];
  const figures = {
    messages: history,
    recalled: context?.recalledNote != null,
    across: across !== null,
    tokens: prompt.reduce((n, e) => n + estimateTokens(e.message.content) + 4, 0),
    window: contextWindow,
  };
  s.sink.event({ type: "context", ...figures });
  // Kept with the turn, so a transcript read later says what the live stream said.
  append(s, eventOf("context", { turn: s.turn, ...figures }));
  return prompt;
}

/**
 * The turn starts marked when the context it was given holds untrusted text: a turn of this
 * conversation (unless the person cleared the mark after it), or a quote from memory of another
 * conversation, the graph's facts included. The channel is told once, with where the text came from.
 */
function markFromContext(
  s: TurnScope,
  own: readonly (ContextEntry | null | undefined)[],
  across: { entry: ContextEntry } | null,
): void {
  if (s.tainted) return;
  let found: TextMark | null = null;
  let cleared: number | null = null;
  for (const e of own) {
    const m = e?.item.mark;
    if (!m || (found && found.event >= m.event)) continue;
    cleared ??= s.d.store.markCleared(s.conv);
    if (m.event > cleared) found = m;
  }
  found ??= across?.entry.item.mark ?? null;
  if (!found) return;
  s.tainted = found.source;
  s.sink.event({
    type: "notice",
    text: `untrusted text is in view (from ${found.source}): tools that write, run code, touch secrets or send data out are asked about first`,
  });
}

export interface ModelOutput {
  text: string;
  calls: ToolCall[];
  end: "finished" | "aborted" | "failed";
  failure: string;
  /** The LlmError's kind when the call failed. */
  failureKind?: string;
}

/**
 * The provider's cache key for a conversation (OpenAI's prompt_cache_key routes requests that
 * share a prefix to the same cache): a hash, so the conversation's name stays home.
 */
function cacheKeyOf(conv: string): string {
  return `homed-${new Bun.CryptoHasher("sha256").update(conv).digest("hex").slice(0, 24)}`;
}

/** The tools the turn may use (its list, less the client's own names): what its calls carry, or name. */
function usable(s: TurnScope) {
  const allowed = s.allowed;
  return s.d.tools.specs().filter((t) => !s.clientTools.has(t.name) && (!allowed || allowed.has(t.name)));
}

/**
 * The tools the turn may use that its calls do not carry, as toolCatalog lines: named in the
 * system prompt, so the model calls them by name (tools_find gives their arguments). "" when the
 * calls carry every tool.
 */
function uncarried(s: TurnScope): string {
  const carried = s.offered;
  if (!carried) return "";
  const skills = s.d.describeSkills?.(skillsOf(s)) ?? null;
  return toolCatalog(
    usable(s).filter(
      (t) => !carried.has(t.name) && !((t.name === SKILL || t.name === SKILL_FILE_TOOL) && skills === null),
    ),
    s.cfg.contextWindow * CATALOG_SHARE,
  );
}

/**
 * The system prompt with the tools named after it. Apart from the owner's words, so a prompt the
 * owner left empty still names them.
 */
function withCatalog(prompt: string, catalog: string): string {
  if (!catalog) return prompt;
  const named = `Besides the tools you were given, you can call these by their names; ${TOOLS_FIND} gives a tool's arguments:\n${catalog}`;
  return prompt ? `${prompt}\n\n${named}` : named;
}

/** The skills `skill`'s description lists: every usable one (null), or the scene's list when it narrows them. */
function skillsOf(s: TurnScope): string[] | null {
  return s.skills ? [...s.skills] : null;
}

/** One model call, streamed to the channel as it comes, and recorded whatever its end. */
export async function callModel(
  s: TurnScope,
  model: LanguageModel,
  prompt: readonly PromptEntry[],
): Promise<ModelOutput> {
  const out: ModelOutput = { text: "", calls: [], end: "finished", failure: "" };
  // A client's tool of the same name as one of homed's is the one offered: the client asked for it.
  const messages = prompt.map((e) => e.message);
  const mayUse = usable(s);
  // `skill` carries the names and descriptions of the skills the turn may load; with none to list,
  // skill and skill_file are left out. It changes only when a skill comes or goes.
  const described = s.d.describeSkills?.(skillsOf(s));
  const own = offeredSpecs(mayUse, s.offered).flatMap((t) => {
    if (t.name === SKILL && described) return [{ ...t, description: described }];
    if ((t.name === SKILL || t.name === SKILL_FILE_TOOL) && described === null) return [];
    return [t];
  });
  const tools = [...own, ...s.clientTools.values()];
  s.d.onContext?.(
    s.conv,
    s.turn,
    messages,
    tools.map((t) => t.name),
    prompt.map((e) => e.item),
  );
  // The newest few images go with their bytes; what the memory page keeps has none.
  const sent = withImageData(messages, s.d.readBlock);
  const request = {
    messages: sent,
    tools,
    maxOutputTokens: s.replyTokens || s.cfg.maxOutputTokens,
    prefix: s.prefix,
    cacheKey: cacheKeyOf(s.conv),
  };
  const t0 = performance.now();
  for await (const ev of model.stream(request, s.signal)) {
    if (ev.type === "text-delta") {
      out.text += ev.text;
      s.sink.event({ type: "text-delta", text: ev.text });
    } else if (ev.type === "tool-call") out.calls.push(ev.call);
    else if (ev.type === "usage") {
      s.usage.inputTokens += ev.usage.inputTokens;
      s.usage.outputTokens += ev.usage.outputTokens;
      if (ev.usage.cachedInputTokens)
        s.usage.cachedInputTokens = (s.usage.cachedInputTokens ?? 0) + ev.usage.cachedInputTokens;
    } else if (ev.type === "finish") {
      if (ev.stopReason === "aborted") out.end = "aborted";
      else if (ev.stopReason === "error") {
        out.end = "failed";
        out.failure = ev.error?.message ?? "the model call failed";
        out.failureKind = ev.error?.kind;
      }
    }
  }
  s.waitedMs += performance.now() - t0;
  append(
    s,
    eventOf("model-output", {
      turn: s.turn,
      iteration: s.iterations,
      text: out.text,
      toolCalls: out.calls,
      failed: out.end !== "finished",
    }),
    "agent",
  );
  return out;
}

/** post_action: a handler may filter the text, drop tool calls, or redirect the model. */
export async function shapeOutput(
  s: TurnScope,
  out: ModelOutput,
): Promise<{ redirect: string } | { redirect: null; text: string; toolCalls: ToolCall[] }> {
  const payload = { conv: s.conv, iteration: s.iterations, text: out.text, toolCalls: out.calls };
  const r = await fold(s, "post_action", payload, null as string | null, (o, p, acc) => {
    const res = o.result;
    if (!res) return { payload: p, acc };
    if (res.action === "redirect" && res.redirect) return { payload: p, acc: res.redirect, stop: true };
    const next = { ...p };
    if (res.text !== undefined) next.text = res.text;
    const drop = res.dropToolCalls;
    if (drop?.length) next.toolCalls = p.toolCalls.filter((c) => !drop.includes(c.id));
    return { payload: next, acc };
  });
  if (r.acc !== null) return { redirect: r.acc };
  if (r.payload.text !== out.text) s.sink.event({ type: "text-replace", text: r.payload.text });
  return { redirect: null, text: r.payload.text, toolCalls: r.payload.toolCalls };
}

/** A redirect discards the output (recorded as such) and tells the model what the plugin said instead. */
export function redirect(s: TurnScope, prompt: PromptEntry[], out: ModelOutput, instead: string): void {
  append(
    s,
    eventOf("model-output", {
      turn: s.turn,
      iteration: s.iterations,
      text: out.text,
      toolCalls: out.calls,
      discarded: true,
      redirect: instead,
    }),
  );
  s.sink.event({ type: "text-replace", text: "" });
  s.sink.event({ type: "notice", text: "a plugin redirected the model" });
  prompt.push(
    { message: { role: "assistant", content: out.text }, item: null },
    { message: { role: "user", content: instead }, item: null },
  );
}

/** What the person and the tools gave the model in `prompt` (not what it wrote itself), and the person's words alone. */
function givenText(prompt: readonly PromptEntry[]): Given {
  const of = (roles: readonly string[]) =>
    prompt
      .map((e) => e.message)
      .filter((m) => roles.includes(m.role))
      .map((m) => m.content)
      .join("\n");
  return { read: of(["user", "tool", "system"]), said: of(["user"]) };
}

/**
 * Run the round's tool calls one after another, each through the one gate, their results
 * joining the prompt. Returns the reasons when every call was denied, else null.
 */
export async function runTools(
  s: TurnScope,
  prompt: PromptEntry[],
  text: string,
  calls: ToolCall[],
): Promise<string[] | null> {
  prompt.push({ message: { role: "assistant", content: text, toolCalls: calls }, item: null });
  const denials: string[] = [];
  let ran = 0;
  for (const call of calls) {
    if (s.signal.aborted) break;
    s.sink.event({ type: "tool-call", callId: call.id, name: call.name, arguments: call.arguments });
    const r = await s.d.executor.execute(call, {
      conv: s.conv,
      turn: s.turn,
      untrusted: s.untrusted,
      origin: s.origin,
      ask: s.sink.ask,
      signal: s.signal,
      depth: s.depth,
      allowed: s.allowed,
      notice: (text) => s.sink.event({ type: "notice", text }),
      tainted: s.tainted,
      given: () => givenText(prompt),
      skills: s.skills,
    });
    s.waitedMs += r.waitedMs ?? 0;
    if (r.mark) s.tainted ??= r.mark;
    const images = r.images?.length ? { images: r.images } : {};
    s.sink.event({
      type: "tool-result",
      callId: call.id,
      name: call.name,
      status: r.status,
      content: r.content,
      ...images,
    });
    prompt.push({
      message: {
        role: "tool",
        toolCallId: call.id,
        name: call.name,
        content: r.content,
        isError: r.status !== "ok",
        ...(r.images?.length ? { images: r.images.map(({ sha256, mime }) => ({ sha256, mime })) } : {}),
      },
      item: null,
    });
    if (r.status === "denied") denials.push(r.content);
    else ran++;
  }
  return ran === 0 ? denials : null;
}

/** before_output, the reply to the log, the turn's totals; after_output is started, not awaited. */
export async function finish(
  s: TurnScope,
  text: string,
  stopReason: TurnStopReason,
  fromModel: boolean,
  error?: { message: string; kind?: string },
  toolCalls?: ToolCall[],
): Promise<TurnResult> {
  const { conv, channel } = s;
  const shaped = await runStage(s.d.stages, s.d.caller, s.d.log, "before_output", { conv, channel, text }, (o, p) =>
    o.result?.text !== undefined ? { payload: { ...p, text: o.result.text } } : { payload: p },
  );
  if (shaped.text !== text) s.sink.event({ type: "text-replace", text: shaped.text });
  append(
    s,
    eventOf("agent-reply", {
      turn: s.turn,
      text: shaped.text,
      fromModel,
      stopReason,
      ...(error ? { error: error.message } : {}),
    }),
    "agent",
  );
  const { inputTokens, outputTokens, cachedInputTokens } = s.usage;
  s.d.store.finishTurn(s.turn, { iterations: s.iterations, inputTokens, outputTokens, cachedInputTokens, stopReason });
  s.d.metrics?.turnFinished({
    channel,
    outcome: stopReason,
    usage: s.usage,
    overheadSeconds: Math.max(0, performance.now() - s.startedAt - s.waitedMs) / 1000,
  });
  // Statistics, after the reply is sent: the reply does not wait for it.
  const after = { conv, channel, text: shaped.text, usage: s.usage };
  void runStage(s.d.stages, s.d.caller, s.d.log, "after_output", after).catch((err: unknown) =>
    s.d.log.warn("after_output failed", { turn: s.turn, err }),
  );
  return {
    turn: s.turn,
    conv,
    text: shaped.text,
    ...(s.tainted ? { mark: s.tainted } : {}),
    stopReason,
    iterations: s.iterations,
    usage: s.usage,
    ...(error ? { error: error.message, ...(error.kind ? { errorKind: error.kind } : {}) } : {}),
    ...(toolCalls ? { toolCalls } : {}),
  };
}
