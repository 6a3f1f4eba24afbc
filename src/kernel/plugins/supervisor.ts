/**
 * Starts plugins as soon as what they require is ready, restarts them when they crash, and
 * stops them. What plugins ask of the kernel is answered in `plugin-rpc.ts`; the
 * states and the moves between them are the table in `plugin-states.ts`.
 *
 * Crash policy, from the original: restart after 1 s, 2 s, 3 s; the 4th crash within 5 minutes
 * stops automatic restarts until a person restarts the plugin. Exit status 78 (configuration
 * error) is never restarted. A plugin that does not become ready within the start timeout, or
 * stops answering pings, is killed and counts as crashed. A `critical` plugin that is not
 * ready makes the kernel fail closed on what it guards (see `failClosed`).
 */
import { HomedError } from "../../protocol/errors.ts";
import { EventType } from "../../protocol/events.ts";
import { PLUGIN_EXIT_CONFIG, PluginMethod, type PluginInfo } from "../../protocol/plugin.ts";
import { resolveGraph } from "./graph.ts";
import { afterCrash } from "../../shared/restart-policy.ts";
import { PluginProcess, type PluginLaunch } from "./process.ts";
import { JobTimers } from "../job-timers.ts";
import { PluginRun, type StopIntent } from "./run.ts";
import { describeEntry, newEntry, type Entry } from "./entry.ts";
import { pingPlugin } from "./ping.ts";
import type { PluginSpec, SupervisorOptions } from "./supervisor-options.ts";
import { nextState, type PluginTransition } from "./states.ts";
import { answerPlugin, type PluginRpcHost } from "./rpc.ts";

export { CRASH_WINDOW_MS, MAX_CRASHES, RESTART_DELAYS_MS } from "../../shared/restart-policy.ts";

export type { PluginSpec, SupervisorOptions } from "./supervisor-options.ts";

/** How long a plugin asked to exit has before it is killed. */
const STOP_GRACE_MS = 3000;

export class Supervisor {
  private readonly entries = new Map<string, Entry>();
  private readonly providers = new Map<string, string>();
  private readonly timers: JobTimers<"ping">;
  private shuttingDown = false;
  /** What every plugin's requests may reach (plugin-rpc.ts applies the rules). */
  private readonly pluginHost: PluginRpcHost;

  constructor(private readonly opts: SupervisorOptions) {
    this.timers = new JobTimers(opts.clock);
    this.pluginHost = {
      hello: (name) => opts.hello(this.entries.get(name)?.spec as PluginSpec),
      list: () => this.list(),
      restart: (name) => this.restart(name),
      isBuiltin: (name) => this.isBuiltin(name),
      keepRunning: (name, on) => this.keepRunning(name, on),
      kernelMethods: opts.kernelMethods,
    };
    const runnable = opts.specs.filter((s) => !s.problem && !s.disabled);
    const graph = resolveGraph(
      runnable.map((s) => s.manifest),
      opts.kernelFacilities,
    );
    const blocked = new Map(graph.problems.map((p) => [p.plugin, p.message]));
    for (const s of opts.specs) if (s.problem) blocked.set(s.manifest.name, s.problem);
    for (const spec of opts.specs) {
      const name = spec.manifest.name;
      if (this.entries.has(name)) {
        opts.log.warn("plugin name used twice; ignoring the second", { plugin: name });
        continue;
      }
      const problem = spec.disabled ? undefined : blocked.get(name);
      this.entries.set(name, newEntry(spec, problem, opts.clock, opts.keepRunning ?? []));
      if (!problem && !spec.disabled) for (const f of spec.manifest.provides) this.providers.set(f, name);
    }
  }

  /** Launch every plugin whose requirements are met; start the liveness pings. */
  start(): void {
    this.launchReady();
    if (this.opts.pingIntervalMs > 0) this.schedulePing();
  }

  isFacilityReady(facility: string): boolean {
    if (this.opts.kernelFacilities.includes(facility)) return true;
    const owner = this.providers.get(facility);
    if (!owner) return false;
    const e = this.entries.get(owner);
    return !!e && e.state === "ready" && !!e.run?.ready.has(facility);
  }

  isBuiltin(name: string): boolean {
    return this.entries.get(name)?.spec.builtin ?? false;
  }

  isCritical(name: string): boolean {
    return this.entries.get(name)?.spec.manifest.critical ?? false;
  }

