/**
 * Safe by default: the shipped policy asks before anything but a `read` tool runs, "ask" with
 * nobody to ask is a denial by policy (never "the user declined"), and no child of the daemon
 * inherits its environment.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { installBunPlugin } from "../harness/plugins.ts";

const SECRETS = {
  HOMED_WEB_TOKEN: "tok-should-never-leak-0123456789",
  AWS_SECRET_ACCESS_KEY: "aws-should-never-leak",
  LANG: "C.UTF-8",
  TZ: "Europe/Paris",
};

/** The environment of a running process, as the kernel handed it over. */
function environOf(pid: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")) {
    const i = entry.indexOf("=");
    if (i > 0) out[entry.slice(0, i)] = entry.slice(i + 1);
  }
  return out;
}

describe("the shipped approval policy", () => {
  test('initconfig writes default = "ask", uncommented, under [approval]', async () => {
    using dir = tempDir();
    expect((await run([HOMED, "initconfig", "-data", dir.path])).exitCode).toBe(0);
    const text = readFileSync(join(dir.path, "config.toml"), "utf8");
    const section = text.slice(text.indexOf("\n[approval]"), text.indexOf("\n[", text.indexOf("\n[approval]") + 1));
    expect(section).toMatch(/\ndefault = "ask"\n/);
  });

  test("a read tool runs unasked; an exec tool is asked about, and runs only on yes", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    rig.llm.script([{ toolCalls: [{ name: "echo_text", arguments: '{"text":"hi"}' }] }, { text: "echoed" }]);
    const read = await rig.chat("echo");
    expect(read.stderr).not.toContain("? allow");
    expect(read.stderr).toContain("← echo_text [ok] echo: hi");

    rig.llm.script([{ toolCalls: [{ name: "shell_exec", arguments: '{"cmd":"ls"}' }] }]);
    const declined = await rig.chat("run ls", { stdin: "n\n" });
    expect(declined.stderr).toContain("? allow shell_exec");
    expect(declined.stderr).toContain("denied: the user declined shell_exec");
    rig.llm.script([{ toolCalls: [{ name: "shell_exec", arguments: '{"cmd":"ls"}' }] }, { text: "ran it" }]);
    const approved = await rig.chat("run ls", { stdin: "y\n" });
    expect(approved.stderr).toContain("← shell_exec [ok] ran ls");
    expect(rig.seen().filter((s) => s.tool === "shell_exec").length).toBe(1);
    const st = await rig.status();
    expect((st.tools as { name: string; risk: string }[]).find((t) => t.name === "shell_exec")?.risk).toBe("exec");
  });

  test("through /v1, where nobody can be asked, an exec tool is denied by policy and the audit event says so", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    const url = await webUrlOf(rig.daemon);
    rig.llm.script([{ toolCalls: [{ name: "shell_exec", arguments: '{"cmd":"rm -rf ~"}' }] }]);
    const res = await fetch(`${url}v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "homed", messages: [{ role: "user", content: "clean my home" }] }),
    });
    expect(res.status).toBe(200);
    expect(rig.seen().some((s) => s.tool === "shell_exec")).toBe(false);
    await rig.daemon.stop();
    const db = new Database(join(rig.data, "homed.db"), { readonly: true });
    const bodies = db
      .query<{ body: string }, []>("SELECT body FROM events WHERE kind = 'tool-result'")
      .all()
      .map((r) => JSON.parse(r.body) as { status: string; content: string });
    const call = db.query<{ body: string }, []>("SELECT body FROM events WHERE kind = 'tool-call'").get();
    db.close();
    expect(bodies.length).toBe(1);
    expect(bodies[0]!.status).toBe("denied");
    expect(bodies[0]!.content).toStartWith("denied by policy (no one to ask): shell_exec (exec)");
    expect(bodies[0]!.content).not.toContain("declined");
    expect(JSON.parse(call!.body).risk).toBe("exec");
  });
});

describe("tools a manifest declares", () => {
  test("a lazy plugin's tools are offered with their risk before it starts, and calling one starts it", async () => {
    using dir = tempDir();
    const tools = [
      {
        name: "echo_text",
        description: "Repeat the given text back.",
        parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        risk: "read",
      },
    ];
    installBunPlugin(dir.path, "lazytools", "agent.ts", { lazy: true, tools }, ["--no-stages"]);
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const before = await rig.status();
    expect((before.plugins as { name: string; state: string }[]).find((p) => p.name === "lazytools")?.state).toBe(
      "idle",
    );
    // Built-in tool plugins' manifest tools are offered too; this test is about lazytools'.
    const notBuiltin = (before.tools as Record<string, unknown>[]).filter(
      (t) => t.plugin === "lazytools" || t.plugin === "kernel",
    );
    // An installed plugin's tool that says nothing of its output is listed so (and marked when it runs).
    expect(notBuiltin).toEqual([
      { name: "agent_spawn", plugin: "kernel", risk: "exec", approval: "auto", output: "own" },
      { name: "echo_text", plugin: "lazytools", risk: "read", approval: "auto", output: "undeclared" },
      { name: "memory_search", plugin: "kernel", risk: "read", approval: "auto", output: "own" },
      { name: "skill", plugin: "kernel", risk: "read", approval: "auto", output: "own" },
      { name: "skill_file", plugin: "kernel", risk: "read", approval: "auto", output: "own" },
      { name: "tools_find", plugin: "kernel", risk: "read", approval: "auto", output: "own" },
    ]);
    rig.llm.script([{ toolCalls: [{ name: "echo_text", arguments: '{"text":"wake up"}' }] }, { text: "it answered" }]);
    const r = await rig.chat("echo");
    expect(r.stderr).toContain("← echo_text [ok] echo: wake up");
    const after = await rig.status();
    expect((after.plugins as { name: string; state: string }[]).find((p) => p.name === "lazytools")?.state).toBe(
      "ready",
    );
  });
});

describe("children's environment", () => {
  test("plugins get PATH, HOME, LANG, TZ and the protocol's variables, never the daemon's secrets", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { env: SECRETS });
    const st = await rig.status();
    const plugins = (st.plugins as { name: string; pid: number | null }[]).filter((p) => p.pid !== null);
    expect(plugins.map((p) => p.name).sort()).toEqual(["agent", "web"]);
    for (const p of plugins) {
      const env = environOf(p.pid!);
      // BUN_JSC_*: the engine's heap sized as the kernel's (src/kernel/heap-size.ts).
      // The data dir is named to built-in plugins (web) only; agent is an external one.
      expect(Object.keys(env).sort()).toEqual(
        [
          "BUN_JSC_forceRAMSize",
          "BUN_JSC_smallHeapGrowthFactor",
          "HOME",
          "HOMED_PLUGIN_NAME",
          "HOMED_PLUGIN_TRANSPORT",
          "LANG",
          "PATH",
          "TZ",
        ]
          .concat(p.name === "web" ? ["HOMED_DATA"] : [])
          .sort(),
      );
      expect(env.TZ).toBe("Europe/Paris");
      expect(env.BUN_JSC_forceRAMSize).toBe(String(512 * 1024 * 1024));
      expect(env.BUN_JSC_smallHeapGrowthFactor).toBe("1.2");
      expect(env.HOMED_PLUGIN_NAME).toBe(p.name);
    }
  });
});
