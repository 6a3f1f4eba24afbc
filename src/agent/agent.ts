/**
 * The agent: the registries plugins fill (tools, stage handlers), the one tool gate, and the
 * turn. The kernel owns one Agent; it reaches plugins only through the injected PluginCaller.
 */
import {
  AgentMethod,
  RegisterStagesParams,
  RegisterToolsParams,
  UnregisterToolsParams,
  type ToolDefinition,
} from "../protocol/agent.ts";
import { parseParams } from "../protocol/parse-params.ts";
import type { ChatMessage, LanguageModel } from "../llm/types.ts";
import type { Store } from "../store/store.ts";
import type { BlockStore } from "../store/blocks.ts";
import { ApprovalPolicy, type ApprovalConfig } from "./approval.ts";
import type { PluginCaller } from "./plugin-caller.ts";
import { StageRegistry, type StageLog } from "./stages.ts";
import { ToolExecutor } from "./tool-executor.ts";
import { ToolRegistry } from "./tools.ts";
import { ConversationContext, type ContextItem } from "../memory/context.ts";
import type { Memory } from "../memory/memory.ts";
import type { Scenes, TurnScenes } from "../memory/scenes.ts";
import { crossRecallNote } from "../memory/cross-recall.ts";
import type { L3Recall } from "../memory/l3-recall.ts";
import { withFacts } from "./facts-note.ts";
import { type FoundEvent, MemorySearch } from "../memory/memory-search.ts";
import { recallScope } from "../memory/recall-scope.ts";
import { MEMORY_SEARCH_TOOL, memoryTool } from "./memory-tool.ts";
import { AGENT_SPAWN_TOOL, agentSpawnTool } from "./agent-spawn.ts";
import { ConversationQueue } from "./conversation-queue.ts";
import { type ToolDoc, ToolIndex, type WeightedText } from "../memory/tool-index.ts";
import { TOOLS_FIND_TOOL, toolsFindTool } from "./tools-find.ts";
import { runTurn, type TurnConfig, type TurnInput, type TurnResult, type TurnSink } from "./turn.ts";
import { HABIT_DAYS, standingOffer } from "./tool-offer.ts";
import type { SkillCatalog } from "../skills/skill-catalog.ts";
import type { AgentMetrics } from "./agent-metrics.ts";
import {
  SKILL,
  SKILL_FILE_TOOL,
  SKILL_FILE_TOOL_DEF,
  SKILL_TOOL,
  skillFileTool,
  describedSkill,
  skillTool,
  skillToolDescription,
} from "./skill-tools.ts";

export interface AgentDeps {
  store: Store;
  caller: PluginCaller;
  log: StageLog & { info(msg: string, fields?: Record<string, unknown>): void };
  model(id?: string): LanguageModel | string;
  config(): TurnConfig;
  approval: ApprovalConfig;
  toolTimeoutMs: number;
  /** Memory over the log (relevance pruning, cold recall); null: recency only. */
  memory: Memory | null;
  /** The newest turns exempt from relevance pruning (capped by budget ÷ average). */
  pinnedRecent: number;
  /** `[memory] recall_untrusted`: trusted turns also recall untrusted events (marked so). */
  recallUntrusted?: boolean;
  /** Where tool-result images are kept (DATA/blocks); without it images are dropped with a note. */
  blocks?: BlockStore;
  /** [tools.agent]: how deep agent_spawn may nest and each sub-agent's model calls; read at each call. */
  subAgents?: () => { maxDepth: number; maxIterations: number };
  /** Recurring situations (src/memory/scenes.ts): recall boost, settings, clustering; null: none. */
  scenes?: Scenes | null;
  /** The stable graph's recall (src/memory/l3-recall.ts); absent: no facts in context. */
  l3?: L3Recall | null;
  /**
   * Agent Skills (src/skills): offered by relevance, loaded by `skill`, their files read by
   * `skill_file` up to `maxReadBytes` ([tools.files] max_read_kb). Absent: no skills.
   */
  skills?: { catalog: SkillCatalog; maxReadBytes: () => number; unconfined: () => boolean };
  /** Told of turns, recall times, tool decisions and approval waits (the daemon's metrics); absent: nobody is. */
  metrics?: AgentMetrics;
}

