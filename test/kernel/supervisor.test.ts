/**
 * The supervisor with real plugin processes and an injected clock, so the crash policy's
 * seconds and five-minute window are checked without waiting for them.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Supervisor, type SupervisorOptions } from "../../src/kernel/plugins/supervisor.ts";
import { externalSpecs } from "../../src/kernel/plugins/catalog.ts";
import { KERNEL_FACILITIES } from "../../src/kernel/plugins/graph.ts";
import { createLogger, createLogSink } from "../../src/kernel/log.ts";
import type { PluginInfo, PluginStateName } from "../../src/protocol/plugin.ts";
import { PLUGIN_TRANSITIONS } from "../../src/kernel/plugins/states.ts";
import type { Logger } from "../../src/kernel/log.ts";
import { FakeClock } from "../harness/fake-clock.ts";
import { installBunPlugin, installPlugin, FIXTURES } from "../harness/plugins.ts";
import { tempDir } from "../harness/binary.ts";

const running: { s: Supervisor; clock: FakeClock }[] = [];
afterEach(async () => {
  // The grace before SIGKILL is on the test's clock: give plugins a real second, then move it.
  for (const { s, clock } of running.splice(0)) {
    const stopped = s.stopAll(1000);
    await Promise.race([stopped, Bun.sleep(1000)]);
    clock.advance(1000);
    await stopped;
  }
});

function supervise(dataDir: string, clock: FakeClock, extra: Partial<SupervisorOptions> = {}): Supervisor {
  const s = new Supervisor({
    specs: externalSpecs(join(dataDir, "plugins")),
    kernelFacilities: KERNEL_FACILITIES,
    clock,
    log: createLogger(createLogSink("error")),
    hello: () => ({
      kernelVersion: "test",
      dataDir,
      listen: "127.0.0.1:0",
      logLevel: "warn",
      inlineBulkLimit: 4 << 20,
    }),
    kernelMethods: {},
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root" },
    segmentBytes: 8 << 20,
    frameRate: 100_000,
    maxFrameBytes: 16 << 20,
    inlineBulkLimit: 4 << 20,
    startTimeoutMs: 20_000,
    pingIntervalMs: 0,
    ...extra,
  });
  running.push({ s, clock });
  s.start();
  return s;
}

function info(s: Supervisor, name: string): PluginInfo {
  return s.list().find((p) => p.name === name) as PluginInfo;
}

/** Wait (polling the public state) until `pred` holds; fail with the state after `ms`. */
async function until(s: Supervisor, name: string, pred: (p: PluginInfo) => boolean, ms = 10_000): Promise<PluginInfo> {
  const t0 = Date.now();
  for (;;) {
    const p = info(s, name);
    if (pred(p)) return p;
    if (Date.now() - t0 > ms)
      throw new Error(`timed out; ${name} is ${p.state}: ${p.detail}\n${p.stderrTail.join("\n")}`);
    await Bun.sleep(5);
  }
}

const isReady = (p: PluginInfo) => p.state === "ready";

