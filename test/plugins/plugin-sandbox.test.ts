/**
 * External plugins live in their own room (src/kernel/plugins/sandbox.ts), through the compiled
 * daemon with its default [plugins] sandbox = "bwrap": a TypeScript and a Python plugin that try
 * to read everything under DATA, every /proc entry and their environment get none of the key,
 * the token or the database, cannot write their own folder, keep what they write in their state
 * folder, and reach the network only when the manifest asks and the owner allowed it.
 * `homed plugin add` shows what a plugin asks for and records the owner's answer.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, ROOT, run, tempDir } from "../harness/binary.ts";
import { startDaemon } from "../harness/daemon.ts";
import { poll } from "../harness/poll.ts";
import { runRoomProbe } from "../harness/room-probe.ts";

const PYTHON = Bun.which("python3");

/** A TCP server on the host's loopback: a sandbox without the network cannot reach it. */
function listener(): { port: number; stop(): void } {
  const server = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data() {},
      open(s) {
        s.end();
      },
    },
  });
  return { port: server.port, stop: () => server.stop(true) };
}

describe("an external plugin's room", () => {
  test("a TypeScript plugin that reads everything it can find gets no key, token or database", async () => {
    const host = listener();
    try {
      const o = await runRoomProbe({ lang: "ts", sandbox: true, port: host.port });
      expect(o.leaks).toEqual([]);
      expect(o.sandbox).toContain("bubblewrap, no network; state in ");
      expect(o.report.network).toBe("ECONNREFUSED");
      expect(o.report.wrote).toEqual({ ownFolder: false, stateDir: true });
      expect(Object.keys(o.report.env).some((k) => k === "HOMED_DATA" || k.includes("API_KEY"))).toBe(false);
      expect(o.report.env.HOME).toEndWith("/plugin-state/probe");
      expect((o.report.kernel.hello as { result: { dataDir: string } }).result.dataDir).toBe(
        o.report.env.HOME as string,
      );
    } finally {
      host.stop();
    }
  }, 60_000);

  // Skipped only where python3 is missing, and then test/plugins/external-plugins.test.ts fails
  // saying so ("python3 is there for the test above"): make test installs it.
  test.skipIf(!PYTHON)(
    "so does a Python one",
    async () => {
      const o = await runRoomProbe({ lang: "py", sandbox: true });
      expect(o.leaks).toEqual([]);
      expect(o.report.wrote).toEqual({ ownFolder: false, stateDir: true });
    },
    60_000,
  );

  test('the same plugin unconfined ([plugins] sandbox = "none") takes them: the probe is not blind', async () => {
    const o = await runRoomProbe({ lang: "ts", sandbox: false });
    expect(o.sandbox).toContain('unconfined ([plugins] sandbox = "none")');
    expect(o.leaks.join("\n")).toContain("secrets.json: the provider key");
    expect(o.leaks.join("\n")).toContain("web-token: the web token");
    expect(o.leaks.join("\n")).toContain("homed.db: the database");
  }, 60_000);

  test("the network only when the manifest asks and the owner allowed it", async () => {
    const host = listener();
    try {
      const allowed = await runRoomProbe({
        lang: "ts",
        sandbox: true,
        asksNetwork: true,
        granted: true,
        port: host.port,
      });
      expect(allowed.report.network).toBe("connected");
      expect(allowed.sandbox).toContain("bubblewrap, network allowed");
      expect(allowed.leaks).toEqual([]);
      const asked = await runRoomProbe({ lang: "ts", sandbox: true, asksNetwork: true, port: host.port });
      expect(asked.report.network).toBe("ECONNREFUSED");
      expect(asked.sandbox).toContain("no network (its manifest asks for it; allow it with homed plugin add)");
    } finally {
      host.stop();
    }
  }, 90_000);

  test("without bubblewrap an external plugin is blocked, saying what to do; built-in ones run", async () => {
    using dir = tempDir();
    expect((await run([HOMED, "plugin", "new", "demo", "-data", dir.path])).exitCode).toBe(0);
    const bare = join(dir.path, "bin");
    mkdirSync(bare);
    await using daemon = await startDaemon(dir.path, { pluginSandbox: true, env: { PATH: bare } });
    const st = JSON.parse((await run([HOMED, "status", "-data", dir.path, "-json"])).stdout);
    const demo = (st.plugins as { name: string; state: string; detail: string }[]).find((p) => p.name === "demo");
    expect(demo?.state).toBe("blocked");
    expect(demo?.detail).toContain("bubblewrap (bwrap) is not installed: install the Debian package bubblewrap");
    expect(demo?.detail).toContain('[plugins] sandbox = "none"');
    expect(daemon.proc.exitCode).toBeNull();
  }, 30_000);
});

