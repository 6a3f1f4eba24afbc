/**
 * Plugins from anyone, through the compiled daemon and the scripted model: `homed plugin new`
 * writes a plugin the next start loads (its tool called, its stage handler run), the Python
 * example in examples/python-plugin joins over stdio and its write tool is asked about, an
 * external plugin is refused what its manifest does not declare, and it never sees the
 * daemon's secrets.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, ROOT, run, tempDir } from "../harness/binary.ts";
import { type AgentRig, startAgentRig } from "../harness/agent-daemon.ts";
import { poll } from "../harness/poll.ts";
import { ENGINE_OPTIONS } from "../../src/kernel/heap-size.ts";
import { installBunPlugin } from "../harness/plugins.ts";

interface PluginView {
  name: string;
  state: string;
  detail: string;
  pid: number | null;
  stderrTail: string[];
}

const PYTHON = Bun.which("python3");

async function pluginState(rig: AgentRig, name: string, until: (p: PluginView) => boolean, what: string) {
  const st = await poll(
    rig.status,
    (s) => {
      const p = (s.plugins as PluginView[]).find((x) => x.name === name);
      return !!p && until(p);
    },
    { what, timeoutMs: 20_000 },
  );
  return { st, plugin: (st.plugins as PluginView[]).find((x) => x.name === name) as PluginView };
}

/** The tool results the model was sent back in its last request, as text. */
function toolResultsSent(rig: AgentRig): string[] {
  const last = rig.llm.requests.at(-1);
  const messages = (last?.body.messages ?? []) as { role: string; content: unknown }[];
  return messages.filter((m) => m.role === "tool").map((m) => JSON.stringify(m.content));
}

function environOf(pid: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")) {
    const i = entry.indexOf("=");
    if (i > 0) out[entry.slice(0, i)] = entry.slice(i + 1);
  }
  return out;
}

describe("homed plugin new", () => {
  test("writes a plugin the next start loads; the model calls its tool and the stage handler runs", async () => {
    using dir = tempDir();
    const made = await run([HOMED, "plugin", "new", "demo", "-data", dir.path]);
    expect(made.stderr).toBe("");
    expect(made.exitCode).toBe(0);
    expect(made.stdout).toContain(`wrote ${join(dir.path, "plugins/demo")}`);
    expect(made.stdout).toContain("homed loads it at its next start");
    const manifest = JSON.parse(readFileSync(join(dir.path, "plugins/demo/plugin.json"), "utf8"));
    expect(manifest).toMatchObject({ name: "demo", transport: "stdio", main: "main.ts", requires: ["kernel.agent"] });

    await using rig = await startAgentRig(dir.path, {
      plugin: false,
      pluginSandbox: true,
      env: { OPENAI_API_KEY: "sk-daemon-env-secret" },
    });
    const { st, plugin } = await pluginState(rig, "demo", (p) => p.state === "ready", "the demo plugin ready");
    expect(st.tools.find((t) => t.name === "demo_hello")).toMatchObject({ plugin: "demo", risk: "read" });
    expect(st.stages.filter((s) => s.plugin === "demo").map((s) => s.stage)).toEqual(["after_output"]);

    rig.llm.script([
      { toolCalls: [{ name: "demo_hello", arguments: '{"name":"Ada"}' }] },
      { text: "greeted" },
      { toolCalls: [{ name: "demo_hello", arguments: '{"name":"Grace"}' }] },
      { text: "greeted again" },
    ]);
    const first = await rig.chat("say hello to Ada");
    expect(first.exitCode).toBe(0);
    expect(first.stderr).not.toContain("? allow");
    expect(first.stdout).toContain("greeted");
    // Named, with what it does, among the tools the model can call by name (the system prompt).
    expect(JSON.stringify(rig.llm.requests[0]?.body.messages)).toContain("\\ndemo_hello: ");
    expect(toolResultsSent(rig).join("\n")).toContain("Hello, Ada! homed has sent 0 answers since demo started.");
    // The after_output handler counted the first answer; the tool says so on the next call.
    const second = await rig.chat("say hello to Grace");
    expect(second.exitCode).toBe(0);
    expect(toolResultsSent(rig).join("\n")).toContain("Hello, Grace! homed has sent 1 answer since demo started.");

    // The plugin runs on the Bun inside homed, in its sandbox, with the children's minimal
    // environment: no data dir, its state folder for a HOME.
    const env = environOf(plugin.pid as number);
    expect(env.BUN_BE_BUN).toBe("1");
    expect(Object.keys(env).sort()).toEqual(
      ["BUN_BE_BUN", "HOME", "HOMED_PLUGIN_NAME", "HOMED_PLUGIN_TRANSPORT", "PATH", "TMPDIR"]
        .concat(Object.keys(ENGINE_OPTIONS).filter((k) => k in env))
        .sort(),
    );
    expect(env.HOME).toBe(join(dir.path, "plugin-state/demo"));
    expect(JSON.stringify(env)).not.toContain("sk-daemon-env-secret");
    expect(JSON.stringify(env)).not.toContain("sk-test-secret-key-1234");
  }, 60_000);

  test("its test passes as written, on the Bun inside homed", async () => {
    using dir = tempDir();
    const folder = join(dir.path, "somewhere", "mine");
    const made = await run([HOMED, "plugin", "new", "mine", "-dir", folder, "-data", join(dir.path, "data")]);
    expect(made.exitCode).toBe(0);
    expect(made.stdout).toContain(`move or link this folder to ${join(dir.path, "data/plugins/mine")}`);
    const tested = await run([HOMED, "test"], { cwd: folder, env: { BUN_BE_BUN: "1" } });
    expect(tested.stderr).toContain("3 pass");
    expect(tested.stderr).toContain("0 fail");
    expect(tested.exitCode).toBe(0);
  }, 60_000);

  test("refuses a bad name, the reserved name new, and a folder that is not empty", async () => {
    using dir = tempDir();
    const bad = await run([HOMED, "plugin", "new", "Bad_Name", "-data", dir.path]);
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toContain('plugin name "Bad_Name": must be lower-case letters, digits and dashes');
    expect(existsSync(join(dir.path, "plugins/Bad_Name"))).toBe(false);
    const reserved = await run([HOMED, "plugin", "new", "new", "-data", dir.path]);
    expect(reserved.exitCode).not.toBe(0);
    expect(reserved.stderr).toContain('"new" is reserved');
    const none = await run([HOMED, "plugin", "new", "-data", dir.path]);
    expect(none.exitCode).not.toBe(0);
    expect(none.stderr).toContain("plugin new takes one NAME");
    expect((await run([HOMED, "plugin", "new", "twice", "-data", dir.path])).exitCode).toBe(0);
    const again = await run([HOMED, "plugin", "new", "twice", "-data", dir.path]);
    expect(again.exitCode).not.toBe(0);
    expect(again.stderr).toContain("already exists and is not empty");
    // A data dir that does not exist yet is made as the daemon makes it: 0700.
    const fresh = join(dir.path, "fresh-data");
    expect((await run([HOMED, "plugin", "new", "first", "-data", fresh])).exitCode).toBe(0);
    expect(statSync(fresh).mode & 0o777).toBe(0o700);
    // The internal form still runs only built-in plugins, and only under the daemon.
    const internal = await run([HOMED, "plugin", "notes"]);
    expect(internal.stderr).toContain("plugins are started by the homed daemon");
  }, 30_000);
});

