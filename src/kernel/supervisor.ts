/**
 * Starts plugins as soon as what they require is ready, restarts them when they crash, and
 * answers what they ask of the kernel (DESIGN §3).
 *
 * Crash policy, from the original: restart after 1 s, 2 s, 3 s; the 4th crash within 5 minutes
 * stops automatic restarts until a person restarts the plugin. Exit status 78 (configuration
 * error) is never restarted. A plugin that does not become ready within the start timeout, or
 * stops answering pings, is killed and counts as crashed. A `critical` plugin that is not
 * ready makes the kernel fail closed on what it guards (see `failClosed`).
 */
import * as v from "valibot";
import { RpcError, HomedError } from "../protocol/errors.ts";
import { describeIssues, RpcErrorCode } from "../protocol/jsonrpc.ts";
import { EventType } from "../protocol/events.ts";
import {
  FacilityReadyParams,
  HelloParams,
  PLUGIN_EXIT_CONFIG,
  PLUGIN_PROTOCOL_VERSION,
  PluginMethod,
  RestartParams,
  type HelloResult,
  type PluginInfo,
  type PluginStateName,
} from "../protocol/plugin.ts";
import type { PluginManifest } from "../protocol/manifest.ts";
import type { RequestContext } from "../ipc/rpc-peer.ts";
import type { Clock } from "./clock.ts";
import type { Logger } from "./log.ts";
import { resolveGraph } from "./plugin-graph.ts";
import { afterCrash, crashesInWindow } from "../protocol/restart-policy.ts";
import { PluginProcess, type PluginLaunch } from "./plugin-process.ts";

export { CRASH_WINDOW_MS, MAX_CRASHES, RESTART_DELAYS_MS } from "../protocol/restart-policy.ts";

export interface PluginSpec {
  manifest: PluginManifest;
  builtin: boolean;
  command: string[];
  cwd: string;
  /** Set when the plugin cannot run at all (bad manifest, missing executable). */
  problem?: string;
  /** Set when configuration turns the plugin off; it is listed as disabled with this reason. */
  disabled?: string;
}

export interface SupervisorOptions {
  specs: PluginSpec[];
  kernelFacilities: readonly string[];
  clock: Clock;
  log: Logger;
  hello: () => HelloResult;
  /** Kernel methods plugins may call beyond the supervisor's own (e.g. kernel/status). */
  kernelMethods: Record<string, (params: unknown, plugin: string) => unknown>;
  onEvent?: (plugin: string, type: number, payload: Uint8Array) => void;
  /** A plugin process ended (any reason): what it registered with the kernel must go. */
  onPluginExit?: (plugin: string) => void;
  env: Record<string, string>;
  segmentBytes: number;
  /** How long a send to a plugin waits for room in its ring or arena (default 10 s). */
  bulkWaitMs?: number;
  frameRate: number;
  maxFrameBytes: number;
  inlineBulkLimit: number;
  startTimeoutMs: number;
  pingIntervalMs: number;
  /** Consecutive missed pings before a plugin is declared hung and killed. */
  pingMisses?: number;
  /** A lazy plugin unused this long is stopped (it starts again on next use). 0: never. */
  idleStopMs?: number;
}

interface Entry {
  spec: PluginSpec;
  state: PluginStateName;
  detail: string;
  proc: PluginProcess | null;
  helloDone: boolean;
  /** The plugin said plugin/ready (needed when it provides nothing). */
  saidReady: boolean;
  ready: Set<string>;
  crashes: number[];
  restarts: number;
  restartAt: number | null;
  timer: unknown;
  startTimer: unknown;
  lastExit: PluginInfo["lastExit"];
  /** Why the kernel itself is stopping this process (then its exit is not a crash). */
  stopIntent: "shutdown" | "restart" | "idle" | null;
  missedPings: number;
  lastStderr: string[];
  /** Lazy plugins: requests in flight, and the timer that stops the plugin once idle. */
  inFlight: number;
  idleTimer: unknown;
}

export class Supervisor {
  private readonly entries = new Map<string, Entry>();
  private readonly providers = new Map<string, string>();
  private pingTimer: unknown = null;
  private shuttingDown = false;