describe("homed plugin add", () => {
  test("shows what the plugin asks for, needs -yes off a terminal, records the network it was allowed", async () => {
    using dir = tempDir();
    const src = join(dir.path, "src/weather");
    mkdirSync(src, { recursive: true });
    writeFileSync(join(src, "main.ts"), "console.error('hi')\n");
    writeFileSync(
      join(src, "plugin.json"),
      JSON.stringify({
        name: "weather",
        description: "the forecast",
        main: "main.ts",
        requires: ["kernel.agent"],
        network: true,
        tools: [{ name: "weather_now", description: "now", parameters: { type: "object" }, risk: "network" }],
      }),
    );
    const data = join(dir.path, "data");
    const refused = await run([HOMED, "plugin", "add", src, "-data", data]);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stdout).toContain("tool weather_now (network, what it returns marks the conversation untrusted)");
    expect(refused.stdout).toContain("requires kernel.agent: offer tools, act at the turn's stages");
    expect(refused.stdout).toContain("network: it asks for the network");
    expect(refused.stderr).toContain("pass -yes to add this plugin without asking");
    expect(existsSync(join(data, "plugins/weather"))).toBe(false);

    const added = await run([HOMED, "plugin", "add", src, "-yes", "-data", data]);
    expect(added.exitCode).toBe(0);
    expect(added.stdout).toContain(`added weather to ${join(data, "plugins/weather")}, with the network`);
    expect(readFileSync(join(data, "plugins/weather/main.ts"), "utf8")).toContain("hi");
    const grants = JSON.parse(readFileSync(join(data, "plugins.json"), "utf8"));
    expect(grants.added.weather).toMatchObject({ from: src, network: true });

    const again = await run([HOMED, "plugin", "add", src, "-yes", "-data", data]);
    expect(again.exitCode).not.toBe(0);
    expect(again.stderr).toContain("is already there: homed plugin remove weather first");

    const removed = await run([HOMED, "plugin", "remove", "weather", "-data", data]);
    expect(removed.exitCode).toBe(0);
    expect(existsSync(join(data, "plugins/weather"))).toBe(false);
    expect(JSON.parse(readFileSync(join(data, "plugins.json"), "utf8")).added).toEqual({});
  }, 30_000);

  test("refuses a folder whose links lead out, a broken manifest, and a reserved name", async () => {
    using dir = tempDir();
    const src = join(dir.path, "leaky");
    mkdirSync(src);
    writeFileSync(join(src, "plugin.json"), JSON.stringify({ name: "leaky", exec: "/bin/true" }));
    symlinkSync("/etc", join(src, "etc"));
    const data = join(dir.path, "data");
    const leaky = await run([HOMED, "plugin", "add", src, "-yes", "-data", data]);
    expect(leaky.exitCode).not.toBe(0);
    expect(leaky.stderr).toContain("etc links to /etc, outside the plugin's folder");

    const broken = join(dir.path, "broken");
    mkdirSync(broken);
    writeFileSync(join(broken, "plugin.json"), JSON.stringify({ name: "broken", main: "absent.ts" }));
    const b = await run([HOMED, "plugin", "add", broken, "-yes", "-data", data]);
    expect(b.stderr).toContain('("main") does not exist');

    const reserved = join(dir.path, "add");
    mkdirSync(reserved);
    writeFileSync(join(reserved, "plugin.json"), JSON.stringify({ name: "add", exec: "/bin/true" }));
    const r = await run([HOMED, "plugin", "add", reserved, "-yes", "-data", data]);
    expect(r.stderr).toContain('"add" is reserved');
    expect(existsSync(join(data, "plugins"))).toBe(false);
  }, 30_000);

  test("the Python example adds, runs in its room and keeps its jottings in its state folder", async () => {
    using dir = tempDir();
    const added = await run([HOMED, "plugin", "add", join(ROOT, "examples/python-plugin"), "-yes", "-data", dir.path]);
    expect(added.exitCode).toBe(0);
    expect(added.stdout).toContain("network: none (it does not ask for it)");
    await using _daemon = await startDaemon(dir.path, { pluginSandbox: true });
    const st = await poll(
      async () => JSON.parse((await run([HOMED, "status", "-data", dir.path, "-json"])).stdout),
      (s) => (s.plugins as { name: string; state: string }[]).some((p) => p.name === "jot" && p.state === "ready"),
      { what: "jot ready", timeoutMs: 20_000 },
    );
    const jot = (st.plugins as { name: string; sandbox?: string }[]).find((p) => p.name === "jot");
    expect(jot?.sandbox).toBe(`bubblewrap, no network; state in ${join(dir.path, "plugin-state/jot")}`);
  }, 30_000);
});