/** Tools the tool index leaves out: `skill` rides along with the skills that rank, never on its own words. */
const UNRANKED = new Set([SKILL, SKILL_FILE_TOOL]);
/** Distinct words a skill's name and description must share with the input for it to ride along. */
const MIN_SKILL_WORDS = 2;
/** A day, in ms: the habits behind the standing tool offer are counted per day. */
const DAY_MS = 86_400_000;
/** Every usable skill is listed in `skill`'s description; past this many, tools_find finds the rest. */
const LISTED_SKILLS_WHOLE = 40;

/** What the last model call of a conversation was sent, and what memory knows of it. */
export interface SentContext {
  turn: string;
  at: number;
  messages: readonly ChatMessage[];
  tools: readonly string[];
  items: readonly (ContextItem | null)[];
  /** Events memory_search brought back during the turn, oldest first. */
  brought: readonly FoundEvent[];
}

export class Agent {
  readonly stages = new StageRegistry();
  readonly tools = new ToolRegistry();
  readonly executor: ToolExecutor;
  private readonly context: ConversationContext;
  /** Tools from plugin manifests, offered whether or not the plugin runs. */
  private readonly declared = new Map<string, readonly ToolDefinition[]>();
  /** The last context each recent conversation sent the model: what the memory page shows. */
  private readonly contexts = new Map<string, SentContext>();
  /** Person-wide memory search within a turn's scope (null without memory). */
  readonly search: MemorySearch | null;
  /** Events memory_search brought back, per running turn. */
  private readonly brought = new Map<string, FoundEvent[]>();
  /** The scenes of each conversation's running turn that is in one. */
  private readonly activeScenes = new Map<string, TurnScenes>();
  /** Recurring situations, for the scenes RPCs (null: none). */
  readonly scenes: Scenes | null;
  /** Turns of one conversation run one after another, whatever channel they come from. */
  private readonly queue = new ConversationQueue();
  /** The registered tools as memory indexes them, and the registry generation it was made at. */
  private toolIndex: { generation: number; han: boolean; index: ToolIndex } | null = null;
  /** The standing tool offer, and what it was made from (src/agent/tool-offer.ts). */
  private standingOffer: { day: number; generation: number; skills: boolean; offer: Set<string> } | null = null;
  /** The usable skills as memory indexes them, and the catalog generation it was made at. */
  private skillIndex: { generation: number; index: ToolIndex; words: Map<string, Set<string>> } | null = null;

  /** New approval rules for every call from now on (a reload). */
  setApproval(config: ApprovalConfig): void {
    this.executor.setPolicy(new ApprovalPolicy(config));
  }