describe("crash policy", () => {
  test("restarts after 1 s, 2 s, 3 s; the 4th crash within 5 minutes stops restarts; a person's restart re-arms them", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "echo", "echo.ts", { provides: ["tool.echo"] });
    const clock = new FakeClock();
    const s = supervise(dir.path, clock);
    let p = await until(s, "echo", isReady);
    for (const delay of [1000, 2000, 3000]) {
      process.kill(p.pid as number, "SIGKILL");
      p = await until(s, "echo", (x) => x.state === "restarting");
      expect(p.lastExit?.signal).toBe("SIGKILL");
      expect(clock.pending()).toEqual([delay]);
      expect(p.detail).toBe(`restarting in ${delay / 1000} s`);
      clock.advance(delay - 1);
      expect(info(s, "echo").state).toBe("restarting");
      clock.advance(1);
      p = await until(s, "echo", isReady);
    }
    expect(p.restarts).toBe(3);
    process.kill(p.pid as number, "SIGKILL");
    p = await until(s, "echo", (x) => x.state === "stopped");
    expect(p.crashesInWindow).toBe(4);
    expect(p.detail).toContain("homed plugin-restart echo");
    expect(clock.pending()).toEqual([]);
    clock.advance(60 * 60 * 1000);
    expect(info(s, "echo").state).toBe("stopped");

    s.restart("echo");
    p = await until(s, "echo", isReady);
    expect(p.crashesInWindow).toBe(0);
    process.kill(p.pid as number, "SIGKILL");
    await until(s, "echo", (x) => x.state === "restarting");
    expect(clock.pending()).toEqual([1000]);
  });

  test("crashes older than five minutes no longer count", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "echo", "echo.ts");
    const clock = new FakeClock();
    const s = supervise(dir.path, clock);
    let p = await until(s, "echo", isReady);
    for (const delay of [1000, 2000]) {
      process.kill(p.pid as number, "SIGKILL");
      await until(s, "echo", (x) => x.state === "restarting");
      clock.advance(delay);
      p = await until(s, "echo", isReady);
    }
    clock.advance(5 * 60 * 1000);
    process.kill(p.pid as number, "SIGKILL");
    p = await until(s, "echo", (x) => x.state === "restarting");
    expect(p.crashesInWindow).toBe(1);
    expect(clock.pending()).toEqual([1000]);
  });

  test("exit 78 means a configuration error: failed, never restarted", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "echo", "echo.ts", {}, ["--exit", "78"]);
    const clock = new FakeClock();
    const s = supervise(dir.path, clock);
    const p = await until(s, "echo", (x) => x.state === "failed");
    expect(p.lastExit?.code).toBe(78);
    expect(p.detail).toContain("exiting with 78 as asked");
    expect(clock.pending()).toEqual([]);
  });

  test("any other exit status is a crash", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "echo", "echo.ts", {}, ["--exit", "3"]);
    const s = supervise(dir.path, new FakeClock());
    const p = await until(s, "echo", (x) => x.state === "restarting");
    expect(p.lastExit?.code).toBe(3);
  });

  test("a plugin that never becomes ready is killed at the start timeout and counts as a crash", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "echo", "echo.ts", { provides: ["tool.echo"] }, ["--no-ready"]);
    const clock = new FakeClock();
    const s = supervise(dir.path, clock, { startTimeoutMs: 5000 });
    await until(
      s,
      "echo",
      (x) => x.state === "starting" && x.stderrTail.some((l) => l.includes("plugin=echo")) === false && x.pid !== null,
    );
    expect(clock.pending()).toEqual([5000]);
    clock.advance(5000);
    const p = await until(s, "echo", (x) => x.state === "restarting");
    expect(p.lastExit?.signal).toBe("SIGKILL");
    expect(p.stderrTail.join("\n")).toContain("not ready after 5000 ms");
  });

  test("a plugin that stops answering pings is killed as hung", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "echo", "echo.ts", {}, ["--hang-pings"]);
    const clock = new FakeClock();
    const s = supervise(dir.path, clock, { pingIntervalMs: 200, pingMisses: 3 });
    await until(s, "echo", isReady);
    // Ping rounds until the kernel gives up on it (the first ping may still be answered in the
    // instant before the plugin stops its event loop); each ping's reply timeout is real time.
    for (let i = 0; i < 20 && info(s, "echo").state === "ready"; i++) {
      clock.advance(200);
      await Bun.sleep(150);
    }
    const p = await until(s, "echo", (x) => x.state === "restarting");
    expect(p.stderrTail.join("\n")).toContain("pings unanswered; killed as hung");
  });
});

