/**
 * Settings beyond the provider, from outside: /api/settings writes DATA/settings.json and the
 * next turn uses it; a bad value is refused with config.toml's message and changes nothing;
 * SIGHUP re-reads config.toml and says what needs a restart; every route needs the token.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { startDaemon, webUrlOf } from "../harness/daemon.ts";
import { MCP_TOKEN, startHttpMcp } from "../harness/http-mcp.ts";
import { poll } from "../harness/poll.ts";

const post = (body: unknown, extra: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", "x-homed": "1", ...extra },
  body: JSON.stringify(body),
});

type Messages = { messages: { role: string; content: string }[] };
const systemOf = (body: Record<string, unknown>) =>
  (body as Messages).messages.find((m) => m.role === "system")?.content;

describe("settings in the web API", () => {
  test("a saved system prompt is used by the next turn; a bad rule is refused and changes nothing", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const url = await webUrlOf(rig.daemon);

    const before = (await (await fetch(`${url}api/settings`)).json()) as {
      system_prompt: string;
      sources: Record<string, string>;
      labels: Record<string, string>;
    };
    expect(before.sources.system_prompt).toBe("default");
    // The plugins' fields on the page carry the labels their settings give them.
    expect(before.labels.allow_hosts).toStartWith("Hosts on your network that fetch_url and the browser may open");
    expect(before.labels.mcp_servers).toBe("MCP servers");

    const res = await fetch(`${url}api/settings`, post({ system_prompt: "You are a pirate.", recall_untrusted: true }));
    expect(res.status).toBe(200);
    const saved = (await res.json()) as {
      settings: { system_prompt: string; recall_untrusted: boolean; sources: Record<string, string> };
      reload: { applied: string[]; restartNeeded: string[] };
    };
    expect(saved.settings.system_prompt).toBe("You are a pirate.");
    expect(saved.settings.sources.system_prompt).toBe("settings.json");
    expect(saved.reload.applied.sort()).toEqual(["agent.system_prompt", "memory.recall_untrusted"]);
    expect(saved.reload.restartNeeded).toEqual([]);
    expect(JSON.parse(readFileSync(join(dir.path, "settings.json"), "utf8"))).toEqual({
      system_prompt: "You are a pirate.",
      recall_untrusted: true,
    });

    rig.llm.script([{ text: "arr" }]);
    expect((await rig.chat("hello")).exitCode).toBe(0);
    expect(systemOf(rig.llm.requests.at(-1)!.body)).toStartWith("You are a pirate.");

    const bad = await fetch(`${url}api/settings`, post({ approval_allow: ["risk:bogus"] }));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain("risk:<class>");
    expect(JSON.parse(readFileSync(join(dir.path, "settings.json"), "utf8")).approval_allow).toBeUndefined();

    // "Always allow" from an approval card: one name added to approval.allow, applied at once.
    const allow = await fetch(`${url}api/settings/allow-tool`, post({ tool: "everything_echo" }));
    const allowed = (await allow.json()) as { settings: { approval_allow: string[] }; reload: { applied: string[] } };
    expect(allowed.settings.approval_allow).toEqual(["everything_echo"]);
    expect(allowed.reload.applied).toEqual(["approval.allow"]);
  }, 60_000);

  test("SIGHUP re-reads config.toml: the prompt applies at once, [web] is named as needing a restart", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    writeFileSync(
      join(dir.path, "config.toml"),
      `[agent]\nsystem_prompt = "Reloaded prompt."\n\n[web]\nmax_body_kb = 100\n`,
    );
    rig.daemon.proc.kill("SIGHUP");
    await rig.daemon.waitFor(
      /msg="configuration reloaded" component=config why=SIGHUP applied=agent.system_prompt restart_needed=web.max_body_kb/,
    );
    rig.llm.script([{ text: "ok" }]);
    expect((await rig.chat("hello")).exitCode).toBe(0);
    expect(systemOf(rig.llm.requests.at(-1)!.body)).toStartWith("Reloaded prompt.");

    // An invalid file changes nothing and says why.
    writeFileSync(join(dir.path, "config.toml"), `[approval]\ndefault = "maybe"\n`);
    rig.daemon.proc.kill("SIGHUP");
    await rig.daemon.waitFor(/msg="configuration not reloaded".*must be allow, ask or deny/);
    rig.llm.script([{ text: "ok" }]);
    expect((await rig.chat("again")).exitCode).toBe(0);
    expect(systemOf(rig.llm.requests.at(-1)!.body)).toStartWith("Reloaded prompt.");
    expect(existsSync(join(dir.path, "settings.json"))).toBe(false);
  }, 60_000);

  test("the first MCP server added while none ran starts the mcp plugin at once; an unknown one cannot be removed", async () => {
    using dir = tempDir();
    using mcp = startHttpMcp();
    writeFileSync(join(dir.path, "secrets.json"), JSON.stringify({ values: { "later-token": MCP_TOKEN } }), {
      mode: 0o600,
    });
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    const status = async () =>
      (await (await fetch(`${url}api/status`)).json()) as {
        plugins: { name: string; state: string }[];
        tools: { name: string }[];
      };
    expect((await status()).plugins.find((p) => p.name === "mcp")?.state).toBe("disabled");
    const res = await fetch(
      `${url}api/settings`,
      post({ mcp_add: { name: "later", url: mcp.url, header_secrets: { Authorization: "later-token" } } }),
    );
    expect(res.status).toBe(200);
    const r = (await res.json()) as {
      settings: { mcp_servers: { name: string; transport: string; target: string }[] };
      reload: { applied: string[]; restartNeeded: string[] };
    };
    expect(r.settings.mcp_servers).toEqual([{ name: "later", transport: "http", target: mcp.url }]);
    expect(r.reload).toEqual({ applied: ["mcp.servers"], restartNeeded: [] });
    await poll(status, (s) => s.tools.some((t) => t.name === "later_whoami"), {
      timeoutMs: 20_000,
      intervalMs: 100,
      what: "the new server's tool without a restart",
    });
    expect((await status()).plugins.find((p) => p.name === "mcp")?.state).toBe("ready");
    const gone = await fetch(`${url}api/settings`, post({ mcp_remove: "nope" }));
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: string }).error).toContain("no MCP server named nope");
  }, 60_000);

  test("every settings route needs the login token", async () => {
    using dir = tempDir();
    const token = "correct-horse-battery-staple-42";
    await using d = await startDaemon(dir.path, { env: { HOMED_WEB_TOKEN: token } });
    const url = await webUrlOf(d);
    const routes: [string, RequestInit | undefined][] = [
      ["api/settings", undefined],
      ["api/settings", post({ system_prompt: "x" })],
      ["api/settings/allow-tool", post({ tool: "x" })],
      ["api/settings/reload", post({})],
      ["api/models", undefined],
    ];
    for (const [path, init] of routes) expect([path, (await fetch(url + path, init)).status]).toEqual([path, 401]);
    const auth = { authorization: `Bearer ${token}` };
    expect((await fetch(`${url}api/settings`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${url}api/settings/reload`, post({}, auth))).status).toBe(200);
    expect(existsSync(join(dir.path, "settings.json"))).toBe(false);
  }, 60_000);
});