  constructor(private readonly d: AgentDeps) {
    this.context = new ConversationContext(d.store, d.memory, d.pinnedRecent);
    this.search = d.memory ? new MemorySearch(d.store, d.memory) : null;
    this.scenes = d.scenes ?? null;
    this.executor = new ToolExecutor({
      tools: this.tools,
      stages: this.stages,
      caller: d.caller,
      policy: new ApprovalPolicy(d.approval),
      store: d.store,
      log: d.log,
      toolTimeoutMs: d.toolTimeoutMs,
      remember: (id) => this.remember(id),
      blocks: d.blocks,
      metrics: d.metrics,
    });
    const subAgents = d.subAgents;
    if (subAgents)
      this.tools.register(
        "kernel",
        AGENT_SPAWN_TOOL,
        agentSpawnTool({
          run: (input, sink, signal) => this.run(input, sink, signal),
          toolNames: () => this.tools.list().map((t) => t.def.name),
          limits: subAgents,
        }),
      );
    const memory = d.memory;
    const search = this.search;
    if (memory && search)
      this.tools.register(
        "kernel",
        MEMORY_SEARCH_TOOL,
        memoryTool({
          search,
          touch: (ids) => memory.touch(ids),
          restore: (conv, ids) => this.context.restore(conv, ids),
          recallUntrusted: () => d.recallUntrusted ?? false,
          brought: (turn, events) => {
            const list = this.brought.get(turn) ?? [];
            const have = new Set(list.map((e) => e.id));
            list.push(...events.filter((e) => !have.has(e.id)));
            list.sort((a, b) => a.id - b.id);
            this.brought.set(turn, list);
          },
          sceneBoost: (conv) => this.activeScenes.get(conv)?.memoryOf,
        }),
      );
    const skills = d.skills;
    if (memory)
      this.tools.register(
        "kernel",
        TOOLS_FIND_TOOL,
        toolsFindTool({
          rank: (query, k, among) => this.rankTools([{ text: query, weight: 1 }], k, among),
          describe: (name) => {
            const def = this.tools.get(name)?.def;
            return def ? { description: def.description, parameters: def.parameters } : undefined;
          },
          names: () => this.tools.list().map((t) => t.def.name),
          ...(skills
            ? {
                rankSkills: (query, k, among) => this.rankSkills([{ text: query, weight: 1 }], k, among),
                describeSkill: (name) => {
                  const s = skills.catalog.find(name);
                  return s ? describedSkill(s) : undefined;
                },
              }
            : {}),
        }),
      );
    if (skills) {
      const deps = {
        find: (name: string) => skills.catalog.usable().find((s) => s.name === name),
        names: () => skills.catalog.usable().map((s) => s.name),
        maxReadBytes: skills.maxReadBytes,
        unconfined: skills.unconfined,
      };
      this.tools.register("kernel", SKILL_TOOL, skillTool(deps));
      this.tools.register("kernel", SKILL_FILE_TOOL_DEF, skillFileTool(deps));
    }
  }

  /**
   * The usable skills best matching `texts`, by the same index machinery as the tools (their
   * names and descriptions; src/memory/tool-index.ts); [] without memory or skills. A skill is
   * instructions the model may follow, so one word in common is not enough: it must share
   * MIN_SKILL_WORDS distinct words with the input (the texts of full weight; the messages before
   * it only order). The index is made again when the catalog found something new
   * (src/skills/skill-catalog.ts looks again by mtime).
   */
  private rankSkills(
    texts: readonly WeightedText[],
    limit: number,
    among: ReadonlySet<string> | null = null,
  ): string[] {
    const memory = this.d.memory;
    const catalog = this.d.skills?.catalog;
    if (!memory || !catalog) return [];
    const usable = catalog.usable();
    if (usable.length === 0) return [];
    const analyse = (text: string) => memory.index.analyse(text);
    // Skills have no examples held back for Chinese: a description is analysed as it is written.
    if (this.skillIndex?.generation !== catalog.generation) {
      const docs = usable.map((s) => ({ name: s.name, description: s.description }));
      const words = new Map(
        docs.map((d) => [d.name, new Set(analyse(`${d.name.replaceAll("-", " ")}\n${d.description}`).words)]),
      );
      this.skillIndex = { generation: catalog.generation, index: new ToolIndex(docs, analyse), words };
    }
    const said = new Set(texts.filter((t) => t.weight >= 1).flatMap((t) => analyse(t.text).words));
    const fits = (name: string) => {
      let n = 0;
      for (const w of this.skillIndex?.words.get(name) ?? []) if (said.has(w) && ++n >= MIN_SKILL_WORDS) return true;
      return false;
    };
    const index = this.skillIndex;
    const candidates = new Set([...index.words.keys()].filter((n) => !among || among.has(n)));
    return index.index.rank(texts, usable.length, candidates).filter(fits).slice(0, limit);
  }

  /**
   * `skill`'s description for a turn: the named skills that are still usable, or (null) every
   * usable one — null when that is none at all (then there is nothing to load).
   */
  private describeSkills(names: readonly string[] | null): string | null {
    const usable = this.d.skills?.catalog.usable() ?? [];
    if (names === null && usable.length === 0) return null;
    const listed = names === null ? usable.slice(0, LISTED_SKILLS_WHOLE) : usable.filter((s) => names.includes(s.name));
    return skillToolDescription(listed);
  }