describe("facilities and start order", () => {
  test("a plugin starts only once what it requires is ready; missing and cyclic requirements are blocked and named", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "provider", "echo.ts", { provides: ["tool.a"] }, ["--no-ready"]);
    installBunPlugin(dir.path, "consumer", "echo.ts", { requires: ["tool.a"] });
    installBunPlugin(dir.path, "orphan", "echo.ts", { requires: ["tool.nowhere"] });
    installBunPlugin(dir.path, "d", "echo.ts", { provides: ["cyc.d"], requires: ["cyc.e"] });
    installBunPlugin(dir.path, "e", "echo.ts", { provides: ["cyc.e"], requires: ["cyc.d"] });
    installPlugin(dir.path, "broken", { exec: "/nonexistent/binary" });
    const clock = new FakeClock();
    const s = supervise(dir.path, clock, { startTimeoutMs: 60_000 });
    await until(s, "provider", (x) => x.state === "starting");
    expect(info(s, "consumer").state).toBe("waiting");
    expect(info(s, "consumer").detail).toBe("waiting for tool.a");
    expect(info(s, "orphan").state).toBe("blocked");
    expect(info(s, "orphan").detail).toBe("orphan requires tool.nowhere, which nothing provides");
    expect(info(s, "d").state).toBe("blocked");
    expect(info(s, "d").detail).toMatch(/dependency cycle: (d -> e -> d|e -> d -> e)/);
    expect(info(s, "broken").state).toBe("blocked");
    expect(info(s, "broken").detail).toContain("does not exist");
    expect(s.isFacilityReady("tool.a")).toBe(false);
    // The provider never announces tool.a, so the consumer is still not launched.
    await Bun.sleep(200);
    expect(info(s, "consumer").state).toBe("waiting");
    expect(info(s, "consumer").pid).toBeNull();
  });

  test("independent plugins start in parallel and a dependent follows its provider", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "a", "echo.ts", { provides: ["tool.a"] });
    installBunPlugin(dir.path, "b", "echo.ts", { provides: ["tool.b"] });
    installBunPlugin(dir.path, "c", "echo.ts", { requires: ["tool.a", "tool.b"] });
    const s = supervise(dir.path, new FakeClock());
    // a and b are launched together at start; c only after both are ready.
    expect(info(s, "a").state).toBe("starting");
    expect(info(s, "b").state).toBe("starting");
    expect(info(s, "c").state).toBe("waiting");
    const c = await until(s, "c", isReady);
    const a = info(s, "a");
    const b = info(s, "b");
    expect(Date.parse(c.startedAt as string)).toBeGreaterThanOrEqual(
      Math.max(Date.parse(a.startedAt as string), Date.parse(b.startedAt as string)),
    );
    expect(s.isFacilityReady("tool.a") && s.isFacilityReady("tool.b")).toBe(true);
  });

  test("a critical plugin that is down makes the kernel fail closed until it is back", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "policy", "echo.ts", { critical: true, provides: ["policy.tools"] });
    const clock = new FakeClock();
    const s = supervise(dir.path, clock);
    expect(s.failClosed()).toEqual(["policy"]); // not ready yet: closed from the start
    const p = await until(s, "policy", isReady);
    expect(s.failClosed()).toEqual([]);
    process.kill(p.pid as number, "SIGKILL");
    await until(s, "policy", (x) => x.state === "restarting");
    expect(s.failClosed()).toEqual(["policy"]);
    expect(s.isFacilityReady("policy.tools")).toBe(false);
    clock.advance(1000);
    await until(s, "policy", isReady);
    expect(s.failClosed()).toEqual([]);
  });

  test("a lazy plugin stays idle until its first use, and is stopped again when unused", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "lazy", "echo.ts", { lazy: true });
    const clock = new FakeClock();
    const s = supervise(dir.path, clock, { idleStopMs: 60_000 });
    expect(info(s, "lazy").state).toBe("idle");
    expect(info(s, "lazy").pid).toBeNull();
    expect(await s.request("lazy", "echo/ping")).toBe("pong");
    const pid = info(s, "lazy").pid;
    expect(info(s, "lazy").state).toBe("ready");
    clock.advance(59_999);
    expect(await s.request("lazy", "echo/ping")).toBe("pong"); // used again: the countdown restarts
    clock.advance(59_999);
    expect(info(s, "lazy").state).toBe("ready");
    clock.advance(1);
    const idle = await until(s, "lazy", (x) => x.state === "idle");
    expect(idle.detail).toBe("stopped while idle; starts on next use");
    expect(idle.crashesInWindow).toBe(0);
    expect(await s.request("lazy", "echo/ping")).toBe("pong");
    expect(info(s, "lazy").pid).not.toBe(pid);
  });

  test("a request to a plugin still starting waits for it instead of failing", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "echo", "echo.ts", {});
    const s = supervise(dir.path, new FakeClock());
    expect(info(s, "echo").state).toBe("starting");
    expect(await s.request("echo", "echo/ping")).toBe("pong");
  });

  test("a lazy plugin that must keep running is not stopped when idle, starts at boot, and is stopped once it may be", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "lazy", "echo.ts", { lazy: true });
    const clock = new FakeClock();
    const said: [string, boolean][] = [];
    const s = supervise(dir.path, clock, { idleStopMs: 1000, onKeepRunning: (n, on) => said.push([n, on]) });
    const keep = (on: boolean) => s.request("lazy", "echo/call", { method: "plugin/keep-running", params: { on } });
    await keep(true);
    expect(said).toEqual([["lazy", true]]);
    clock.advance(10_000);
    expect(s.stopIdleLazy("memory")).toEqual([]); // not even to give memory back
    expect(info(s, "lazy").state).toBe("ready");
    await keep(false);
    expect(said).toEqual([
      ["lazy", true],
      ["lazy", false],
    ]);
    clock.advance(1000);
    await until(s, "lazy", (x) => x.state === "idle");

    // The next daemon is told which lazy plugins last said they must keep running.
    const clock2 = new FakeClock();
    const s2 = supervise(dir.path, clock2, { idleStopMs: 1000, keepRunning: ["lazy"] });
    await until(s2, "lazy", isReady);
  });

  test("a plugin that floods the kernel is rate-limited and the kernel keeps answering", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "flood", "echo.ts");
    const s = supervise(dir.path, new FakeClock(), { frameRate: 500 });
    await until(s, "flood", isReady);
    const r = (await s.request("flood", "echo/flood", { count: 5000 })) as { ok: number; limited: number };
    expect(r.ok + r.limited).toBe(5000);
    expect(r.ok).toBeGreaterThanOrEqual(1000); // the burst allowance (2 × rate) went through
    expect(r.limited).toBeGreaterThan(2000);
    expect(await s.request("flood", "echo/ping")).toBe("pong");
  });
});

