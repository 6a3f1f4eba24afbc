/**
 * The standing tool offer (src/agent/tool-offer.ts), through dist/homed with the scripted model:
 * what each model call carries is in the fake LLM's record. Every call of a fresh install carries
 * the core and names every other tool at the end of the system prompt; tools_find answers with a
 * tool's arguments and the call by name runs; the tools block does not change from turn to turn,
 * whatever the prompts ask for. A call to a tool that was not carried meets the same gate as any
 * other.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import type { RecordedRequest } from "../harness/fake-llm.ts";
import { coreTools, gloss, HABIT_TOOLS, standingOffer, toolCatalog, turnOffer } from "../../src/agent/tool-offer.ts";
import type { RegisteredTool } from "../../src/agent/tools.ts";

const offered = (r: RecordedRequest | undefined) =>
  ((r?.body.tools as { function: { name: string } }[] | undefined) ?? []).map((t) => t.function.name).sort();
/** The system prompt: it ends with the tools the call does not carry. */
const systemPrompt = (r: RecordedRequest | undefined) =>
  ((r?.body.messages as { role: string; content: string }[] | undefined) ?? []).find((m) => m.role === "system")
    ?.content ?? "";

describe("the standing offer", () => {
  test("a plain hello in a fresh default install carries the core, names every other tool, in a body under 8,000 bytes", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    // Every built-in tool is registered: carrying is what changed, not registering.
    const tools = (await rig.status()).tools;
    expect(tools.length).toBeGreaterThan(50);
    rig.llm.script([{ text: "I can read files, search memory and find tools for a task." }]);
    const r = await rig.chat("Hello, what can you do?");
    expect(r.exitCode).toBe(0);
    const req = rig.llm.requests[0];
    expect(offered(req)).toEqual(["files_read", "memory_search", "tools_find"]);
    // Every other tool is named in the system prompt, by its exact name, with what it does.
    const catalog = systemPrompt(req);
    for (const name of ["shell_run", "schedule_create", "files_grep", "files_write", "browser_screenshot"])
      expect(catalog).toContain(`\n${name}: `);
    expect(catalog).not.toContain("\nfiles_read: ");
    expect(JSON.stringify(req?.body).length).toBeLessThanOrEqual(8_000);
  }, 60_000);

  test("tools_find gives a tool's arguments, the call by its name runs, and the tools block never moves", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([
      { toolCalls: [{ name: "tools_find", arguments: { query: "notes_list" } }] },
      { toolCalls: [{ name: "notes_list", arguments: {} }] },
      { text: "Done." },
    ]);
    const r = await rig.chat("list my notes");
    expect(r.stdout).toContain("Done.");
    expect(r.stderr).toContain("← notes_list [ok]");
    const [first, second, third] = rig.llm.requests;
    const sent = (second?.body.messages ?? []) as { role: string; content: string }[];
    const found = sent.findLast((m) => m.role === "tool");
    expect(found?.content).toContain("- notes_list: ");
    expect(found?.content).toContain("arguments: {");
    // Neither the find nor the call changed what the calls carry.
    expect(JSON.stringify(second?.body.tools)).toBe(JSON.stringify(first?.body.tools));
    expect(JSON.stringify(third?.body.tools)).toBe(JSON.stringify(first?.body.tools));
    rig.llm.script([{ text: "You're welcome." }]);
    await rig.chat("thanks, and take a screenshot of example.com next time");
    expect(JSON.stringify(rig.llm.requests[3]?.body.tools)).toBe(JSON.stringify(first?.body.tools));
  }, 60_000);

  test("a call to a tool that was not offered passes the same gate: asked, declined, then allowed", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path);
    // Every call of the round denied ends the turn: no second model call.
    rig.llm.script([{ toolCalls: [{ name: "shell_exec", arguments: '{"cmd":"ls"}' }] }]);
    const declined = await rig.chat("hello", { stdin: "n\n" });
    expect(offered(rig.llm.requests[0])).not.toContain("shell_exec");
    expect(declined.stderr).toContain("? allow shell_exec");
    expect(declined.stderr).toContain("denied: the user declined shell_exec");
    expect(rig.seen().some((s) => s.tool === "shell_exec")).toBe(false);

    rig.llm.script([{ toolCalls: [{ name: "shell_exec", arguments: '{"cmd":"ls"}' }] }, { text: "ran" }]);
    const approved = await rig.chat("hello again", { stdin: "y\n" });
    expect(approved.stderr).toContain("? allow shell_exec");
    expect(approved.stdout).toContain("ran");
    expect(rig.seen().some((s) => s.tool === "shell_exec")).toBe(true);
  }, 60_000);
});