  /**
   * The tools every model call carries with their schemas (src/agent/tool-offer.ts
   * standingOffer): made again when a tool comes or goes, a skill becomes loadable or not, or the
   * day changes (the habits are counted per day, so the tools block moves at most once a day).
   */
  private standing(): ReadonlySet<string> {
    const now = Date.now();
    const day = Math.floor(now / DAY_MS);
    const generation = this.tools.generation;
    const skills = (this.d.skills?.catalog.usable().length ?? 0) > 0;
    const kept = this.standingOffer;
    if (kept?.day === day && kept.generation === generation && kept.skills === skills) return kept.offer;
    // The days before today: today's calls join tomorrow, so the block stands still all day.
    const use = this.d.store.toolUse((day - HABIT_DAYS) * DAY_MS, day * DAY_MS);
    const offer = standingOffer(this.tools.list(), use, (p) => this.d.caller.isBuiltin?.(p) ?? false, skills);
    this.standingOffer = { day, generation, skills, offer };
    return offer;
  }

  /**
   * The registered tools best matching `texts` (src/agent/tool-offer.ts); [] without memory. The
   * index is made again after the registry changed, on the next ranking.
   */
  private rankTools(texts: readonly WeightedText[], limit: number, among: ReadonlySet<string> | null): string[] {
    const han = texts.some((t) => HAN.test(t.text));
    return this.currentToolIndex(han)?.rank(texts, limit, among) ?? [];
  }

  /**
   * The tools' index for the registry as it is now, made again when it changed; null without
   * memory. Chinese examples need jieba (~42 MiB): they are indexed once Chinese is segmented
   * anyway (`han`: the text being ranked is Chinese), not by a daemon that never meets it.
   */
  private currentToolIndex(han: boolean): ToolIndex | null {
    const memory = this.d.memory;
    if (!memory) return null;
    const generation = this.tools.generation;
    const withHan = han || memory.index.segmentsHan;
    if (this.toolIndex?.generation !== generation || (withHan && !this.toolIndex.han)) {
      const docs = this.ranked().map((t) => toolDoc(t.def, withHan));
      this.toolIndex = { generation, han: withHan, index: new ToolIndex(docs, (text) => memory.index.analyse(text)) };
    }
    return this.toolIndex.index;
  }

  /** The registered tools the index ranks. */
  private ranked() {
    return this.tools.list().filter((t) => !UNRANKED.has(t.def.name));
  }

  /**
   * Make the tools' index ahead of the next turn, which would otherwise make it on its way to
   * the model (20-50 ms for a default install's ~60 tools, the first time): one tool per step, so
   * the caller can run each step in its own macrotask. Abandoned when the registry changes
   * meanwhile; the next ranking makes the index for the registry as it is then.
   */
  *prepareToolIndex(): Generator<void, void, void> {
    const memory = this.d.memory;
    const generation = this.tools.generation;
    if (!memory || this.toolIndex?.generation === generation) return;
    const index = new ToolIndex([], (text) => memory.index.analyse(text));
    const han = memory.index.segmentsHan;
    for (const t of this.ranked()) {
      index.add(toolDoc(t.def, han));
      yield;
      if (this.tools.generation !== generation) return;
    }
    this.toolIndex = { generation, han, index };
  }

  /**
   * Search what a person on a trusted surface may see (the web UI's search box): every trusted
   * conversation, and untrusted ones too with recall_untrusted. Best first; [] without memory.
   */
  searchMemory(query: string, k: number, time?: number): FoundEvent[] {
    return this.search?.find(this.scopeOf("", false), query, k, time === undefined ? {} : { time }) ?? [];
  }

  /** The recall scope of a turn from `conv`, trusted or not (src/memory/recall-scope.ts). */
  scopeOf(conv: string, untrusted: boolean) {
    return recallScope(conv, untrusted, this.d.recallUntrusted ?? false);
  }

