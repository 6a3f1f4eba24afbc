/**
 * The kernel: owns the data dir, the store and the control socket for the lifetime of one
 * daemon. Scope is passed explicitly (a Kernel object), never through module singletons.
 */
import { HomedError } from "../protocol/errors.ts";
import { TurnStreams } from "./turn-streams.ts";
import type { StatusResult } from "../protocol/control.ts";
import { segmentBytesFor } from "../ipc/segment-layout.ts";
import { MAX_BLOCK_BYTES } from "./methods/blocks.ts";
import { listenUnixRpc, type RpcServer } from "../ipc/unix-rpc.ts";
import { VERSION } from "../version.ts";
import { Store } from "../store/store.ts";
import { kernelBlocks, pluginBulk } from "./plugins/bulk.ts";
import { BlockStore } from "../store/blocks.ts";
import { approvalOf, loadConfig, type Config } from "./config/config.ts";
import { controlHandler } from "./methods/control.ts";
import { ControlClients } from "./channel-status.ts";
import { kernelStatus } from "./kernel-status.ts";
import { ensureDataDir, lockDataDir, type DataDirLock } from "./data-dir.ts";
import { dataPaths, type DataPaths } from "./data-paths.ts";
import { attachLogFile, createLogger, createLogSink, type Logger } from "./log.ts";
import { join } from "node:path";
import type { HelloResult } from "../protocol/plugin.ts";
import { childEnvironment, passThrough } from "../shared/child-env.ts";
import { engineEnv } from "./heap-size.ts";
import { realClock, type Clock } from "./clock.ts";
import { bindsListen, configuredSpecs, imageTagChannels } from "./plugins/catalog.ts";
import { KERNEL_FACILITIES } from "./plugins/graph.ts";
import { Supervisor, type PluginSpec } from "./plugins/supervisor.ts";
import { Agent } from "../agent/agent.ts";
import { outputReserve } from "../agent/turn.ts";
import { LlmSettings } from "./config/llm-settings.ts";
import { readSecretValues } from "./secret-values.ts";
import {
  mergeSettingsPatch,
  readSettingsPatch,
  SettingsPage,
  settingsFile,
  writeSettingsPatch,
} from "./config/ui-settings.ts";
import type { ReloadResult, SettingsPatch, SettingsSaveResult, SettingsView } from "../protocol/settings.ts";
import { ProviderModels } from "./provider-models.ts";
import { applyLiveChanges } from "./config/reload.ts";
import {
  declaredValue,
  pluginSectionFor,
  sectionReadDeps,
  type SettingsSection,
  settingsSections,
} from "./config/sections.ts";
import { KERNEL_READS } from "../protocol/kernel-reads.ts";
import { pluginMethods } from "./methods/plugin.ts";
import { type KernelServices, pluginServices } from "./kernel-services.ts";
import { ensureWebToken } from "./web-token.ts";
import { WebLogin } from "./web-login.ts";
import { checkListen } from "./listen-check.ts";
import { eventText, Memory } from "../memory/memory.ts";
import { importConversations } from "../memory/import-conversations.ts";
import { kernelScenes } from "./config/scenes.ts";
import { Tokenizer } from "../embed/tokenizer.ts";
import { processRss, processTreeRss } from "../shared/idle-trim.ts";
import { RssWatchdog } from "./rss-watchdog.ts";
import { BackupSchedule } from "./backup-schedule.ts";
import { KernelL3 } from "./distill-runner.ts";
import { KernelMetrics } from "./metrics.ts";
import { SkillCatalog } from "../skills/skill-catalog.ts";
import { mkdirSync } from "node:fs";
import { indexFiles } from "./index-files.ts";

/** A slice of bringing the person-wide index up to date between other work (a turn waits at most this). */
const INDEX_SLICE_MS = 15;
/** Events read into the person-wide index since its snapshot before a new one is written. */
const SNAPSHOT_MIN_EVENTS = 10_000;
/**
 * An index this large is worth warming up after a start (Memory.warmUpSteps): below it the first
 * search is quick anyway, and small data dirs (and the test suites) do not pay for it.
 */
const WARM_UP_EVENTS = 50_000;
/** Quiet after the last `homed import` call before the index catches up with what it brought. */
const INDEX_AFTER_IMPORT_MS = 1000;