  constructor(private readonly opts: SupervisorOptions) {
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
      this.entries.set(name, {
        spec,
        state: spec.disabled ? "disabled" : problem ? "blocked" : spec.manifest.lazy ? "idle" : "waiting",
        detail: spec.disabled ?? problem ?? (spec.manifest.lazy ? "starts on first use" : "waiting for its facilities"),
        proc: null,
        helloDone: false,
        saidReady: false,
        ready: new Set(),
        crashes: [],
        restarts: 0,
        restartAt: null,
        timer: null,
        startTimer: null,
        lastExit: null,
        stopIntent: null,
        missedPings: 0,
        lastStderr: [],
        inFlight: 0,
        idleTimer: null,
      });
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
    return !!e && e.state === "ready" && e.ready.has(facility);
  }

  isBuiltin(name: string): boolean {
    return this.entries.get(name)?.spec.builtin ?? false;
  }

  isCritical(name: string): boolean {
    return this.entries.get(name)?.spec.manifest.critical ?? false;
  }

  /** Critical plugins that are not ready: while non-empty, guarded actions must be denied. */
  failClosed(): string[] {
    return [...this.entries.values()].filter((e) => e.spec.manifest.critical && e.state !== "ready").map((e) => e.spec.manifest.name);
  }

  get allSettled(): boolean {
    return [...this.entries.values()].every((e) => e.state !== "starting" && e.state !== "waiting");
  }

  list(): PluginInfo[] {
    const now = this.opts.clock.now();
    return [...this.entries.values()].map((e) => {
      const m = e.spec.manifest;
      let detail = e.detail;
      if (e.state === "restarting" && e.restartAt !== null) detail = `restarting in ${Math.max(0, Math.ceil((e.restartAt - now) / 1000))} s`;
      return {
        name: m.name,
        builtin: e.spec.builtin,
        transport: m.transport,
        state: e.state,
        detail,
        pid: e.proc?.alive ? e.proc.pid : null,
        critical: m.critical,
        lazy: m.lazy,
        provides: m.provides,
        requires: m.requires,
        ready: [...e.ready],
        restarts: e.restarts,
        crashesInWindow: crashesInWindow(e.crashes, now),
        restartAt: e.restartAt === null ? null : new Date(e.restartAt).toISOString(),
        lastExit: e.lastExit,
        stderrTail: e.proc ? [...e.proc.stderrTail] : [...e.lastStderr],
        startedAt: e.proc ? e.proc.startedAt.toISOString() : null,
        badFrames: e.proc?.badFrames ?? 0,
      };
    });
  }

  /** A running plugin's process (for requests, events and bulk data). */
  process(name: string): PluginProcess | null {
    const e = this.entries.get(name);
    return e?.proc?.alive ? e.proc : null;
  }

  /** Call a method on a ready plugin, starting it first if it is lazy and idle. */
  async request(name: string, method: string, params?: unknown, timeoutMs?: number): Promise<unknown> {
    const e = this.entries.get(name);
    if (!e) throw new HomedError("invalid_params", `no plugin named ${name}`);
    if (e.state === "idle") {
      this.launch(e);
      await this.waitReady(e, this.opts.startTimeoutMs);
    }
    if (!e.proc?.alive || e.state !== "ready") throw new HomedError("invalid_params", `plugin ${name} is ${e.state}: ${e.detail}`);
    e.inFlight++;
    try {
      return await e.proc.rpc.request(method, params, { timeoutMs });
    } finally {
      e.inFlight--;
      if (e.spec.manifest.lazy) this.armIdleStop(e);
    }
  }

  /** (Re)start the countdown after which an unused lazy plugin is stopped. */
  private armIdleStop(e: Entry): void {
    const ms = this.opts.idleStopMs ?? 5 * 60 * 1000;
    if (ms <= 0) return;
    if (e.idleTimer !== null) this.opts.clock.clearTimeout(e.idleTimer);
    e.idleTimer = this.opts.clock.setTimeout(() => {
      e.idleTimer = null;
      this.stopIdle(e, "idle");
    }, ms);
  }