  /**
   * Run a turn once the conversation's earlier turns are done: two turns of one conversation
   * interleaved would each be answered without the other's reply. Other conversations do not wait.
   */
  /** Turns run since the start (what waits for quiet, like the kernel's warm-up, looks at). */
  turnsStarted = 0;

  run(input: TurnInput, sink: TurnSink, signal: AbortSignal): Promise<TurnResult> {
    this.turnsStarted++;
    return this.queue.run(input.conv, () => this.runNow(input, sink, signal));
  }

  private async runNow(input: TurnInput, sink: TurnSink, signal: AbortSignal): Promise<TurnResult> {
    const t0 = performance.now();
    /** Time spent making the note from the person's other conversations (a figure of the log line). */
    let recallMs = 0;
    const scene = this.sceneOf(input);
    // No active scene, no boost (and no wider candidate list to rank for one).
    const boost = scene?.turn.scenes.length ? scene.turn.memoryOf : undefined;
    const used: string[] = [];
    // One turn of a conversation runs at a time (the queue): its scenes, for memory_search's boost.
    if (boost && scene) this.activeScenes.set(input.conv, scene.turn);
    const r = await runTurn(
      {
        store: this.d.store,
        stages: this.stages,
        tools: this.tools,
        executor: this.executor,
        context: this.context,
        caller: this.d.caller,
        log: this.d.log,
        model: this.d.model,
        config: this.d.config,
        metrics: this.d.metrics,
        startedAt: t0,
        onContext: (conv, turn, messages, tools, items) => this.rememberContext(conv, turn, messages, tools, items),
        remember: (id) => this.remember(id),
        readBlock: this.d.blocks ? (sha) => this.d.blocks?.read(sha) ?? null : undefined,
        sceneBoost: boost,
        // Without memory there is no tools_find to reach the rest: every tool is offered.
        standing: this.d.memory ? () => this.standing() : undefined,
        describeSkills: this.d.skills ? (names) => this.describeSkills(names) : undefined,
        recallAcross: (req) => {
          const memory = this.d.memory;
          if (!memory || !this.search) return null;
          const r0 = performance.now();
          const scope = this.scopeOf(req.conv, req.untrusted);
          const across = crossRecallNote(this.search, memory, { ...req, scope, boost });
          const note = withFacts(across, this.d.l3, { ...req, scope }, this.d.log);
          recallMs += performance.now() - r0;
          return note;
        },
      },
      scene ? { ...input, sceneSettings: scene.turn } : input,
      scene
        ? {
            ...sink,
            event: (e) => {
              if (e.type === "tool-call") used.push(e.name);
              sink.event(e);
            },
          }
        : sink,
      signal,
    ).finally(() => this.activeScenes.delete(input.conv));
    if (scene) this.observeScene(scene, input, r.turn, used);
    // The memory page keeps a copy with the turn's last model call; the running list goes.
    this.brought.delete(r.turn);
    this.d.log.info("turn finished", {
      conv: r.conv,
      turn: r.turn,
      channel: input.channel,
      stop: r.stopReason,
      iterations: r.iterations,
      tokens_in: r.usage.inputTokens,
      tokens_out: r.usage.outputTokens,
      ms: Math.round(performance.now() - t0),
      recall_ms: Math.round(recallMs * 10) / 10,
      ...(r.error ? { error: r.error } : {}),
    });
    return r;
  }

  /**
   * The scenes a person's turn is in, before it runs (none for a sub-agent's task or a turn of
   * tool results only), and where the log stood, so its events can be told afterwards.
   */
  private sceneOf(input: TurnInput): { turn: TurnScenes; before: number } | null {
    const scenes = this.scenes;
    if (!scenes || input.subAgent || !input.text) return null;
    try {
      const t = {
        conv: input.conv,
        channel: input.channel,
        scene: input.scene,
        text: input.text,
        untrusted: input.untrusted ?? false,
      };
      return { turn: scenes.forTurn(t), before: scenes.rows.lastEventId() };
    } catch (err) {
      this.d.log.warn("scenes not read; the turn runs without them", { err });
      return null;
    }
  }

