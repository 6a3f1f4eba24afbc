import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, WAITER, run, tempDir, type RunResult } from "./harness/binary.ts";
import { startAgentRig } from "./harness/agent-daemon.ts";
import { startDaemon } from "./harness/daemon.ts";

describe("homed command line", () => {
  test("version runs from / with no node_modules beside it", async () => {
    const r = await run([HOMED, "version"], { cwd: "/" });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^homed \d+\.\d+\.\d+ \(bun [\d.]+, linux\/x64\)\n$/);
    expect(r.stderr).toBe("");
  });

  test("-h and --help print usage on stdout and exit 0", async () => {
    for (const flag of ["-h", "--help", "-help"]) {
      const r = await run([HOMED, flag]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain("Usage:");
      expect(r.stdout).toContain("homed initconfig");
    }
  });

  test("an unknown flag or command is one line and a hint on stderr, exit 2", async () => {
    for (const [args, said] of [
      [["-bogus"], "homed: flag provided but not defined: -bogus"],
      [["frobnicate"], 'homed: unknown command "frobnicate"'],
      [["status", "-bogus"], "homed: flag provided but not defined: -bogus"],
    ] as const) {
      const r = await run([HOMED, ...args]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toBe(`${said}\nrun "homed help" for its commands and flags\n`);
      expect(r.stdout).toBe("");
    }
    const w = await run([WAITER, "-bogus"]);
    expect(w.exitCode).toBe(2);
    expect(w.stderr).toBe(
      'waiter: flag provided but not defined: -bogus\nrun "waiter help" for its commands and flags\n',
    );
  });

  test("waiter takes its flags before or after the command, and -version as homed does", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path);
    const before = await run([WAITER, "-data", dir.path, "-json", "status"]);
    const after = await run([WAITER, "status", "-data", dir.path, "-json"]);
    expect(before.exitCode).toBe(0);
    expect(after.exitCode).toBe(0);
    expect((JSON.parse(after.stdout) as { pid: number }).pid).toBe(d.proc.pid);
    for (const v of ["-version", "--version", "version"]) {
      const r = await run([WAITER, v]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toMatch(/^waiter \d+\.\d+\.\d+ /);
    }
  });

  test("a flag missing its value exits 2", async () => {
    for (const args of [["-data"], ["--listen"], ["status", "-data"]]) {
      const r = await run([HOMED, ...args]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain("flag needs an argument");
    }
  });

  test("an unknown subcommand or a stray argument exits 2", async () => {
    expect((await run([HOMED, "-data", "/tmp/x", "frobnicate"])).exitCode).toBe(2);
    expect((await run([HOMED, "version", "extra"])).exitCode).toBe(2);
  });

  test("initconfig writes a commented config.toml, refuses to overwrite, and -force does", async () => {
    using dir = tempDir();
    const data = join(dir.path, "d");
    const first = await run([HOMED, "initconfig", "--data", data]);
    expect(first.exitCode).toBe(0);
    const file = join(data, "config.toml");
    const text = readFileSync(file, "utf8");
    expect(text).toContain("# homed configuration");
    expect(text).toContain('listen = "127.0.0.1:8080"');
    expect(statSync(data).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    writeFileSync(file, "# mine\n");
    const again = await run([HOMED, "initconfig", "-data", data]);
    expect(again.exitCode).toBe(78);
    expect(again.stderr).toContain("already exists");
    expect(readFileSync(file, "utf8")).toBe("# mine\n");

    const forced = await run([HOMED, "initconfig", "-data", data, "-force"]);
    expect(forced.exitCode).toBe(0);
    expect(readFileSync(file, "utf8")).toContain("# homed configuration");
  });

  test("status without a daemon says so and exits 69", async () => {
    using dir = tempDir();
    const r = await run([HOMED, "status", "-data", dir.path]);
    expect(r.exitCode).toBe(69);
    expect(r.stderr).toContain("homed is not running");
    const w = await run([WAITER, "-data", dir.path]);
    expect(w.exitCode).toBe(69);
    expect(w.stderr).toContain("homed is not running");
  });

  test("the default data dir follows XDG_DATA_HOME", async () => {
    using dir = tempDir();
    const r = await run([HOMED, "initconfig"], { env: { XDG_DATA_HOME: dir.path } });
    expect(r.exitCode).toBe(0);
    expect(existsSync(join(dir.path, "homed", "config.toml"))).toBe(true);
  });
});

/** What a person sees when they get something wrong: one plain line, no stack, no internals. */
function expectOneLine(r: RunResult, line: string, status: number): void {
  expect({ status: r.exitCode, stderr: r.stderr, stdout: r.stdout }).toEqual({
    status,
    stderr: `homed: ${line}\n`,
    stdout: "",
  });
}

describe("errors a person can cause", () => {
  test("bad provider flags exit 2, an unknown plugin exits 1, each with one plain line", async () => {
    using dir = tempDir();
    await using _d = await startDaemon(dir.path);
    const provider = (...args: string[]) => run([HOMED, "provider", "-data", dir.path, ...args]);
    expectOneLine(
      await provider("-kind", "bogus", "-model", "m"),
      `-kind "bogus": provider must be openai or anthropic`,
      2,
    );
    expectOneLine(
      await provider("-kind", "openai", "-model", "m", "-context-window", "10"),
      `-context-window "10": a context window is at least 1024 tokens`,
      2,
    );
    expectOneLine(
      await provider("-kind", "openai", "-model", "m", "-context-window", "lots"),
      `-context-window "lots": must be a whole number`,
      2,
    );
    expectOneLine(await run([HOMED, "plugin-restart", "-data", dir.path, "nosuch"]), "no plugin named nosuch", 1);
    expectOneLine(await run([HOMED, "plugin-restart", "nosuch", "-data", dir.path]), "no plugin named nosuch", 1);
    // mcp runs only with servers configured: a restart contradicts the configuration (conflict).
    expectOneLine(
      await run([HOMED, "plugin-restart", "-data", dir.path, "mcp"]),
      "mcp cannot start: not needed: mcp.servers is empty in config.toml",
      1,
    );
    // Nothing was changed by the refused settings.
    expect((await provider()).stdout).toContain("no model provider configured");
  });

  test("homed chat whose daemon dies mid-turn says the daemon closed the connection and exits 69", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([{ hang: true }]);
    const chat = rig.chat("are you there?");
    await rig.llm.received(1);
    rig.daemon.proc.kill("SIGKILL");
    expectOneLine(await chat, "the daemon closed the connection", 69);
  });
});