  /**
   * Stop a lazy plugin that has nothing in flight; it goes back to `idle` and starts again on its
   * next use. False when it is busy, not running, or not lazy.
   */
  private stopIdle(e: Entry, detail: string): boolean {
    if (!e.spec.manifest.lazy || e.inFlight > 0 || e.state !== "ready" || !e.proc?.alive) return false;
    if (e.idleTimer !== null) this.opts.clock.clearTimeout(e.idleTimer);
    e.idleTimer = null;
    e.stopIntent = "idle";
    this.setState(e, "stopping", detail);
    e.proc.rpc.notify(PluginMethod.Shutdown);
    const proc = e.proc;
    e.timer = this.opts.clock.setTimeout(() => proc.kill("SIGKILL"), 3000);
    return true;
  }

  /** Stop every lazy plugin that is running but not in use (to give memory back); their names. */
  stopIdleLazy(detail: string): string[] {
    return [...this.entries.values()].filter((e) => this.stopIdle(e, detail)).map((e) => e.spec.manifest.name);
  }

  /**
   * A person asked for a restart: crash history is forgotten, automatic restarts are re-armed,
   * and the plugin starts again now (stopping the running process first).
   */
  restart(name: string): PluginInfo {
    const e = this.entries.get(name);
    if (!e) throw new HomedError("invalid_params", `no plugin named ${name}`);
    if (e.state === "blocked" || e.state === "disabled") throw new HomedError("invalid_params", `${name} cannot start: ${e.detail}`);
    this.opts.log.info("plugin restart requested", { plugin: name, state: e.state });
    e.crashes = [];
    e.restarts++;
    this.cancelTimers(e);
    if (e.proc?.alive) {
      e.stopIntent = "restart";
      this.setState(e, "stopping", "restarting on request");
      e.proc.rpc.notify(PluginMethod.Shutdown);
      const proc = e.proc;
      e.timer = this.opts.clock.setTimeout(() => proc.kill("SIGKILL"), 3000);
    } else {
      this.setState(e, "waiting", "restart requested");
      this.launchReady();
    }
    return this.list().find((p) => p.name === name) as PluginInfo;
  }

  /** Send an event to one plugin, or to every running one with "*". */
  async emit(target: string, type: number, payload: Uint8Array): Promise<void> {
    const targets = target === "*" ? [...this.entries.values()] : [this.entries.get(target)].filter((e): e is Entry => !!e);
    for (const e of targets) {
      if (e.proc?.alive && e.helloDone) await e.proc.emit(type, payload);
    }
  }

