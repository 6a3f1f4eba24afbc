import { describe, expect, test } from "bun:test";
import { HOMED, run } from "./harness/binary.ts";
import { RISK_CLASSES } from "../src/protocol/agent.ts";
import { BUILTIN_PLUGINS } from "../src/generated/builtin-plugins.ts";
import { MEMORY_SEARCH_TOOL } from "../src/agent/memory-tool.ts";
import { AGENT_SPAWN_TOOL } from "../src/agent/agent-spawn.ts";
import { TOOLS_FIND_TOOL } from "../src/agent/tools-find.ts";

describe("homed tools list", () => {
  test("lists every built-in tool once, with its plugin and a risk class, without a daemon", async () => {
    const r = await run([HOMED, "tools", "list", "-json"]);
    expect(r.exitCode).toBe(0);
    const list = JSON.parse(r.stdout) as { name: string; plugin: string; risk: string }[];
    expect(list.find((t) => t.name === "memory_search")).toMatchObject({ plugin: "kernel", risk: "read" });
    expect(new Set(list.map((t) => t.name)).size).toBe(list.length);
    for (const t of list) {
      expect(RISK_CLASSES as readonly string[]).toContain(t.risk);
      if (t.plugin !== "kernel") expect(t.name.startsWith(`${t.plugin}_`)).toBe(true);
    }
    const fromManifests = BUILTIN_PLUGINS.reduce((n, m) => n + m.tools.length, 0);
    // The kernel's own tools: memory_search, agent_spawn, tools_find, skill and skill_file (src/agent/).
    expect(list.filter((t) => t.plugin === "kernel").map((t) => t.name)).toEqual([
      "agent_spawn",
      "memory_search",
      "skill",
      "skill_file",
      "tools_find",
    ]);
    expect(list.find((t) => t.name === "agent_spawn")).toMatchObject({ plugin: "kernel", risk: "exec" });
    expect(list.length).toBe(fromManifests + 5);
    const text = await run([HOMED, "tools", "list"]);
    expect(text.stdout).toContain("memory_search");
    expect(text.stdout).toContain(`${list.length} tools`);
  });

  test("every built-in tool is described in ASCII, so request bodies stay on JSON.stringify's Latin-1 path", () => {
    // One character beyond Latin-1 after a long context made stringifying a request 3 ms slower.
    const defs = [...BUILTIN_PLUGINS.flatMap((m) => m.tools), MEMORY_SEARCH_TOOL, AGENT_SPAWN_TOOL, TOOLS_FIND_TOOL];
    // What the model is sent of a tool (src/agent/tools.ts specs); its examples, in any language, never are.
    for (const d of defs) {
      const sent = JSON.stringify({ name: d.name, description: d.description, parameters: d.parameters });
      expect([d.name, [...sent].every((ch) => ch.charCodeAt(0) < 128)]).toEqual([d.name, true]);
    }
  });

  test("anything but list is a usage error", async () => {
    expect((await run([HOMED, "tools"])).exitCode).toBe(2);
    expect((await run([HOMED, "tools", "frob"])).exitCode).toBe(2);
  });
});
