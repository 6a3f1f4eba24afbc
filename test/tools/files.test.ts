/**
 * The files plugin end to end: the compiled daemon, a scripted model over real HTTP, and
 * `homed chat`. The tools are there (with their risk classes) before the lazy plugin starts;
 * the first call starts it; a file written with files_write is on disk under DATA/workspace and
 * files_read gives it back numbered; and an escape is refused by the plugin itself even when
 * the owner allowed every files tool.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { type AgentRig, startAgentRig } from "../harness/agent-daemon.ts";

type Message = { role: string; content: string; tool_call_id?: string };

/** The tool results the model was sent in request `i`, in order. */
function toolResults(rig: AgentRig, i: number): string[] {
  const body = rig.llm.requests[i]!.body as { messages: Message[] };
  return body.messages.filter((m) => m.role === "tool").map((m) => m.content);
}

function pluginState(st: Record<string, unknown>, name: string): string | undefined {
  return (st.plugins as { name: string; state: string }[]).find((p) => p.name === name)?.state;
}

describe("files plugin through the daemon", () => {
  test("files_write then files_read: the lazy plugin starts on the first call, the file is in DATA/workspace", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "config.toml"), `[approval]\nallow = ["files_*"]\n`);
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const before = await rig.status();
    expect(pluginState(before, "files")).toBe("idle");
    const risk = Object.fromEntries(before.tools.map((t) => [t.name, (t as { risk?: string }).risk]));
    expect(risk).toMatchObject({
      files_read: "read",
      files_list: "read",
      files_glob: "read",
      files_grep: "read",
      files_write: "write",
      files_edit: "write",
    });
    expect(existsSync(join(dir.path, "workspace"))).toBe(false);

    rig.llm.script([
      { toolCalls: [{ name: "files_write", arguments: { path: "notes/hello.txt", content: "hello\nworld\n" } }] },
      { toolCalls: [{ name: "files_read", arguments: { path: "notes/hello.txt" } }] },
      { text: "done" },
    ]);
    const r = await rig.chat("write a note and read it back");
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain("← files_write [ok]");
    expect(readFileSync(join(dir.path, "workspace/notes/hello.txt"), "utf8")).toBe("hello\nworld\n");
    expect(toolResults(rig, 1)).toEqual(["wrote notes/hello.txt: 12 B, 2 lines (new file)"]);
    expect(toolResults(rig, 2).at(-1)).toBe("     1\thello\n     2\tworld");
    expect(pluginState(await rig.status(), "files")).toBe("ready");
  }, 60_000);

  test("files_read of ../../etc/passwd is refused even when [approval] allows files_*; so are /etc/passwd and bad arguments", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "config.toml"), `[approval]\nallow = ["files_*"]\n`);
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([
      {
        toolCalls: [
          { name: "files_read", arguments: { path: "../../etc/passwd" }, id: "c1" },
          { name: "files_read", arguments: { path: "/etc/passwd" }, id: "c2" },
          { name: "files_read", arguments: { path: "x", offset: 0 }, id: "c3" },
        ],
      },
      { text: "could not" },
    ]);
    const r = await rig.chat("show me /etc/passwd");
    expect(r.exitCode).toBe(0);
    expect(r.stderr).not.toContain("? allow");
    const results = toolResults(rig, 1);
    expect(results.length).toBe(3);
    expect(results[0]).toContain("files_read: ../../etc/passwd is outside the allowed roots");
    expect(results[1]).toContain("files_read: /etc/passwd is outside the allowed roots");
    expect(results[2]).toContain("invalid arguments for files_read: /offset must be >= 1");
    for (const text of results) expect(text).not.toContain("root:x:0:0");
  }, 60_000);

  test("with the shipped policy, files_read runs unasked and files_write is asked about (no answer: denied)", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([
      { toolCalls: [{ name: "files_list", arguments: {} }] },
      { toolCalls: [{ name: "files_write", arguments: { path: "x.txt", content: "x" } }] },
      { text: "ok" },
    ]);
    const r = await rig.chat("look around, then write");
    expect(r.stderr).not.toContain("? allow files_list");
    expect(toolResults(rig, 1)).toEqual([". is empty"]);
    expect(r.stderr).toContain("? allow files_write");
    expect(r.stderr).toContain("no answer: denied");
    expect(existsSync(join(dir.path, "workspace/x.txt"))).toBe(false);
  }, 60_000);

  test("a runaway files_grep pattern is stopped with a reason, and the plugin answers on (not killed as hung)", async () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, "workspace"));
    writeFileSync(join(dir.path, "workspace/evil.txt"), `${"a".repeat(40)}b\n`.repeat(8));
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([
      { toolCalls: [{ name: "files_list", arguments: {} }] },
      { toolCalls: [{ name: "files_grep", arguments: { pattern: "^(a+)+$" } }] },
      { toolCalls: [{ name: "files_glob", arguments: { pattern: "*.txt" } }] },
      { text: "done" },
    ]);
    const r = await rig.chat("grep");
    expect(r.exitCode).toBe(0);
    const stopped = toolResults(rig, 2).at(-1);
    expect(stopped).toContain("(stopped: matching /^(a+)+$/ in evil.txt took");
    expect(stopped).toContain("so simplify it)");
    expect(toolResults(rig, 3).at(-1)).toBe("evil.txt");
    const files = ((await rig.status()).plugins as { name: string; state: string; crashesInWindow: number }[]).find(
      (p) => p.name === "files",
    );
    expect(files).toMatchObject({ state: "ready", crashesInWindow: 0 });
    expect(rig.daemon.stderr()).not.toContain("killed as hung");
  }, 60_000);
});