  /** Critical plugins that are not ready: while non-empty, guarded actions must be denied. */
  failClosed(): string[] {
    return [...this.entries.values()]
      .filter((e) => e.spec.manifest.critical && e.state !== "ready")
      .map((e) => e.spec.manifest.name);
  }

  get allSettled(): boolean {
    return [...this.entries.values()].every((e) => e.state !== "starting" && e.state !== "waiting");
  }

  list(): PluginInfo[] {
    const now = this.opts.clock.now();
    return [...this.entries.values()].map((e) => describeEntry(e, now));
  }

  /** How a plugin is run, as the supervisor was given it (its manifest). */
  spec(name: string): PluginSpec | undefined {
    return this.entries.get(name)?.spec;
  }

  /** A running plugin's process (for requests, events and bulk data). */
  process(name: string): PluginProcess | null {
    const proc = this.entries.get(name)?.run?.proc;
    return proc?.alive ? proc : null;
  }

  /** Call a method on a ready plugin, starting it first if it is lazy and idle, waiting while it starts. */
  async request(name: string, method: string, params?: unknown, timeoutMs?: number): Promise<unknown> {
    const e = this.entries.get(name);
    if (!e) throw new HomedError("not_found", `no plugin named ${name}`);
    if (e.state === "idle") this.launch(e);
    // Starting (lazily just now, or at boot): the call waits for it rather than failing.
    await this.settled(e);
    const proc = e.run?.proc;
    if (!proc?.alive || e.state !== "ready")
      throw new HomedError("unavailable", `plugin ${name} is ${e.state}: ${e.detail}`);
    e.inFlight++;
    try {
      return await proc.rpc.request(method, params, { timeoutMs });
    } finally {
      e.inFlight--;
      if (e.spec.manifest.lazy) this.armIdleStop(e);
    }
  }

  /**
   * A lazy plugin must keep running (it has work on a clock) or may be stopped when idle again.
   * The flag outlives its process (a crashed plugin restarts and says it again) and is handed
   * to the kernel to remember across daemon restarts.
   */
  keepRunning(name: string, on: boolean): void {
    const e = this.entries.get(name);
    if (!e?.spec.manifest.lazy || e.keepRunning === on) return;
    e.keepRunning = on;
    this.opts.log.info("plugin keep-running", { plugin: name, on });
    this.opts.onKeepRunning?.(name, on);
    if (on) e.timers.clear("idle");
    else if (e.state === "ready") this.armIdleStop(e);
  }

  /**
   * A person asked for a restart: crash history is forgotten, automatic restarts are re-armed,
   * and the plugin starts again now (stopping the running process first).
   */
  restart(name: string): PluginInfo {
    const e = this.entries.get(name);
    if (!e) throw new HomedError("not_found", `no plugin named ${name}`);
    if (e.state === "blocked" || e.state === "disabled")
      throw new HomedError("conflict", `${name} cannot start: ${e.detail}`);
    this.opts.log.info("plugin restart requested", { plugin: name, state: e.state });
    e.crashes = [];
    e.restarts++;
    e.timers.clearAll();
    e.restartAt = null;
    if (e.run?.proc.alive) this.stop(e, "restart", "restarting on request");
    else {
      this.transition(e, "restart-requested", "restart requested");
      this.launchReady();
    }
    return this.list().find((p) => p.name === name) as PluginInfo;
  }

  /**
   * Start a plugin that was disabled only because what it serves was not configured (its
   * `enabled_by` setting was empty and a reload filled it). Its facilities join the graph now.
   */
  enable(name: string): PluginInfo {
    const e = this.entries.get(name);
    if (!e) throw new HomedError("not_found", `no plugin named ${name}`);
    if (e.state !== "disabled") return this.list().find((p) => p.name === name) as PluginInfo;
    for (const f of e.spec.manifest.provides) this.providers.set(f, name);
    this.transition(e, "enabled", "enabled by a configuration reload");
    this.launchReady();
    return this.list().find((p) => p.name === name) as PluginInfo;
  }

  /** Send an event to one plugin, or to every running one with "*". */
  async emit(target: string, type: number, payload: Uint8Array): Promise<void> {
    const targets =
      target === "*" ? [...this.entries.values()] : [this.entries.get(target)].filter((e): e is Entry => !!e);
    for (const e of targets) {
      const run = e.run;
      if (run?.proc.alive && run.helloDone) await run.proc.link.emit(type, payload);
    }
  }

