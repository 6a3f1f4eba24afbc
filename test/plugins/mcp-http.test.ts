/**
 * The mcp plugin against a real Streamable HTTP MCP server (the official SDK's server transport,
 * served by Bun in the test: test/harness/http-mcp.ts): its tools reach the model, its headers come from config.toml and
 * from DATA/secrets.json, and a server whose secret is missing is never contacted.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { poll } from "../harness/poll.ts";
import { MCP_TOKEN as TOKEN, startHttpMcp } from "../harness/http-mcp.ts";

describe("mcp plugin over Streamable HTTP", () => {
  test("a url server's tools run, with headers by value and from secrets.json", async () => {
    using dir = tempDir();
    using mcp = startHttpMcp();
    await Bun.write(
      join(dir.path, "config.toml"),
      `[[mcp.servers]]\nname = "remote"\nurl = "${mcp.url}"\nheaders = { "X-Client" = "homed-test" }\nheader_secrets = { Authorization = "remote-token" }\n\n[approval]\nallow = ["remote_*"]\n`,
    );
    writeFileSync(join(dir.path, "secrets.json"), JSON.stringify({ values: { "remote-token": TOKEN } }), {
      mode: 0o600,
    });
    await using rig = await startAgentRig(dir.path, { plugin: false });
    await poll(
      async () => (await rig.status()).tools as { name: string; risk?: string }[],
      (tools) => tools.some((t) => t.name === "remote_whoami"),
      { timeoutMs: 20_000, intervalMs: 50, what: "remote_whoami to be offered" },
    );
    const tools = (await rig.status()).tools as { name: string; risk?: string }[];
    expect(tools.find((t) => t.name === "remote_whoami")?.risk).toBe("exec");
    // `homed provider` wrote the API key into the same secrets.json: the named value survived it.
    expect(mcp.seen.every((s) => s.authorization === TOKEN && s.client === "homed-test")).toBe(true);

    rig.llm.script([{ toolCalls: [{ name: "remote_whoami", arguments: { note: "hi" } }] }, { text: "done" }]);
    const r = await rig.chat("call it");
    expect(r.exitCode).toBe(0);
    const sent = (rig.llm.requests[1]!.body as { messages: { role: string; content: string }[] }).messages.find(
      (m) => m.role === "tool",
    )!.content;
    expect(sent).toBe("client=homed-test note=hi");
    // The secret went to the server, never to the log.
    expect(rig.daemon.stderr()).not.toContain("mcp-secret-0123456789");
  }, 60_000);

  test("a url server whose secret is missing is not contacted, and the log says which secret", async () => {
    using dir = tempDir();
    using mcp = startHttpMcp();
    await Bun.write(
      join(dir.path, "config.toml"),
      `[[mcp.servers]]\nname = "remote"\nurl = "${mcp.url}"\nheader_secrets = { Authorization = "absent-token" }\n`,
    );
    await using rig = await startAgentRig(dir.path, { plugin: false });
    await poll(
      async () => rig.daemon.stderr(),
      (s) => s.includes("secrets missing"),
      { timeoutMs: 20_000, intervalMs: 50, what: "the missing secret to be logged" },
    );
    expect(rig.daemon.stderr()).toContain("absent-token");
    expect(mcp.seen).toEqual([]);
  }, 60_000);

  test("a server with both command and url is a configuration error", async () => {
    using dir = tempDir();
    await Bun.write(
      join(dir.path, "config.toml"),
      `[[mcp.servers]]\nname = "x"\ncommand = "true"\nurl = "http://127.0.0.1:1/mcp"\n`,
    );
    const r = await run([HOMED, "-data", dir.path, "-listen", "127.0.0.1:0"]);
    expect(r.exitCode).toBe(78);
    expect(r.stderr).toContain("either command (stdio) or url");
  });
});