describe("external plugins start closed", () => {
  test("a plugin that calls a method of a facility it does not require is refused, saying which", async () => {
    using dir = tempDir();
    expect((await run([HOMED, "plugin", "new", "greedy", "-data", dir.path])).exitCode).toBe(0);
    const file = join(dir.path, "plugins/greedy/plugin.json");
    const manifest = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...manifest, requires: [] }));
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const { plugin } = await pluginState(
      rig,
      "greedy",
      (p) => p.stderrTail.some((l) => l.includes("needs the facility")),
      "greedy's refusal",
    );
    expect(plugin.stderrTail.join("\n")).toContain(
      'tools/register needs the facility kernel.agent, which greedy does not declare: add it to "requires" in its plugin.json',
    );
    expect((await rig.status()).tools.some((t) => t.name === "greedy_hello")).toBe(false);
  }, 60_000);

  test("config/get mcp (resolved secrets), kernel methods outside the table and a tool without a risk class are refused", async () => {
    using dir = tempDir();
    const mcpOut = join(dir.path, "mcp.json");
    const webOut = join(dir.path, "web.json");
    installBunPlugin(dir.path, "peek", "kernel-call.ts", {}, ["config/get", '{"section":"mcp"}', mcpOut]);
    installBunPlugin(dir.path, "minter", "kernel-call.ts", {}, ["login/redeem", '{"code":"x"}', webOut]);
    // A tool that does not say what it can do is not registered at all.
    const riskOut = join(dir.path, "risk.json");
    const noRisk = { tools: [{ name: "vague_tool", description: "does things", parameters: { type: "object" } }] };
    installBunPlugin(dir.path, "vague", "kernel-call.ts", {}, ["tools/register", JSON.stringify(noRisk), riskOut]);
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const read = (f: string) => poll(() => (existsSync(f) ? readFileSync(f, "utf8") : ""), Boolean, { what: f });
    expect(JSON.parse(await read(mcpOut))).toEqual({ error: "the mcp section is reserved to built-in plugins" });
    expect(JSON.parse(await read(webOut))).toEqual({
      error: "login/redeem is not available to external plugins; minter is one",
    });
    expect(JSON.parse(await read(riskOut)).error).toContain("risk");
    expect((await rig.status()).tools.some((t) => t.name === "vague_tool")).toBe(false);
    expect(rig.daemon.proc.exitCode).toBeNull();
  }, 60_000);
});

