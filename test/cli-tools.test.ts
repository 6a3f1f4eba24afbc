import { describe, expect, test } from "bun:test";
import { HOMED, run } from "./harness/binary.ts";
import { RISK_CLASSES } from "../src/protocol/agent.ts";
import { BUILTIN_PLUGINS } from "../src/generated/builtin-plugins.ts";

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
    // The kernel's own tools: memory_search and agent_spawn (src/agent/).
    expect(list.filter((t) => t.plugin === "kernel").map((t) => t.name)).toEqual(["agent_spawn", "memory_search"]);
    expect(list.find((t) => t.name === "agent_spawn")).toMatchObject({ plugin: "kernel", risk: "exec" });
    expect(list.length).toBe(fromManifests + 2);
    const text = await run([HOMED, "tools", "list"]);
    expect(text.stdout).toContain("memory_search");
    expect(text.stdout).toContain(`${list.length} tools`);
  });

  test("anything but list is a usage error", async () => {
    expect((await run([HOMED, "tools"])).exitCode).toBe(2);
    expect((await run([HOMED, "tools", "frob"])).exitCode).toBe(2);
  });
});