describe("the state machine", () => {
  /** A logger that keeps the supervisor's "plugin state" lines and its complaints. */
  function recordingLog(states: Map<string, PluginStateName[]>, complaints: string[]): Logger {
    const log: Logger = {
      debug: () => {},
      info: (msg, f) => {
        if (msg === "plugin state") states.get(f?.plugin as string)?.push(f?.state as PluginStateName);
      },
      warn: (msg, f) => log.info(msg, f),
      error: (msg, f) => complaints.push(`${msg} ${JSON.stringify(f)}`),
      raw: () => {},
      with: () => log,
    };
    return log;
  }

  test("every state change a plugin goes through is a move of the transition table", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "echo", "echo.ts", { provides: ["tool.echo"] });
    installBunPlugin(dir.path, "lazy", "echo.ts", { lazy: true });
    const states = new Map<string, PluginStateName[]>([
      ["echo", ["waiting"]],
      ["lazy", ["idle"]],
    ]);
    const complaints: string[] = [];
    const clock = new FakeClock();
    const s = supervise(dir.path, clock, { log: recordingLog(states, complaints), idleStopMs: 1000 });
    let p = await until(s, "echo", isReady);
    process.kill(p.pid as number, "SIGKILL"); // crash → restarting → waiting → starting → ready
    await until(s, "echo", (x) => x.state === "restarting");
    clock.advance(1000);
    p = await until(s, "echo", isReady);
    s.restart("echo"); // ready → stopping → waiting → starting → ready
    await until(s, "echo", (x) => isReady(x) && x.pid !== p.pid);
    expect(await s.request("lazy", "echo/ping")).toBe("pong"); // idle → starting → ready
    clock.advance(1000); // → stopping → idle
    await until(s, "lazy", (x) => x.state === "idle");
    await s.stopAll(1000); // ready → stopping → exited
    expect(complaints).toEqual([]);
    const moves = Object.values(PLUGIN_TRANSITIONS) as { from: readonly PluginStateName[]; to: PluginStateName }[];
    for (const [name, seen] of states) {
      for (let i = 1; i < seen.length; i++) {
        const [from, to] = [seen[i - 1] as PluginStateName, seen[i] as PluginStateName];
        expect({ plugin: name, from, to, allowed: moves.some((m) => m.to === to && m.from.includes(from)) }).toEqual({
          plugin: name,
          from,
          to,
          allowed: true,
        });
      }
    }
    expect(states.get("echo")).toEqual([
      "waiting",
      "starting",
      "ready",
      "restarting",
      "waiting",
      "starting",
      "ready",
      "stopping",
      "waiting",
      "starting",
      "ready",
      "stopping",
      "exited",
    ]);
    expect(states.get("lazy")).toEqual(["idle", "starting", "ready", "stopping", "idle"]);
  });

  test("stopping waits out its grace on the clock, then kills what did not exit", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "hung", "echo.ts", {}, ["--hang-pings"]);
    installBunPlugin(dir.path, "echo", "echo.ts");
    const clock = new FakeClock();
    const s = supervise(dir.path, clock);
    // Its last line before it blocks its event loop for good.
    await until(s, "hung", (x) => isReady(x) && x.stderrTail.some((l) => l.includes("echo hangs now")));
    await until(s, "echo", isReady);
    let stopped = false;
    const stopping = s.stopAll(3000).then(() => (stopped = true));
    await until(s, "echo", (x) => x.state === "exited"); // it obeyed at once
    expect(clock.pending()).toEqual([3000]); // the hung one's SIGKILL grace, and nothing else
    await Bun.sleep(300);
    expect(stopped).toBe(false);
    expect(info(s, "hung").state).toBe("stopping");
    clock.advance(3000);
    await stopping;
    expect(info(s, "hung")).toMatchObject({ state: "exited", lastExit: { signal: "SIGKILL" } });
  });
});