describe("broken external plugins", () => {
  test("a bad main is blocked with its reason; one whose import is missing crashes saying which, and is never fetched", async () => {
    using dir = tempDir();
    const plugin = (name: string, manifest: Record<string, unknown>, files: Record<string, string> = {}) => {
      const folder = join(dir.path, "plugins", name);
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, "plugin.json"), JSON.stringify({ name, transport: "stdio", ...manifest }));
      for (const [f, text] of Object.entries(files)) writeFileSync(join(folder, f), text);
    };
    plugin("escape", { main: "../agent/main.ts" });
    plugin("absent", { main: "main.ts" });
    plugin("both", { main: "main.ts", exec: "/bin/true" }, { "main.ts": "" });
    plugin("needs-pkg", { main: "main.ts" }, { "main.ts": 'import "left-pad-homed-test";\n' });
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const { st } = await pluginState(
      rig,
      "needs-pkg",
      (p) => p.stderrTail.some((l) => l.includes("left-pad-homed-test")),
      "needs-pkg's crash",
    );
    const byName = (n: string) => (st.plugins as PluginView[]).find((p) => p.name === n) as PluginView;
    expect(byName("escape")).toMatchObject({ state: "blocked" });
    expect(byName("escape").detail).toContain("inside the plugin's folder");
    expect(byName("absent").detail).toContain('("main") does not exist');
    expect(byName("both").detail).toContain('has both "exec" and "main"');
    expect(byName("needs-pkg").stderrTail.join("\n")).toContain("Cannot find package 'left-pad-homed-test'");
    expect(existsSync(join(dir.path, "plugins/needs-pkg/node_modules"))).toBe(false);
    expect(rig.daemon.proc.exitCode).toBeNull();
    // The broken ones take nothing else down: the web plugin comes up beside them (its start may
    // still be under way when needs-pkg has crashed).
    const { plugin: web } = await pluginState(rig, "web", (p) => p.state === "ready", "the web plugin ready");
    expect(web.state).toBe("ready");
  }, 60_000);
});

describe("a plugin in Python", () => {
  // Skipped only where python3 is missing, and then the next test fails saying so: a machine
  // without it cannot run a Python plugin, and `make test` installs it.
  test.skipIf(!PYTHON)(
    "joins over stdio; its write tool is asked about and runs only on yes",
    async () => {
      using dir = tempDir();
      const added = await run([
        HOMED,
        "plugin",
        "add",
        join(ROOT, "examples/python-plugin"),
        "-yes",
        "-data",
        dir.path,
      ]);
      expect(added.exitCode).toBe(0);
      // It writes where its sandbox lets it: its state folder, named by its hello.
      const folder = join(dir.path, "plugin-state/jot");
      await using rig = await startAgentRig(dir.path, { plugin: false, pluginSandbox: true });
      const { st, plugin } = await pluginState(rig, "jot", (p) => p.state === "ready", "the Python plugin ready");
      expect(st.tools.find((t) => t.name === "jot_add")).toMatchObject({ plugin: "jot", risk: "write" });
      expect(plugin.stderrTail.join("\n")).toContain('msg="connected"');

      // A declined call ends the turn: no further request to the model.
      rig.llm.script([{ toolCalls: [{ name: "jot_add", arguments: '{"text":"buy oat milk"}' }] }]);
      const declined = await rig.chat("jot this down: buy oat milk", { stdin: "n\n" });
      expect(declined.stderr).toContain("? allow jot_add");
      expect(declined.stderr).toContain("denied: the user declined jot_add");
      expect(existsSync(join(folder, "jottings.md"))).toBe(false);

      rig.llm.script([{ toolCalls: [{ name: "jot_add", arguments: '{"text":"buy oat milk"}' }] }, { text: "jotted" }]);
      const approved = await rig.chat("jot this down: buy oat milk", { stdin: "y\n" });
      expect(approved.stderr).toContain("? allow jot_add");
      expect(approved.stderr).toContain("← jot_add [ok] Jotted down (1 line in jottings.md).");
      expect(approved.stdout).toContain("jotted");
      expect(toolResultsSent(rig).join("\n")).toContain("Jotted down (1 line in jottings.md).");
      expect(readFileSync(join(folder, "jottings.md"), "utf8")).toMatch(/^- \d{4}-\d\d-\d\d buy oat milk\n$/);
    },
    60_000,
  );

  test("python3 is there for the test above", () => {
    // scripts/ensure-test-tools.sh installs it for make test; say so plainly when it is missing.
    if (!PYTHON)
      throw new Error("python3 is not on PATH: the Python plugin test was skipped (apt-get install python3)");
    expect(PYTHON).toBeTruthy();
  });
});