  /** The turn joins or makes scenes; a failure costs scene quality, never the turn. */
  private observeScene(scene: { before: number }, input: TurnInput, turn: string, tools: readonly string[]): void {
    const scenes = this.scenes;
    if (!scenes) return;
    try {
      scenes.observe({
        turn,
        conv: input.conv,
        channel: input.channel,
        scene: input.scene,
        text: input.text,
        untrusted: input.untrusted ?? false,
        tools,
        firstEvent: scene.before + 1,
        lastEvent: scenes.rows.lastEventId(),
      });
    } catch (err) {
      this.d.log.warn("scene clustering failed", { turn, err });
    }
  }

  /** Index an event for memory; a failure costs recall quality, never the turn. */
  private remember(id: number): void {
    try {
      this.d.memory?.add(id);
    } catch (err) {
      this.d.log.warn("memory indexing failed", { event: id, err });
    }
  }

  private rememberContext(
    conv: string,
    turn: string,
    messages: readonly ChatMessage[],
    tools: readonly string[],
    items: readonly (ContextItem | null)[],
  ): void {
    this.contexts.delete(conv);
    this.contexts.set(conv, {
      turn,
      at: Date.now(),
      messages,
      tools,
      items,
      brought: [...(this.brought.get(turn) ?? [])],
    });
    if (this.contexts.size > 64) this.contexts.delete(this.contexts.keys().next().value as string);
  }

  /** Cold turns of `conv` holding `eventIds` were distilled into L3: they leave L2 for good. */
  distilled(conv: string, eventIds: readonly number[]): number[] {
    return this.context.distilled(conv, eventIds);
  }

  /** A conversation was forgotten: the memory page no longer shows what it last sent. */
  forgetContext(conv: string): void {
    this.contexts.delete(conv);
  }

  /** Exactly what the model was sent on the latest call of a conversation's latest turn. */
  lastContext(conv: string): SentContext | null {
    return this.contexts.get(conv) ?? null;
  }

  /** The kernel methods a plugin calls to register what it offers. */
  readonly pluginMethods: Record<string, (params: unknown, plugin: string) => unknown> = {
    [AgentMethod.RegisterTools]: (params, plugin) => {
      const p = parseParams(RegisterToolsParams, params);
      for (const t of p.tools) this.tools.register(plugin, t);
      this.d.log.info("tools registered", { plugin, tools: p.tools.map((t) => t.name).join(",") });
      return { registered: p.tools.length };
    },
    [AgentMethod.UnregisterTools]: (params, plugin) => ({
      removed: this.tools.unregister(plugin, parseParams(UnregisterToolsParams, params).names),
    }),
    [AgentMethod.RegisterStages]: (params, plugin) => {
      const p = parseParams(RegisterStagesParams, params);
      return { ids: p.handlers.map((h) => this.stages.register(plugin, h.stage, h.priority, h.deadlineMs).id) };
    },
  };

  /**
   * Offer the tools a plugin's manifest lists, before it runs. They stay offered while it is
   * down (a lazy plugin stopped when idle starts again when one is called).
   */
  declareTools(plugin: string, tools: readonly ToolDefinition[]): void {
    this.declared.set(plugin, tools);
    for (const t of tools) this.tools.register(plugin, t);
  }

  /** A plugin went away: its handlers and tools vanish (they come back when it registers again), except those its manifest declares. */
  pluginGone(plugin: string): { stages: number; tools: number } {
    const gone = { stages: this.stages.unregisterPluginStages(plugin), tools: this.tools.unregister(plugin) };
    for (const t of this.declared.get(plugin) ?? []) this.tools.register(plugin, t);
    return gone;
  }
}

/** Chinese characters: a text that has them is segmented by jieba. */
const HAN = /\p{Script=Han}/u;

/** A tool as its index takes it: with its Chinese examples only when `han` (jieba is loaded anyway). */
function toolDoc(def: ToolDefinition, han: boolean): ToolDoc {
  return {
    name: def.name,
    description: def.description,
    examples: han ? def.examples : def.examples.filter((e) => !HAN.test(e)),
  };
}