describe("what plugins may ask of the supervisor", () => {
  test("a plugin may restart itself; only a built-in plugin may restart another", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "a", "echo.ts");
    installBunPlugin(dir.path, "b", "echo.ts");
    installBunPlugin(dir.path, "admin", "echo.ts");
    const specs = externalSpecs(join(dir.path, "plugins")).map((s) =>
      s.manifest.name === "admin" ? { ...s, builtin: true } : s,
    );
    const s = supervise(dir.path, new FakeClock(), { specs });
    for (const n of ["a", "b", "admin"]) await until(s, n, isReady);
    const bPid = info(s, "b").pid;
    const restartB = { method: "plugins/restart", params: { name: "b" } };
    await expect(s.request("a", "echo/call", restartB)).rejects.toThrow(
      "restarting another plugin is reserved to built-in plugins; a is not one",
    );
    expect(info(s, "b")).toMatchObject({ state: "ready", pid: bPid, restarts: 0 });
    // The built-in one (as the web plugin's restart button) may.
    expect(await s.request("admin", "echo/call", restartB)).toMatchObject({ name: "b", restarts: 1 });
    expect((await until(s, "b", (x) => isReady(x) && x.pid !== bPid)).restarts).toBe(1);
    // Any plugin may restart itself (it is asked to exit before the reply reaches it).
    const aPid = info(s, "a").pid;
    await s.request("a", "echo/call", { method: "plugins/restart", params: { name: "a" } }).catch(() => null);
    expect((await until(s, "a", (x) => isReady(x) && x.pid !== aPid)).restarts).toBe(1);
  });
});

