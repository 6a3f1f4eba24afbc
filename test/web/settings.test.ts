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
      page: { key: string; label: string; heading: string }[];
      lists: { key: string; label: string }[];
    };
    expect(before.sources.system_prompt).toBe("default");
    // The plugins' fields on the page carry the labels their settings give them.
    expect(before.page.find((f) => f.key === "allow_hosts")?.label).toStartWith(
      "Hosts on your network that fetch_url and the browser may open",
    );
    expect(before.page.find((f) => f.key === "allow_hosts")?.heading).toBe("Private addresses");
    expect(before.lists.find((l) => l.key === "mcp_servers")?.label).toBe("MCP servers");

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

  test("the first MCP server added while none ran starts the mcp plugin at once; a bad one or an unknown one changes nothing", async () => {
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
    type Saved = {
      settings: { lists: { key: string; source: string; items: Record<string, unknown>[] }[] };
      reload: { applied: string[]; restartNeeded: string[] };
    };
    const edit = (body: unknown) => fetch(`${url}api/settings`, post({ list_edits: [body] }));
    expect((await status()).plugins.find((p) => p.name === "mcp")?.state).toBe("disabled");
    const res = await edit({
      key: "mcp_servers",
      add: { name: "later", url: mcp.url, header_secrets: { Authorization: "later-token" } },
    });
    expect(res.status).toBe(200);
    const r = (await res.json()) as Saved;
    expect(r.settings.lists.find((l) => l.key === "mcp_servers")).toMatchObject({
      source: "settings.json",
      items: [{ name: "later", url: mcp.url, header_secrets: { Authorization: "later-token" } }],
    });
    expect(r.reload).toEqual({ applied: ["mcp.servers"], restartNeeded: [] });
    await poll(status, (s) => s.tools.some((t) => t.name === "later_whoami"), {
      timeoutMs: 20_000,
      intervalMs: 100,
      what: "the new server's tool without a restart",
    });
    expect((await status()).plugins.find((p) => p.name === "mcp")?.state).toBe("ready");
    const saved = readFileSync(join(dir.path, "settings.json"), "utf8");

    // A bad item gets the section's own message; a header by value is not taken from the page.
    const bad = await edit({ key: "mcp_servers", add: { name: "bad name!", command: "true" } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe(
      "mcp.servers.1.name: must be 1-32 letters, digits or dashes",
    );
    const byValue = await edit({ key: "mcp_servers", add: { name: "x", url: mcp.url, headers: { A: "b" } } });
    expect(byValue.status).toBe(400);
    expect(((await byValue.json()) as { error: string }).error).toBe(
      "mcp.servers.headers: not edited on the settings page",
    );
    const gone = await edit({ key: "mcp_servers", remove: "nope" });
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: string }).error).toBe("MCP servers: none is named nope");
    expect(readFileSync(join(dir.path, "settings.json"), "utf8")).toBe(saved);

    const removed = await edit({ key: "mcp_servers", remove: "later" });
    expect(removed.status).toBe(200);
    const after = (await removed.json()) as Saved;
    expect(after.settings.lists.find((l) => l.key === "mcp_servers")?.items).toEqual([]);
    expect(after.reload.applied).toEqual(["mcp.servers"]);
    expect(JSON.parse(readFileSync(join(dir.path, "settings.json"), "utf8"))).toEqual({ page: { mcp_servers: [] } });
    await poll(status, (s) => !s.tools.some((t) => t.name === "later_whoami"), {
      timeoutMs: 20_000,
      intervalMs: 100,
      what: "the removed server's tool gone",
    });
  }, 60_000);

  test("private hosts are one list written to fetch's and the browser's sections", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    const res = await fetch(`${url}api/settings`, post({ page: { allow_hosts: ["nas.lan", "10.0.0.0/8"] } }));
    expect(res.status).toBe(200);
    const r = (await res.json()) as {
      settings: { page: { key: string; value: unknown; source: string; paths: string[] }[] };
      reload: { applied: string[] };
    };
    expect(r.settings.page.find((f) => f.key === "allow_hosts")).toMatchObject({
      value: ["nas.lan", "10.0.0.0/8"],
      source: "settings.json",
    });
    expect(r.reload.applied.sort()).toEqual(["tools.browser.allow_hosts", "tools.fetch.allow_hosts"]);
    const bad = await fetch(`${url}api/settings`, post({ page: { allow_hosts: ["no spaces"] } }));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain("must be host names, addresses or CIDR ranges");
    expect(JSON.parse(readFileSync(join(dir.path, "settings.json"), "utf8"))).toEqual({
      page: { allow_hosts: ["nas.lan", "10.0.0.0/8"] },
    });
  }, 60_000);

  test("a settings.json saved before the page carried plugin fields generically is still read", async () => {
    using dir = tempDir();
    writeFileSync(
      join(dir.path, "settings.json"),
      JSON.stringify({
        allow_hosts: ["old.lan"],
        mcp_servers: [{ name: "old-one", url: "http://127.0.0.1:9/mcp" }],
      }),
    );
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    const s = (await (await fetch(`${url}api/settings`)).json()) as {
      page: { key: string; value: unknown; source: string }[];
      lists: { key: string; source: string; items: Record<string, unknown>[] }[];
      unused: string[];
    };
    expect(s.page.find((f) => f.key === "allow_hosts")).toMatchObject({ value: ["old.lan"], source: "settings.json" });
    expect(s.lists.find((l) => l.key === "mcp_servers")).toMatchObject({
      source: "settings.json",
      items: [{ name: "old-one", url: "http://127.0.0.1:9/mcp" }],
    });
    expect(s.unused).toEqual([]);
    // The next save writes it in today's shape.
    expect((await fetch(`${url}api/settings`, post({ recall_untrusted: true }))).status).toBe(200);
    expect(JSON.parse(readFileSync(join(dir.path, "settings.json"), "utf8"))).toEqual({
      recall_untrusted: true,
      page: { allow_hosts: ["old.lan"], mcp_servers: [{ name: "old-one", url: "http://127.0.0.1:9/mcp" }] },
    });
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