export interface KernelOptions {
  dataDir: string;
  /** Flag values that override config.toml and the environment (dotted paths). */
  overrides?: Record<string, unknown>;
  env?: Record<string, string | undefined>;
  /** Time for the supervisor; tests inject their own. */
  clock?: Clock;
}

export class Kernel {
  readonly startedAt = new Date();
  private control: RpcServer | null = null;
  private stopped = false;
  supervisor!: Supervisor;
  readonly llm: LlmSettings;
  /** The provider's model list, cached for /v1/models. */
  private readonly models: ProviderModels;
  /** Running turns by conversation: every channel's, for clients that re-attach. */
  private readonly streams = new TurnStreams();
  private readonly clients = new ControlClients();
  readonly memory: Memory;
  /** The login token of the web UI and HTTP APIs (config.toml, or DATA/web-token). */
  loginToken = "";
  /** Where the web UI listens and its one-time login links. */
  private webLogin = new WebLogin();
  readonly agent: Agent;
  private watchdog: RssWatchdog | null = null;
  /** Scheduled backups ([backup]). */
  private backups: BackupSchedule | null = null;
  /** DATA/blocks: tool-result images and images received on channels. */
  private readonly blocks: BlockStore;
  private readonly bulk = pluginBulk((plugin) => this.supervisor.process(plugin)?.link);
  /** The stable graph (L3), its recall and the distillation job. */
  readonly l3: KernelL3;
  /** Memory's words and concepts, shared by the index, scenes and L3. */
  private readonly tokenizer: Tokenizer;
  /** Agent Skills: DATA/skills and `[skills] paths`, looked at again on each turn when they changed. */
  readonly skills: SkillCatalog;
  /** Events in the log when the daemon opened it (the ready line and the metrics' count of the log). */
  private readonly eventsAtOpen: number;
  /** Counters and histograms the agent and the providers report into; read by kernel/metrics. */
  private readonly metrics: KernelMetrics;

  private constructor(
    readonly paths: DataPaths,
    readonly config: Config,
    readonly log: Logger,
    readonly store: Store,
    private readonly lock: DataDirLock,
    clock: Clock,
  ) {
    this.blocks = new BlockStore(paths.dir);
    this.eventsAtOpen = store.eventCount();
    this.metrics = new KernelMetrics({
      rss: () => this.rssSample(),
      // Made after this constructor: a scrape comes once the plugins run.
      plugins: () => this.supervisor?.list() ?? [],
      store: () => ({ atOpen: this.eventsAtOpen, appended: store.appended, sizeBytes: store.sizeBytes() }),
      startedAt: this.startedAt,
    });
    this.skills = new SkillCatalog({ dataDir: paths.dir, paths: () => config.skills.paths });
    // Made at start, so the owner finds where their skills go.
    mkdirSync(this.skills.ownRoot, { recursive: true, mode: 0o700 });
    this.llm = new LlmSettings(paths.dir, config, log.with({ component: "llm" }), this.metrics);
    this.models = new ProviderModels(this.llm, log.with({ component: "llm" }));
    const tokenizer = new Tokenizer();
    this.tokenizer = tokenizer;
    this.memory = new Memory(store, tokenizer, indexFiles(paths.dir, log.with({ component: "memory" })));
    this.l3 = new KernelL3({
      store,
      tokenizer,
      config: config.memory,
      llm: this.llm,
      distilled: (conv, ids) => this.agent.distilled(conv, ids),
      clock,
      log: log.with({ component: "l3" }),
    });
    this.agent = new Agent({
      store,
      caller: {
        call: (plugin, method, params, timeoutMs) => this.supervisor.request(plugin, method, params, timeoutMs),
        notify: (plugin, method, params) => this.supervisor.process(plugin)?.rpc.notify(method, params),
        takeBulk: this.bulk.take,
        releaseBulk: this.bulk.release,
        isCritical: (plugin) => this.supervisor.isCritical(plugin),
        isBuiltin: (plugin) => this.supervisor.isBuiltin(plugin),
        failClosed: () => this.supervisor.failClosed(),
      },
      log: log.with({ component: "agent" }),
      model: (id) => this.llm.model(id),
      config: () => ({
        systemPrompt: config.agent.system_prompt,
        maxIterations: config.agent.max_iterations,
        contextWindow: this.llm.contextWindow,
        // The reply never takes more than half of a small window: asking 4096 tokens of a
        // 4000-token model would leave no room for the conversation at all.
        maxOutputTokens: Math.min(this.llm.maxOutputTokens, Math.floor(this.llm.contextWindow / 2)),
        outputReserve: outputReserve(this.llm.contextWindow, this.llm.maxOutputTokens),
      }),
      approval: approvalOf(config),
      toolTimeoutMs: config.agent.tool_timeout_ms,
      memory: this.memory,
      scenes: kernelScenes(store, tokenizer, config.memory),
      l3: this.l3.recall,
      blocks: this.blocks,
      skills: {
        catalog: this.skills,
        // A read's cap and how commands are confined, from the plugin sections that declare them.
        maxReadBytes: () => Number(declaredValue(config, this.sections, KERNEL_READS.readMaxKb) ?? 256) * 1024,
        unconfined: () => declaredValue(config, this.sections, KERNEL_READS.commandSandbox) === "none",
      },
      pinnedRecent: config.memory.pinned_recent,
      subAgents: () => ({ maxDepth: config.tools.agent.max_depth, maxIterations: config.tools.agent.max_iterations }),
      // Read at each use: a reload changes it in place.
      get recallUntrusted() {
        return config.memory.recall_untrusted;
      },
      metrics: this.metrics,
    });
  }