  /** Ask every plugin to exit, then kill what is left after `graceMs`. */
  async stopAll(graceMs = 3000): Promise<void> {
    this.shuttingDown = true;
    if (this.pingTimer !== null) this.opts.clock.clearTimeout(this.pingTimer);
    const running: PluginProcess[] = [];
    for (const e of this.entries.values()) {
      this.cancelTimers(e);
      if (e.proc?.alive) {
        e.stopIntent = "shutdown";
        e.proc.rpc.notify(PluginMethod.Shutdown);
        running.push(e.proc);
      }
    }
    if (running.length === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<void>((r) => (timer = setTimeout(r, graceMs)));
    await Promise.race([Promise.all(running.map((p) => p.exitedPromise)), deadline]);
    clearTimeout(timer);
    for (const p of running) p.kill("SIGKILL");
    await Promise.all(running.map((p) => p.exitedPromise));
  }

  // ——— internals ———

  private setState(e: Entry, state: PluginStateName, detail: string): void {
    const before = e.state;
    e.state = state;
    e.detail = detail;
    if (before !== state) this.opts.log.info("plugin state", { plugin: e.spec.manifest.name, state, detail });
  }

  private cancelTimers(e: Entry): void {
    if (e.timer !== null) this.opts.clock.clearTimeout(e.timer);
    if (e.startTimer !== null) this.opts.clock.clearTimeout(e.startTimer);
    if (e.idleTimer !== null) this.opts.clock.clearTimeout(e.idleTimer);
    e.timer = null;
    e.startTimer = null;
    e.idleTimer = null;
    e.restartAt = null;
  }

  private launchReady(): void {
    if (this.shuttingDown) return;
    for (const e of this.entries.values()) {
      if (e.state !== "waiting") continue;
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
      env: this.opts.env,
      segmentBytes: this.opts.segmentBytes,
      waitTimeoutMs: this.opts.bulkWaitMs,
      frameRate: this.opts.frameRate,
      maxFrameBytes: this.opts.maxFrameBytes,
      inlineBulkLimit: this.opts.inlineBulkLimit,
    };
    e.helloDone = false;
    e.saidReady = false;
    e.ready = new Set();
    e.stopIntent = null;
    e.missedPings = 0;
    try {
      e.proc = new PluginProcess(
        launch,
        {
          onRequest: (method, params, ctx) => this.handle(e, method, params, ctx),
          onEvent: (type, payload) => this.opts.onEvent?.(m.name, type, payload),
          onExit: (code, signal) => this.exited(e, code, signal),
        },
        this.opts.log,
      );
    } catch (err) {
      // Could not even spawn (missing executable, no memory for the segment): a crash.
      this.opts.log.error("plugin failed to spawn", { plugin: m.name, err });
      e.proc = null;
      this.crashed(e, `could not start: ${(err as Error).message}`);
      return;
    }
    this.setState(e, "starting", `started as pid ${e.proc.pid}`);
    e.startTimer = this.opts.clock.setTimeout(() => {
      e.startTimer = null;
      if (e.state === "starting" && e.proc?.alive) {
        e.proc.stderrTail.push(`[homed: not ready after ${this.opts.startTimeoutMs} ms; killed]`);
        e.proc.kill("SIGKILL");
      }
    }, this.opts.startTimeoutMs);
  }

  private waitReady(e: Entry, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const t0 = Date.now();
      const check = () => {
        if (e.state === "ready") resolve();
        else if (e.state !== "starting" || Date.now() - t0 > timeoutMs) reject(new HomedError("invalid_params", `plugin ${e.spec.manifest.name} did not become ready: ${e.detail}`));
        else setTimeout(check, 5);
      };
      check();
    });
  }

  private markReady(e: Entry): void {
    const m = e.spec.manifest;
    if (e.state !== "starting" || !e.helloDone || !m.provides.every((f) => e.ready.has(f))) return;
    if (m.provides.length === 0 && !e.saidReady) return;
    if (e.startTimer !== null) this.opts.clock.clearTimeout(e.startTimer);
    e.startTimer = null;
    this.setState(e, "ready", m.provides.length ? `provides ${m.provides.join(", ")}` : "running");
    for (const f of m.provides) void this.broadcastFacility(f, true);
    this.launchReady();
  }

  private async broadcastFacility(facility: string, ready: boolean): Promise<void> {
    const payload = new TextEncoder().encode(JSON.stringify({ facility, ready }));
    await this.emit("*", EventType.FacilityChanged, payload).catch((err) => this.opts.log.warn("facility event not delivered", { facility, err }));
  }

  private exited(e: Entry, code: number | null, signal: string | null): void {
    const m = e.spec.manifest;
    this.cancelTimers(e);
    e.lastStderr = e.proc ? [...e.proc.stderrTail] : [];
    e.lastExit = { code, signal, at: new Date(this.opts.clock.now()).toISOString() };
    const wasReady = e.state === "ready";
    e.proc = null;
    e.helloDone = false;
    const lost = [...e.ready];
    e.ready = new Set();
    if (wasReady) for (const f of lost) void this.broadcastFacility(f, false);
    const intent = e.stopIntent;
    e.stopIntent = null;
    this.opts.onPluginExit?.(m.name);
    this.opts.log.info("plugin exited", { plugin: m.name, code, signal, intent: intent ?? "crash" });
    if (intent === "shutdown" || this.shuttingDown) {
      this.setState(e, "exited", "stopped with the kernel");
      return;
    }
    if (intent === "restart") {
      this.setState(e, "waiting", "restarting on request");
      this.launchReady();
      return;
    }
    if (intent === "idle") {
      this.setState(e, "idle", "stopped while idle; starts on next use");
      return;
    }
    if (code === PLUGIN_EXIT_CONFIG) {
      const last = e.lastStderr[e.lastStderr.length - 1] ?? "";
      this.setState(e, "failed", `configuration error (exit 78); not restarted${last ? `: ${last}` : ""}`);
      return;
    }
    this.crashed(e, signal ? `killed by ${signal}` : `exited with ${code}`);
  }

  private crashed(e: Entry, why: string): void {
    const now = this.opts.clock.now();
    const next = afterCrash(e.crashes, now);
    e.crashes = next.crashes;
    const name = e.spec.manifest.name;
    if (next.delayMs === null) {
      this.setState(e, "stopped", `${why}; crashed ${e.crashes.length} times in 5 minutes, automatic restarts stopped (homed plugin-restart ${name})`);
      return;
    }
    const delay = next.delayMs;
    e.restartAt = now + delay;
    this.setState(e, "restarting", `${why}; restarting in ${delay / 1000} s`);
    e.timer = this.opts.clock.setTimeout(() => {
      e.timer = null;
      e.restartAt = null;
      if (e.state !== "restarting" || this.shuttingDown) return;
      e.restarts++;
      this.setState(e, "waiting", "restarting");
      this.launchReady();
    }, delay);
  }

  private schedulePing(): void {
    this.pingTimer = this.opts.clock.setTimeout(() => {
      if (this.shuttingDown) return;
      for (const e of this.entries.values()) if (e.state === "ready" && e.proc?.alive) void this.ping(e, e.proc);
      this.schedulePing();
    }, this.opts.pingIntervalMs);
  }

  private async ping(e: Entry, proc: PluginProcess): Promise<void> {
    try {
      await proc.rpc.request(PluginMethod.Ping, undefined, { timeoutMs: Math.max(100, this.opts.pingIntervalMs / 2) });
      e.missedPings = 0;
    } catch {
      if (proc !== e.proc || !proc.alive) return;
      e.missedPings++;
      if (e.missedPings >= (this.opts.pingMisses ?? 3)) {
        proc.stderrTail.push(`[homed: ${e.missedPings} pings unanswered; killed as hung]`);
        this.opts.log.warn("plugin hung; killing it", { plugin: e.spec.manifest.name, missed: e.missedPings });
        proc.kill("SIGKILL");
      }
    }
  }

  /** Requests a plugin makes of the kernel. */
  private handle(e: Entry, method: string, params: unknown, _ctx: RequestContext): unknown {
    const name = e.spec.manifest.name;
    const parse = <S extends v.GenericSchema>(schema: S): v.InferOutput<S> => {
      const r = v.safeParse(schema, params);
      if (!r.success) throw new HomedError("invalid_params", describeIssues(r.issues));
      return r.output;
    };
    if (method === PluginMethod.Hello) {
      const p = parse(HelloParams);
      if (p.name !== name) throw new HomedError("invalid_params", `this is plugin ${name}, not ${p.name}`);
      if (p.protocol !== PLUGIN_PROTOCOL_VERSION) throw new HomedError("invalid_params", `protocol ${p.protocol} unsupported; this kernel speaks ${PLUGIN_PROTOCOL_VERSION}`);
      e.helloDone = true;
      return this.opts.hello();
    }
    if (!e.helloDone) throw new RpcError(RpcErrorCode.InvalidRequest, `${method} before ${PluginMethod.Hello}`);
    switch (method) {
      case PluginMethod.FacilityReady: {
        const { facility } = parse(FacilityReadyParams);
        if (!e.spec.manifest.provides.includes(facility)) throw new HomedError("invalid_params", `${name} does not declare ${facility} in provides`);
        e.ready.add(facility);
        queueMicrotask(() => this.markReady(e));
        return { ok: true };
      }
      case PluginMethod.Ready:
        e.saidReady = true;
        queueMicrotask(() => this.markReady(e));
        return { ok: true };
      case PluginMethod.List:
        return this.list();
      case PluginMethod.Restart:
        return this.restart(parse(RestartParams).name);
    }
    const fn = this.opts.kernelMethods[method];
    if (!fn) throw new RpcError(RpcErrorCode.MethodNotFound, `unknown method: ${method}`);
    return fn(params, name);
  }
}