describe("what the standing offer is made of", () => {
  const tool = (plugin: string, name: string, core = false, local = false) =>
    ({
      plugin,
      def: { name, ...(core ? { core } : {}) },
      ...(local ? { local: {} } : {}),
    }) as unknown as RegisteredTool;
  const tools = [
    tool("kernel", "memory_search", true, true),
    tool("kernel", "tools_find", true, true),
    tool("kernel", "skill", false, true),
    tool("kernel", "skill_file", false, true),
    tool("files", "files_read", true),
    ...[
      "files_write",
      "files_grep",
      "shell_run",
      "notes_list",
      "notes_add",
      "music_play",
      "rss_list",
      "calendar_add",
    ].map((n) => tool(n.split("_")[0] as string, n)),
  ];
  const builtin = () => true;

  test("the core, then the tools the person called most (ties by name), the skill tools while a skill can be loaded", () => {
    const use = new Map([
      ["shell_run", 9],
      ["notes_list", 3],
      ["files_read", 40],
      ["music_play", 3],
      ["gone_tool", 50],
      ["rss_list", 0],
    ]);
    expect([...standingOffer(tools, use, builtin, false)]).toEqual([
      "memory_search",
      "tools_find",
      "files_read",
      "shell_run",
      "music_play",
      "notes_list",
    ]);
    expect([...standingOffer(tools, new Map(), builtin, true)]).toEqual([
      "memory_search",
      "tools_find",
      "files_read",
      "skill",
      "skill_file",
    ]);
    const many = new Map(tools.map((t, i) => [t.def.name, i + 1]));
    expect(standingOffer(tools, many, builtin, false).size).toBe(3 + HABIT_TOOLS);
  });

  test("a scene's or sub-agent's list narrows it; a short one is carried whole", () => {
    const standing = new Set(["memory_search", "tools_find", "files_read", "shell_run"]);
    expect(turnOffer(standing, null)).toEqual(standing);
    expect(turnOffer(standing, new Set(["echo_text"]))).toBeNull();
    const long = new Set(["tools_find", ...Array.from({ length: 20 }, (_, i) => `t${i}`)]);
    expect(turnOffer(standing, long)).toEqual(new Set(["tools_find"]));
  });

  test("the catalog fits the share of the window it is given: lines, else names, else how many", () => {
    const specs = ["shell_run", "notes_list", "files_write"].map((name) => ({
      name,
      description: `Does what ${name} does. More words follow.`,
      parameters: {},
    }));
    expect(toolCatalog(specs)).toBe(
      "files_write: Does what files_write does\nnotes_list: Does what notes_list does\nshell_run: Does what shell_run does",
    );
    expect(toolCatalog(specs, 12)).toBe("files_write, notes_list, shell_run");
    expect(toolCatalog(specs, 4)).toBe("3 more; ask tools_find for the one you need.");
    expect(toolCatalog([], 4)).toBe("");
  });

  test("a catalog line is what a description says first, cut at a word", () => {
    expect(gloss("Read a text file, with line numbers. Large files come a page at a time.")).toBe("Read a text file");
    expect(gloss("Run a shell command (bash -c) in a sandbox: the workspace is the working directory.")).toBe(
      "Run a shell command",
    );
    expect(gloss("Read a note: its Markdown text.")).toBe("Read a note");
    const long = gloss(`Do ${"very ".repeat(30)}much.`);
    expect(long).toEndWith("very…");
    expect(long.length).toBeLessThanOrEqual(41);
  });
});

describe("the core of every offer", () => {
  const tool = (plugin: string, name: string, core: boolean, local = false) =>
    ({
      plugin,
      def: { name, ...(core ? { core } : {}) },
      ...(local ? { local: {} } : {}),
    }) as unknown as RegisteredTool;

  test("is what the kernel's and built-in plugins' definitions say is core; an installed plugin's claim is ignored", () => {
    const tools = [
      tool("kernel", "memory_search", true, true),
      tool("files", "files_read", true),
      tool("files", "files_write", false),
      tool("weather", "weather_now", true),
    ];
    expect(coreTools(tools, (p) => p === "files")).toEqual(["memory_search", "files_read"]);
  });
});