  /** Ask every plugin to exit, then kill what is left after `graceMs` (on the clock). */
  async stopAll(graceMs = STOP_GRACE_MS): Promise<void> {
    this.shuttingDown = true;
    this.timers.clearAll();
    const exits: Promise<void>[] = [];
    for (const e of this.entries.values()) {
      e.timers.clearAll();
      e.restartAt = null;
      if (e.run?.proc.alive) exits.push(this.stop(e, "shutdown", "stopping with the kernel", graceMs));
    }
    await Promise.all(exits);
  }

  // ——— internals ———

  /** Move `e` along the table in plugin-states.ts; a move the table lacks is a bug, said loudly. */
  private transition(e: Entry, move: PluginTransition, detail: string): void {
    const before = e.state;
    const to = nextState(before, move);
    if (to === null) {
      this.opts.log.error("plugin state transition not in the table", {
        plugin: e.spec.manifest.name,
        from: before,
        move,
      });
      return;
    }
    e.state = to;
    e.detail = detail;
    if (before === to) return;
    // Stopped after too many crashes, or failed on its configuration: it stays down until a
    // person acts, which is what a warning is for.
    const level = to === "stopped" || to === "failed" ? "warn" : "info";
    this.opts.log[level]("plugin state", { plugin: e.spec.manifest.name, state: to, detail });
    if (before === "starting") for (const wake of e.settleWaiters.splice(0)) wake();
  }

  /**
   * The one way the kernel stops a process: ask it to exit, SIGKILL it after `graceMs`.
   * Resolves when it has exited; `intent` decides what its exit means.
   */
  private stop(e: Entry, intent: StopIntent, detail: string, graceMs = STOP_GRACE_MS): Promise<void> {
    const run = e.run as PluginRun;
    run.stopIntent = intent;
    this.transition(e, "stop", detail);
    run.proc.rpc.notify(PluginMethod.Shutdown);
    e.timers.set("kill", graceMs, () => run.proc.kill("SIGKILL"));
    return run.proc.exitedPromise;
  }

  /** (Re)start the countdown after which an unused lazy plugin is stopped. */
  private armIdleStop(e: Entry): void {
    const ms = this.opts.idleStopMs ?? 5 * 60 * 1000;
    if (ms <= 0) return;
    e.timers.set("idle", ms, () => this.stopIfIdle(e, "idle"));
  }

  /** Stop a lazy plugin with nothing in flight; it goes back to idle and starts on its next use. */
  private stopIfIdle(e: Entry, detail: string): boolean {
    if (!e.spec.manifest.lazy || e.keepRunning || e.inFlight > 0 || e.state !== "ready" || !e.run?.proc.alive)
      return false;
    void this.stop(e, "idle", detail);
    return true;
  }

  /** Stop every lazy plugin that is running but not in use (to give memory back); their names. */
  stopIdleLazy(detail: string): string[] {
    return [...this.entries.values()].filter((e) => this.stopIfIdle(e, detail)).map((e) => e.spec.manifest.name);
  }

  /** Resolves once `e` is no longer starting (ready, crashed, stopped); the start timeout bounds it. */
  private settled(e: Entry): Promise<void> {
    if (e.state !== "starting") return Promise.resolve();
    return new Promise((resolve) => e.settleWaiters.push(resolve));
  }

  private launchReady(): void {
    if (this.shuttingDown) return;
    for (const e of this.entries.values()) {
      // A lazy plugin that must keep running starts like an eager one.
      if (e.state !== "waiting" && !(e.state === "idle" && e.keepRunning)) continue;
      const missing = e.spec.manifest.requires.filter((f) => !this.isFacilityReady(f));
      if (missing.length === 0) this.launch(e);
      else e.detail = `waiting for ${missing.join(", ")}`;
    }
  }