describe("bulk data and events", () => {
  for (const transport of ["shm", "stdio"] as const) {
    test(`${transport}: bulk both ways, checksummed, through a wrapping arena; events both ways in order`, async () => {
      using dir = tempDir();
      installBunPlugin(dir.path, "echo", "echo.ts", { transport });
      const s = supervise(dir.path, new FakeClock());
      await until(s, "echo", isReady);
      const proc = s.process("echo")!;
      // 60 payloads of up to 1 MiB through an 8 MiB segment: the arenas wrap many times.
      for (let i = 0; i < 60; i++) {
        const data = new Uint8Array(i === 0 ? 0 : 1 + ((i * 77_777) % (1 << 20))).map((_, j) => (j * 31 + i) & 0xff);
        const ref = await proc.link.sendBulk(data);
        if (transport === "shm") expect(ref).toHaveProperty("off");
        else expect(ref).toHaveProperty("b64");
        const r = (await proc.rpc.request("echo/bulk", { ref })) as { crc: number; len: number; back: unknown };
        expect(r.len).toBe(data.length);
        expect(r.crc).toBe(Bun.hash.crc32(data));
        const back = proc.link.readBulk(r.back);
        expect(back.length).toBe(data.length);
        if (data.length > 0) expect(back[0]).toBe(data[data.length - 1] as number);
        expect(Bun.hash.crc32(Uint8Array.from(back).reverse())).toBe(r.crc);
        proc.link.releaseBulk(r.back);
      }
      // kernel → plugin events
      const buf = new Uint8Array(4);
      const dv = new DataView(buf.buffer);
      const N = 20_000;
      for (let i = 0; i < N; i++) {
        dv.setUint32(0, i, true);
        await proc.link.emit(0x100, buf);
      }
      const expectedSum = ((N * (N - 1)) / 2) >>> 0;
      let got = { count: 0, sum: 0 };
      for (let t = 0; t < 200 && got.count < N; t++) {
        got = (await proc.rpc.request("echo/events")) as typeof got;
        if (got.count < N) await Bun.sleep(10);
      }
      expect(got).toEqual({ count: N, sum: expectedSum });
    });
  }

  test("a full arena makes the sender wait for releases, or fail clearly when none come", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "echo", "echo.ts");
    const s = supervise(dir.path, new FakeClock(), { bulkWaitMs: 1500 });
    await until(s, "echo", isReady);
    const proc = s.process("echo")!;
    const chunk = new Uint8Array(1 << 20).fill(7);
    // Fill the kernel→plugin arena (about 3.5 MiB of an 8 MiB segment) with held payloads.
    let held = 0;
    let blocked: Promise<unknown>;
    for (;;) {
      const send = proc.link.sendBulk(chunk);
      const ref = await Promise.race([send, Bun.sleep(300).then(() => null)]);
      if (ref === null) {
        blocked = send; // this send is now waiting for room
        break;
      }
      await proc.rpc.request("echo/hold", { ref });
      held++;
    }
    expect(held).toBeGreaterThanOrEqual(2);
    // The blocked send resumes once the plugin releases.
    await proc.rpc.request("echo/release-all");
    const ref = await blocked;
    expect((await proc.rpc.request("echo/bulk", { ref })) as { len: number }).toMatchObject({ len: 1 << 20 });
    // Held again and never released: the sender gives up with a clear error, nothing corrupt.
    for (let i = 0; i < held; i++) await proc.rpc.request("echo/hold", { ref: await proc.link.sendBulk(chunk) });
    await expect(proc.link.sendBulk(chunk)).rejects.toThrow(
      "bulk arena full for 1500 ms: the other side is not releasing",
    );
    expect(await proc.rpc.request("echo/ping")).toBe("pong");
  });

  test("plugin → kernel events arrive in order, for shm and stdio", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "ring", "echo.ts", { transport: "shm" });
    installBunPlugin(dir.path, "pipe", "echo.ts", { transport: "stdio" });
    const seen: Record<string, number[]> = { ring: [], pipe: [] };
    const s = supervise(dir.path, new FakeClock(), {
      onEvent: (plugin, type, payload) => {
        if (type === 0x100) seen[plugin]!.push(new DataView(payload.buffer, payload.byteOffset, 4).getUint32(0, true));
      },
    });
    await until(s, "ring", isReady);
    await until(s, "pipe", isReady);
    await s.request("ring", "echo/emit", { count: 50_000 });
    await s.request("pipe", "echo/emit", { count: 2000 });
    for (let t = 0; t < 300 && (seen.ring!.length < 50_000 || seen.pipe!.length < 2000); t++) await Bun.sleep(10);
    expect(seen.ring!.length).toBe(50_000);
    expect(seen.ring!.every((x, i) => x === i)).toBe(true);
    expect(seen.pipe!.every((x, i) => x === i) && seen.pipe!.length === 2000).toBe(true);
  });

  test("stdio events are checked before use: a bad one is dropped, the next still arrives", async () => {
    using dir = tempDir();
    installBunPlugin(dir.path, "bad", "garbage.ts", { transport: "stdio" }, ["events"]);
    const seen: [number, number][] = [];
    const s = supervise(dir.path, new FakeClock(), {
      onEvent: (_plugin, type, payload) =>
        seen.push([
          type,
          payload.length === 4 ? new DataView(payload.buffer, payload.byteOffset, 4).getUint32(0, true) : -1,
        ]),
    });
    await until(s, "bad", isReady);
    for (let t = 0; t < 300 && !seen.some(([, n]) => n === 8); t++) await Bun.sleep(10);
    expect(seen).toEqual([
      [0x100, 7],
      [0x100, 8],
    ]);
  });

  test("a Python plugin on the stdio transport joins, answers, and takes inline bulk data", async () => {
    using dir = tempDir();
    installPlugin(dir.path, "py", {
      transport: "stdio",
      provides: ["tool.python"],
      exec: join(FIXTURES, "stdio_plugin.py"),
    });
    const s = supervise(dir.path, new FakeClock());
    const p = await until(s, "py", isReady);
    expect(p.stderrTail.join("\n")).toContain("python plugin connected");
    const proc = s.process("py")!;
    const data = new TextEncoder().encode("héllo, plugin in any language");
    const r = (await proc.rpc.request("py/reverse", { ref: await proc.link.sendBulk(data) })) as {
      len: number;
      back: unknown;
    };
    expect(r.len).toBe(data.length);
    expect(Array.from(proc.link.readBulk(r.back))).toEqual(Array.from(data).reverse());
    await expect(proc.link.sendBulk(new Uint8Array((4 << 20) + 1))).rejects.toThrow("inline limit");
  });
});