  /**
   * Boot in the order that keeps every failure clean: data dir, config (a bad value stops us
   * before anything is touched), lock (a second daemon stops before opening the database), the
   * web address (one that cannot be bound stops us with exit 78), store, control socket.
   */
  static async start(opts: KernelOptions): Promise<Kernel> {
    const t0 = performance.now();
    const paths = dataPaths(opts.dataDir);
    const dir = ensureDataDir(paths);
    // The plugins' sections: built-in, and those of the external plugins installed now.
    const sections = settingsSections(join(paths.dir, "plugins"));
    const page = new SettingsPage(sections);
    const base = loadConfig({ file: paths.config, env: opts.env ?? process.env, overrides: opts.overrides, sections });
    const sink = createLogSink(base.log.level);
    attachLogFile(sink, paths.logs);
    const log = createLogger(sink);
    // A settings.json that cannot be read or no longer fits stops the start, as config.toml does
    // (exit 78): ignored, the approval rules saved in it (a deny among them) would silently lapse.
    const stored = readSettingsPatch(paths.dir);
    let config: Config;
    try {
      config = page.apply(base, stored);
    } catch (err) {
      throw new HomedError(
        "config",
        `${settingsFile(paths.dir)}: ${(err as Error).message}`,
        { file: settingsFile(paths.dir) },
        { cause: err },
      );
    }
    const unused = page.unused(stored);
    if (unused.length > 0)
      log.warn("settings.json holds settings no plugin has now; they are ignored (the settings page can remove them)", {
        settings: unused.join(","),
      });
    if (dir.openToOthers) log.warn("data dir is readable by other users; chmod 700 it", { data: paths.dir });
    const lock = lockDataDir(paths);
    let store: Store;
    try {
      // After the lock: a second daemon on this data dir must hear "locked", not "port busy".
      if (bindsListen(config)) checkListen(config.listen);
      store = Store.open(paths.db, {
        busyTimeoutMs: config.store.busy_timeout_ms,
        imageTagChannels: imageTagChannels(),
      });
    } catch (err) {
      lock.release();
      throw err;
    }
    const kernel = new Kernel(paths, config, log, store, lock, opts.clock ?? realClock);
    kernel.baseConfig = base;
    kernel.sections = sections;
    kernel.page = page;
    kernel.loadOptions = opts;
    // Under systemd, stderr is the journal, which others read: the login link goes to a file of the owner's.
    if ((opts.env ?? process.env).JOURNAL_STREAM)
      kernel.webLogin = new WebLogin(undefined, join(paths.dir, "login-link"));
    kernel.loginToken = ensureWebToken(
      paths.dir,
      String(declaredValue(config, sections, KERNEL_READS.loginToken) ?? ""),
      config.listen,
    );
    kernel.supervisor = kernel.createSupervisor(opts.clock ?? realClock, opts.env ?? process.env);
    kernel.control = listenUnixRpc(
      paths.socket,
      controlHandler(kernel.services(opts.env ?? process.env)),
      log.with({ component: "control" }),
    );
    log.info("homed ready", {
      version: VERSION,
      pid: process.pid,
      data: paths.dir,
      listen: config.listen,
      socket: paths.socket,
      events: kernel.eventsAtOpen,
      boot_ms: Math.round(performance.now() - t0),
    });
    kernel.supervisor.start();
    kernel.watchdog = kernel.createWatchdog(opts.clock ?? realClock);
    kernel.watchdog.start();
    kernel.l3.start();
    kernel.backups = new BackupSchedule({
      dataDir: paths.dir,
      config: () => kernel.config.backup,
      log: log.with({ component: "backup" }),
    });
    kernel.backups.start();
    kernel.settled = Promise.all([
      config.memory.model ? kernel.loadDenseModel(config.memory.model) : undefined,
      kernel.prepareFirstTurn().then(() => kernel.catchUpPersonIndex()),
    ]).then(() => {});
    return kernel;
  }