  private launch(e: Entry): void {
    const m = e.spec.manifest;
    const launch: PluginLaunch = {
      manifest: m,
      command: e.spec.command,
      cwd: e.spec.cwd,
      env: { ...this.opts.env, ...e.spec.env },
      segmentBytes: this.opts.segmentBytes,
      waitTimeoutMs: this.opts.bulkWaitMs,
      frameRate: this.opts.frameRate,
      maxFrameBytes: this.opts.maxFrameBytes,
      inlineBulkLimit: this.opts.inlineBulkLimit,
    };
    this.transition(e, "launch", "starting");
    let run: PluginRun | null = null;
    try {
      const proc = new PluginProcess(
        launch,
        {
          onRequest: (method, params) => answerPlugin(run as PluginRun, this.pluginHost, method, params),
          onEvent: (type, payload) => this.opts.onEvent?.(m.name, type, payload),
          onExit: (code, signal) => this.exited(e, code, signal),
        },
        this.opts.log,
      );
      run = new PluginRun(proc, m, e.spec.builtin, () => this.markReady(e));
    } catch (err) {
      // Could not even spawn (missing executable, no memory for the segment): a crash.
      this.opts.log.error("plugin failed to spawn", { plugin: m.name, err });
      this.crashed(e, `could not start: ${(err as Error).message}`);
      return;
    }
    e.run = run;
    e.detail = `started as pid ${run.proc.pid}`;
    e.timers.set("start", this.opts.startTimeoutMs, () => {
      if (e.state === "starting" && e.run?.proc.alive) {
        e.run.proc.stderrTail.push(`[homed: not ready after ${this.opts.startTimeoutMs} ms; killed]`);
        e.run.proc.kill("SIGKILL");
      }
    });
  }

  private markReady(e: Entry): void {
    const m = e.spec.manifest;
    if (e.state !== "starting" || !e.run?.complete) return;
    e.timers.clear("start");
    this.transition(e, "ready", m.provides.length ? `provides ${m.provides.join(", ")}` : "running");
    // A lazy plugin started without a request (it had to keep running) is stopped when idle once it may be.
    if (m.lazy && !e.keepRunning) this.armIdleStop(e);
    for (const f of m.provides) void this.broadcastFacility(f, true);
    this.launchReady();
  }

  private async broadcastFacility(facility: string, ready: boolean): Promise<void> {
    const payload = new TextEncoder().encode(JSON.stringify({ facility, ready }));
    await this.emit("*", EventType.FacilityChanged, payload).catch((err) =>
      this.opts.log.warn("facility event not delivered", { facility, err }),
    );
  }

  private exited(e: Entry, code: number | null, signal: string | null): void {
    const m = e.spec.manifest;
    const run = e.run;
    e.timers.clearAll();
    e.restartAt = null;
    e.lastStderr = run ? [...run.proc.stderrTail] : [];
    e.lastExit = { code, signal, at: new Date(this.opts.clock.now()).toISOString() };
    e.run = null;
    if (e.state === "ready") for (const f of run?.ready ?? []) void this.broadcastFacility(f, false);
    const intent = run?.stopIntent ?? null;
    this.opts.onPluginExit?.(m.name);
    this.opts.log.info("plugin exited", { plugin: m.name, code, signal, intent: intent ?? "crash" });
    if (intent === "shutdown" || this.shuttingDown)
      this.transition(e, "stopped-with-kernel", "stopped with the kernel");
    else if (intent === "restart") {
      this.transition(e, "stopped-for-restart", "restarting on request");
      this.launchReady();
    } else if (intent === "idle") this.transition(e, "stopped-idle", "stopped while idle; starts on next use");
    else if (code === PLUGIN_EXIT_CONFIG) {
      const last = e.lastStderr[e.lastStderr.length - 1] ?? "";
      this.transition(e, "config-error", `configuration error (exit 78); not restarted${last ? `: ${last}` : ""}`);
    } else this.crashed(e, signal ? `killed by ${signal}` : `exited with ${code}`);
  }

  private crashed(e: Entry, why: string): void {
    const now = this.opts.clock.now();
    const next = afterCrash(e.crashes, now);
    e.crashes = next.crashes;
    const name = e.spec.manifest.name;
    if (next.delayMs === null) {
      this.transition(
        e,
        "too-many-crashes",
        `${why}; crashed ${e.crashes.length} times in 5 minutes, automatic restarts stopped (homed plugin-restart ${name})`,
      );
      return;
    }
    const delay = next.delayMs;
    e.restartAt = now + delay;
    this.transition(e, "crash", `${why}; restarting in ${delay / 1000} s`);
    e.timers.set("restart", delay, () => {
      e.restartAt = null;
      if (e.state !== "restarting" || this.shuttingDown) return;
      e.restarts++;
      this.transition(e, "restart-due", "restarting");
      this.launchReady();
    });
  }

  private schedulePing(): void {
    this.timers.set("ping", this.opts.pingIntervalMs, () => {
      if (this.shuttingDown) return;
      for (const e of this.entries.values())
        if (e.state === "ready" && e.run?.proc.alive) pingPlugin(e, e.run, this.opts);
      this.schedulePing();
    });
  }
}
