/**
 * The mcp plugin against a real MCP server from npm (@modelcontextprotocol/server-everything):
 * its tools reach the model like any other, and a crashed server comes back with the same
 * backoff as plugins.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, HOMED, ROOT, run, tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { poll } from "../harness/poll.ts";

const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

async function waitTools(
  rig: Awaited<ReturnType<typeof startAgentRig>>,
  pred: (names: string[]) => boolean,
  ms = 20_000,
): Promise<string[]> {
  return await poll(async () => (await rig.status()).tools.map((t) => t.name), pred, {
    timeoutMs: ms,
    intervalMs: 50,
    what: "the MCP tools to match",
  });
}

describe("mcp plugin", () => {
  test("server-everything's tools are offered to the model, run, and return after the server is killed", async () => {
    using dir = tempDir();
    const pidFile = join(dir.path, "mcp.pid");
    // sh records the server's pid (exec keeps it) so the test can kill exactly this server.
    // The owner trusts this server's readOnlyHint, so echo and get-sum run unasked (as "read").
    await Bun.write(
      join(dir.path, "config.toml"),
      `[[mcp.servers]]\nname = "everything"\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(`echo $$ > ${pidFile}; exec node ${EVERYTHING} stdio`)}]\nread_only_hint = true\n`,
    );
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const names = await waitTools(rig, (n) => n.includes("everything_echo"));
    expect(names).toContain("everything_get-sum");
    const risk = Object.fromEntries((await rig.status()).tools.map((t) => [t.name, (t as { risk?: string }).risk]));
    expect(risk.everything_echo).toBe("read");
    expect(risk["everything_gzip-file-as-resource"]).toBe("exec");

    rig.llm.script([
      {
        toolCalls: [
          { name: "everything_echo", arguments: { message: "hello mcp" } },
          { name: "everything_get-sum", arguments: { a: 2, b: 3 } },
        ],
      },
      { text: "done" },
    ]);
    // Offered by relevance, as every tool beyond the core is: the input asks for both.
    const r = await rig.chat("echo hello mcp, then get the sum of 2 and 3");
    expect(r.exitCode).toBe(0);
    const sent = (rig.llm.requests[1]!.body as { messages: { role: string; content: string }[] }).messages
      .filter((m) => m.role === "tool")
      .map((m) => m.content);
    expect(sent[0]).toContain("hello mcp");
    expect(sent[1]).toContain("5");
    // What a server returns is its text, not the person's: logged marked, read-only hint or not.
    const db = new Database(join(dir.path, "homed.db"), { readonly: true });
    const marks = db
      .query<{ untrusted: number; mark: string | null }, []>(
        "SELECT untrusted, mark FROM events WHERE kind = 'tool-result' ORDER BY id LIMIT 2",
      )
      .all();
    db.close();
    expect(marks).toEqual([
      { untrusted: 1, mark: "everything_echo" },
      { untrusted: 1, mark: "everything_get-sum" },
    ]);
    // Named to the model among the tools it can call by name (the system prompt).
    expect(JSON.stringify(rig.llm.requests[0]?.body.messages)).toContain("\\neverything_echo: ");

    // A bad call is the model's to correct, checked by the kernel against the server's schema.
    rig.llm.script([{ toolCalls: [{ name: "everything_get-sum", arguments: { a: "two" } }] }, { text: "ok" }]);
    await rig.chat("bad sum");
    expect(
      (rig.llm.requests[3]!.body as { messages: { role: string; content: string }[] }).messages.at(-1)!.content,
    ).toContain("invalid arguments");

    // tools_find gives the server's own schema for the tool.
    rig.llm.script([{ toolCalls: [{ name: "tools_find", arguments: { query: "everything_echo" } }] }, { text: "ok" }]);
    await rig.chat("how do I echo?");
    const found = (rig.llm.requests.at(-1)!.body as { messages: { role: string; content: string }[] }).messages.at(-1)!;
    expect(found.content).toContain("- everything_echo: ");
    expect(found.content).toMatch(/arguments: \{[^\n]*"message"/);

    const pid = Number(readFileSync(pidFile, "utf8").trim());
    process.kill(pid, "SIGKILL");
    await waitTools(rig, (n) => !n.includes("everything_echo"), 5000);
    const killedAt = Date.now();
    await waitTools(rig, (n) => n.includes("everything_echo"));
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(500);
    expect(Number(readFileSync(pidFile, "utf8").trim())).not.toBe(pid);
  }, 60_000);

  test("MCP tools are exec unless the owner opts in, and a server sees only the environment it was given", async () => {
    using dir = tempDir();
    await Bun.write(
      join(dir.path, "config.toml"),
      `[[mcp.servers]]\nname = "everything"\ncommand = "node"\nargs = [${JSON.stringify(EVERYTHING)}, "stdio"]\nenv = { GIVEN_VAR = "given" }\nenv_passthrough = ["PASSED_VAR", "UNSET_VAR"]\n\n[approval]\nallow = ["everything_get-env"]\n`,
    );
    await using rig = await startAgentRig(dir.path, {
      plugin: false,
      env: {
        PASSED_VAR: "passed",
        HOMED_WEB_TOKEN: "tok-should-never-leak-0123456789",
        CLOUD_SECRET: "cloud-should-never-leak",
      },
    });
    await waitTools(rig, (n) => n.includes("everything_get-env"));
    const risk = Object.fromEntries((await rig.status()).tools.map((t) => [t.name, (t as { risk?: string }).risk]));
    // readOnlyHint is the server's word; without the owner's opt-in it lowers nothing.
    expect(risk.everything_echo).toBe("exec");
    expect(risk["everything_get-env"]).toBe("exec");

    rig.llm.script([{ toolCalls: [{ name: "everything_get-env", arguments: {} }] }, { text: "done" }]);
    expect((await rig.chat("show your environment")).exitCode).toBe(0);
    const dump = (rig.llm.requests[1]!.body as { messages: { role: string; content: string }[] }).messages.find(
      (m) => m.role === "tool",
    )!.content;
    const env = JSON.parse(dump) as Record<string, string>;
    expect(env.GIVEN_VAR).toBe("given");
    expect(env.PASSED_VAR).toBe("passed");
    expect(env.PATH).toBeDefined();
    expect(Object.keys(env).filter((k) => k.startsWith("HOMED_") || k === "CLOUD_SECRET" || k === "UNSET_VAR")).toEqual(
      [],
    );
    expect(dump).not.toContain("never-leak");

    // An exec tool is asked about; no answer on the terminal is a no.
    rig.llm.script([{ toolCalls: [{ name: "everything_echo", arguments: { message: "x" } }] }]);
    expect((await rig.chat("echo")).stderr).toContain("no answer: denied");
  }, 60_000);

  test("a passthrough of a HOMED_* variable is a configuration error", async () => {
    using dir = tempDir();
    await Bun.write(
      join(dir.path, "config.toml"),
      `[[mcp.servers]]\nname = "x"\ncommand = "true"\nenv_passthrough = ["HOMED_WEB_TOKEN"]\n`,
    );
    const r = await run([HOMED, "-data", dir.path, "-listen", "127.0.0.1:0"]);
    expect(r.exitCode).toBe(78);
    expect(r.stderr).toContain("mcp.servers");
    expect(r.stderr).toContain("never reach a child");
  });
  test("Stop during an MCP tool sends the server notifications/cancelled, and the turn ends at once", async () => {
    using dir = tempDir();
    const log = join(dir.path, "slow-server.log");
    const server = join(ROOT, "test/fixtures/mcp/slow-server.ts");
    await Bun.write(
      join(dir.path, "config.toml"),
      `[[mcp.servers]]\nname = "slow"\ncommand = ${JSON.stringify(BUN)}\nargs = [${JSON.stringify(server)}, ${JSON.stringify(log)}]\nrisk = "read"\n`,
    );
    await using rig = await startAgentRig(dir.path, { plugin: false });
    await waitTools(rig, (n) => n.includes("slow_wait"));
    const url = await webUrlOf(rig.daemon);
    rig.llm.script([{ toolCalls: [{ name: "slow_wait", arguments: {} }] }]);
    const res = await fetch(`${url}api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-homed": "1" },
      body: JSON.stringify({ conv: "mcp-stop", text: "wait" }),
    });
    const first = new TextDecoder().decode((await res.body!.getReader().read()).value);
    const stream = (JSON.parse(first.split("\n")[0]!.slice(5)) as { stream: string }).stream;
    const text = () => (Bun.file(log).size ? readFileSync(log, "utf8") : "");
    await poll(text, (t) => t.includes("started"), { what: "the MCP tool to start" });
    const t0 = Date.now();
    await fetch(`${url}api/cancel`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-homed": "1" },
      body: JSON.stringify({ stream }),
    });
    await rig.daemon.waitFor(/msg="turn finished".*conv=mcp-stop.*stop=cancelled/);
    await poll(text, (t) => t.includes("cancelled"), { what: "the server to be told the call was cancelled" });
    expect(Date.now() - t0).toBeLessThan(5000);
  }, 60_000);
});