  /**
   * Resolves once what the kernel loads in the background after ready (the first turn's tables,
   * the dense model) is loaded; never rejects (each step logs its own failure).
   */
  settled: Promise<void> = Promise.resolve();

  /**
   * Load, in the background after ready, what the first turn would otherwise load on its way to
   * the model: the tokenizer's tables, then the tools' index (they made the first /v1 turn
   * ~130 ms slower than the next, docs/BENCHMARKS.md). The lexicon is unpacked off the main
   * thread and the index made a tool per macrotask, so a status request, a plugin's hello or the
   * first turn arriving meanwhile waits for one step of a few milliseconds, not for all ~40 ms.
   */
  private async prepareFirstTurn(): Promise<void> {
    const t0 = performance.now();
    try {
      await this.tokenizer.preload();
      for (const _ of this.agent.prepareToolIndex()) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.stopped) return;
      }
      this.log.info("first turn prepared", { ms: Math.round(performance.now() - t0) });
    } catch (err) {
      // Nothing is lost: the turn that needs it loads it again and reports a failure there.
      this.log.warn("preparing the first turn failed", { err: (err as Error).message });
    }
  }

  private indexing: Promise<void> | null = null;
  /** The ranking ran its warm-up searches (once a start). */
  private warmed = false;
  private indexTimer: ReturnType<typeof setTimeout> | null = null;
  /** `homed import` calls are coming (the store's bulk page cache is on, Store.bulk). */
  private importing = false;

  /**
   * Bring the person-wide index (the recall note's and memory searches', src/memory/person-index.ts)
   * up to date in the background: restored from its snapshot on the first slice, then the events
   * since, a slice of INDEX_SLICE_MS at a time, so a turn meanwhile waits for one slice, not for
   * the whole. Saved again once it holds SNAPSHOT_MIN_EVENTS more than its snapshot. Never
   * rejects; a turn that comes first brings the index up to date itself.
   */
  catchUpPersonIndex(): Promise<void> {
    if (this.indexing) return this.indexing;
    const run = async () => {
      const t0 = performance.now();
      const person = this.memory.person;
      try {
        // Restored (or made) in the first slice, whatever its length: one step a turn may wait for.
        while (!person.catchUp(this.config.memory.recall_untrusted, INDEX_SLICE_MS)) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          if (this.stopped) return;
        }
        const unsaved = person.unsaved();
        const ready = Math.round(performance.now() - t0);
        if (unsaved >= SNAPSHOT_MIN_EVENTS) {
          const s0 = performance.now();
          person.save();
          this.log.info("memory index saved", { events: unsaved, ms: Math.round(performance.now() - s0) });
        }
        const { documents, restoredAt } = person.figures(this.config.memory.recall_untrusted);
        this.log.info("memory index ready", { ms: ready, events: documents, snapshot_upto: restoredAt });
        if (!this.warmed && documents >= WARM_UP_EVENTS) {
          this.warmed = true;
          const w0 = performance.now();
          const turns = this.agent.turnsStarted;
          let steps = 0;
          const scope = { kind: "person", includeUntrusted: this.config.memory.recall_untrusted } as const;
          for (const step of this.memory.warmUpSteps(scope, (t) => this.agent.searchMemory(t, 10))) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            // A turn warms the ranking up itself: no step of ours in its way.
            if (this.stopped || this.agent.turnsStarted !== turns) break;
            step();
            steps++;
          }
          this.log.info("memory ranking warmed up", { ms: Math.round(performance.now() - w0), steps });
        }
      } catch (err) {
        this.log.warn("bringing the memory index up to date failed", { err: (err as Error).message });
      }
    };
    // Cleared once settled (never synchronously: an index already up to date finishes at once).
    this.indexing = run().finally(() => {
      this.indexing = null;
    });
    return this.indexing;
  }

  /** After an import call: the index catches up once the calls have stopped coming for a moment. */
  private indexSoon(): void {
    if (this.indexTimer !== null) clearTimeout(this.indexTimer);
    this.indexTimer = setTimeout(() => {
      this.indexTimer = null;
      if (this.stopped) return;
      // The import is over: the page cache it had goes back.
      if (this.importing) {
        this.importing = false;
        this.store.bulk(false);
      }
      void this.catchUpPersonIndex();
    }, INDEX_AFTER_IMPORT_MS);
  }

  /** config.toml's configuration (with environment and flags), before settings.json. */
  private baseConfig!: Config;
  /** The plugins' sections of config.toml, as they were at start. */
  private sections!: readonly SettingsSection[];
  /** The web settings page's fields, from the kernel's and the plugins' settings. */
  private page!: SettingsPage;
  private loadOptions!: KernelOptions;

  /** The UI's settings and where each comes from. */
  settingsView(): SettingsView {
    let patch: SettingsPatch = {};
    try {
      patch = readSettingsPatch(this.paths.dir);
    } catch {
      // Broken since the start (edited by hand): what is in force stands; a save or reload says why.
    }
    let configured = this.config;
    try {
      configured = this.page.apply(this.baseConfig, patch);
    } catch {
      // A settings.json that no longer fits was ignored at load (and said so): what is in force stands.
    }
    return this.page.view(this.baseConfig, this.config, patch, configured);
  }

  /** Write a patch to settings.json (refused, unchanged, when the result is not a valid configuration) and apply it. */
  setSettings(request: SettingsPatch): SettingsSaveResult {
    const patch = this.page.resolveListEdits(request, this.config);
    const current = readSettingsPatch(this.paths.dir);
    this.page.checkSections(patch, current);
    const next = mergeSettingsPatch(current, patch);
    this.page.apply(this.baseConfig, next);
    writeSettingsPatch(this.paths.dir, next);
    const reload = this.reload("settings saved");
    return { settings: this.settingsView(), reload };
  }

  /**
   * Re-read config.toml, settings.json (and llm.json, read at each use anyway) and apply what can
   * change without a restart: [llm], [agent] but its tool timeout, [approval], memory's
   * recall_untrusted, [mcp] and [channels.qq] (their plugins restart): config-reload.ts. The rest
   * is named as needing a restart; an invalid file changes nothing.
   */
  reload(why: string): ReloadResult {
    const log = this.log.with({ component: "config" });
    let base: Config;
    let next: Config;
    // Read again: a plugin installed since the start brings its section (applied at the next start).
    const sections = settingsSections(join(this.paths.dir, "plugins"));
    const page = new SettingsPage(sections);
    try {
      base = loadConfig({
        file: this.paths.config,
        env: this.loadOptions.env ?? process.env,
        overrides: this.loadOptions.overrides,
        sections,
      });
      next = page.apply(base, readSettingsPatch(this.paths.dir));
    } catch (err) {
      const error = (err as Error).message;
      log.error("configuration not reloaded", { why, err: error });
      return { applied: [], restartNeeded: [], error };
    }
    const services = this.services(this.loadOptions.env ?? process.env);
    const { applied, restartNeeded } = applyLiveChanges(this.config, next, {
      agent: this.agent,
      supervisor: this.supervisor,
      log,
      sections,
      enabledBy: (plugin) => this.supervisor.spec(plugin)?.manifest.enabled_by,
      read: (plugin, section) => pluginSectionFor(plugin, section, this.config, sectionReadDeps(services)),
    });
    this.baseConfig = base;
    this.sections = sections;
    this.page = page;
    const appliedNow = applied.filter((p) => !restartNeeded.includes(p));
    log.info("configuration reloaded", {
      why,
      applied: appliedNow.join(",") || "nothing",
      restart_needed: restartNeeded.join(",") || "nothing",
    });
    return { applied: appliedNow, restartNeeded };
  }

  /** Load the configured embedding model in the background; memory stays lexical if it fails. */
  private async loadDenseModel(name: string): Promise<void> {
    const log = this.log.with({ component: "memory" });
    try {
      const { OnnxEmbedder } = await import("../embed/onnx.ts");
      const { DenseIndex } = await import("../memory/dense-index.ts");
      const embedder = await OnnxEmbedder.load(join(this.paths.dir, "models", name));
      this.memory.dense = new DenseIndex(this.store, embedder, log, this.blocks);
      log.info("dense memory model loaded", { model: name, id: embedder.id, dim: embedder.dim });
      this.memory.dense.backfill(eventText);
    } catch (err) {
      log.error("dense memory model not loaded; memory uses words and concepts only", {
        model: name,
        err: (err as Error).message,
      });
    }
  }

  private createWatchdog(clock: Clock): RssWatchdog {
    return new RssWatchdog({
      limitMb: this.config.limits.rss_mb,
      intervalMs: this.config.limits.rss_check_ms,
      clock,
      log: this.log.with({ component: "limits" }),
      sample: () => this.rssSample(),
      shedLazy: () => this.supervisor.stopIdleLazy("stopped to give memory back ([limits] rss_mb)"),
      gc: () => Bun.gc(true),
    });
  }

  /** Resident memory of the daemon and each running plugin (a confined one with its bwrap processes), from /proc. */
  private rssSample(): { kernel: number; plugins: Record<string, number> } {
    const plugins: Record<string, number> = {};
    for (const p of this.supervisor?.list() ?? []) {
      if (p.pid === null) continue;
      const confined = this.supervisor.spec(p.name)?.room?.sandbox === "bwrap";
      plugins[p.name] = confined ? processTreeRss(p.pid) : processRss(p.pid);
    }
    return { kernel: process.memoryUsage.rss(), plugins };
  }

  private createSupervisor(clock: Clock, env: Record<string, string | undefined>): Supervisor {
    const pc = this.config.plugins;
    // Plugins never see the daemon's environment (tokens, cloud keys): only what a program needs.
    // The data dir is named to built-in plugins only; external ones run in a room of their own
    // (src/kernel/plugins/sandbox.ts). HOMED_TEST_CLOCK_FILE (tests only, never set in
    // production) gives the schedule plugin a clock a test can move; it passes only when the
    // daemon itself was started with it.
    const testClock = env.HOMED_TEST_CLOCK_FILE;
    const builtinEnv = { HOMED_DATA: this.paths.dir, ...(testClock ? { HOMED_TEST_CLOCK_FILE: testClock } : {}) };
    const specs = configuredSpecs(this.paths.dir, this.config, {
      builtinEnv,
      searchPath: env.PATH,
      onGrantsProblem: (problem) =>
        this.log.warn("plugin grants not read: added plugins run without network until it is fixed", { problem }),
    });
    for (const s of specs) {
      if (s.disabled || s.problem || s.manifest.tools.length === 0) continue;
      try {
        this.agent.declareTools(s.manifest.name, s.manifest.tools);
      } catch (err) {
        this.log.error("tools in the plugin manifest not offered", {
          plugin: s.manifest.name,
          err: (err as Error).message,
        });
      }
    }
    // The plugins' engines run with the kernel's options (src/kernel/heap-size.ts).
    const childEnv = childEnvironment(env, engineEnv(env));
    const hello = (spec: PluginSpec): HelloResult => ({
      kernelVersion: VERSION,
      dataDir: spec.room?.stateDir ?? this.paths.dir,
      listen: this.config.listen,
      logLevel: this.config.log.level,
      inlineBulkLimit: pc.inline_bulk_kb * 1024,
    });
    return new Supervisor({
      specs,
      kernelFacilities: KERNEL_FACILITIES,
      clock,
      log: this.log.with({ component: "supervisor" }),
      hello,
      kernelMethods: pluginMethods(this.services(env), this.agent),
      onPluginExit: (name) => {
        const gone = this.agent.pluginGone(name);
        if (gone.stages || gone.tools) this.log.info("plugin registrations removed", { plugin: name, ...gone });
      },
      env: childEnv,
      // A block of the largest size accepted crosses the arena in one piece (16 MiB uploads).
      segmentBytes: segmentBytesFor(pc.segment_mb * 1024 * 1024, MAX_BLOCK_BYTES),
      frameRate: pc.frame_rate,
      // A stdio plugin's inline payload is base64 (4/3) inside a JSON frame.
      maxFrameBytes: Math.max(4 << 20, Math.ceil((pc.inline_bulk_kb * 1024 * 4) / 3) + 64 * 1024),
      inlineBulkLimit: pc.inline_bulk_kb * 1024,
      startTimeoutMs: pc.start_timeout_ms,
      pingIntervalMs: pc.ping_interval_ms,
      keepRunning: this.store.keepRunningPlugins(),
      onKeepRunning: (name, on) => this.store.setKeepRunning(name, on),
    });
  }

  /** What the method tables may use of the kernel (src/kernel/kernel-services.ts). */
  private services(env: Record<string, string | undefined>): KernelServices {
    const kernel = this;
    return {
      store: this.store,
      memory: this.memory,
      importConversations: (channel, conversations) => {
        if (!this.importing) {
          this.importing = true;
          this.store.bulk(true);
        }
        const r = importConversations(this.store, this.memory, channel, conversations);
        this.indexSoon();
        return r;
      },
      agent: this.agent,
      l3: this.l3,
      streams: this.streams,
      llm: this.llm,
      models: this.models,
      config: this.config,
      get settingsSections() {
        return kernel.sections;
      },
      get loginToken() {
        return kernel.loginToken;
      },
      webLogin: this.webLogin,
      blocks: kernelBlocks(this.bulk, this.blocks, this.store.blockRecords),
      passThrough: (names) => passThrough(env, names),
      secretValues: () => readSecretValues(this.paths.dir, this.log),
      settings: {
        view: () => this.settingsView(),
        set: (patch) => this.setSettings(patch),
        reload: (why) => this.reload(why),
      },
      plugins: pluginServices(() => this.supervisor),
      status: () => this.status(),
      metrics: () => this.metrics.text(),
      clients: this.clients,
      skills: this.skills,
    };
  }

  status(): StatusResult {
    return kernelStatus({
      startedAt: this.startedAt,
      paths: this.paths,
      config: this.config,
      sections: this.sections,
      store: this.store,
      supervisor: this.supervisor,
      llm: this.llm,
      agent: this.agent,
      memory: this.memory,
      clients: this.clients,
      l3: () => this.l3.graph.count(),
      skills: this.skills,
    });
  }

  /** At stop: a snapshot of the person-wide index when it holds much that its last does not. */
  private savePersonIndex(): void {
    const unsaved = this.memory.person.unsaved();
    if (unsaved < SNAPSHOT_MIN_EVENTS) return;
    try {
      const t0 = performance.now();
      this.memory.person.save();
      this.log.info("memory index saved", { events: unsaved, ms: Math.round(performance.now() - t0) });
    } catch (err) {
      this.log.warn("saving the memory index failed; the next start makes it from the log", {
        err: (err as Error).message,
      });
    }
  }

  /** Stop plugins, stop accepting requests, close the store cleanly, release the lock. Idempotent. */
  async stop(reason: string): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.log.info("homed stopping", { reason });
    this.watchdog?.stop();
    this.backups?.stop();
    this.l3.stop();
    if (this.indexTimer !== null) clearTimeout(this.indexTimer);
    await this.supervisor.stopAll();
    this.control?.stop();
    this.savePersonIndex();
    this.store.close();
    this.lock.release();
    this.log.info("homed stopped");
  }
}
