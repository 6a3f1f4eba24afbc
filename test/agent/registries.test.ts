/** Stage and tool registries and the approval policy, through their public APIs. */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { StageRegistry } from "../../src/agent/stages.ts";
import { ToolRegistry } from "../../src/agent/tools.ts";
import { ApprovalPolicy } from "../../src/agent/approval.ts";
import { ROOT } from "../harness/binary.ts";

describe("StageRegistry", () => {
  test("unregisterPluginStages removes only that plugin's handlers and returns how many; twice gives 0", () => {
    const r = new StageRegistry();
    r.register("solo", "after_toolcall");
    r.register("solo", "on_input", 5);
    r.register("other", "on_input", 1);
    expect(r.unregisterPluginStages("solo")).toBe(2);
    expect(r.unregisterPluginStages("solo")).toBe(0);
    expect(r.of("on_input").map((h) => h.plugin)).toEqual(["other"]);
    expect(r.of("after_toolcall")).toEqual([]);
  });

  test("handlers run by priority, lower first, ties in registration order", () => {
    const r = new StageRegistry();
    r.register("b", "pre_action", 50);
    r.register("a", "pre_action", 10);
    r.register("c", "pre_action", 50);
    expect(r.of("pre_action").map((h) => h.plugin)).toEqual(["a", "b", "c"]);
  });
});

describe("ToolRegistry", () => {
  test("a name held by another plugin, or a schema that does not compile, is refused", () => {
    const t = new ToolRegistry();
    t.register("p1", { name: "x", description: "", parameters: { type: "object" }, approval: "auto" });
    expect(() => t.register("p2", { name: "x", description: "", parameters: { type: "object" }, approval: "auto" })).toThrow("already registered by plugin p1");
    expect(() => t.register("p2", { name: "y", description: "", parameters: { type: "object", properties: { a: { type: "no-such-type" } } }, approval: "auto" })).toThrow("does not compile");
    expect(t.unregister("p1")).toBe(1);
    expect(t.unregister("p1")).toBe(0);
  });
});

describe("ApprovalPolicy", () => {
  const policy = new ApprovalPolicy({ default: "allow", timeout_ms: 1000, allow: ["safe_*"], ask: ["files_write"], deny: ["rm_*"], untrusted_deny: ["shell_*"] });
  test("deny wins, then untrusted_deny, allow, ask, the tool's own wish, the default", () => {
    expect(policy.decide("rm_all", false, false)).toEqual({ kind: "deny", reason: "policy denies rm_all" });
    expect(policy.decide("shell_run", false, true).kind).toBe("deny");
    expect(policy.decide("shell_run", false, false).kind).toBe("allow");
    expect(policy.decide("safe_x", true, false).kind).toBe("allow");
    expect(policy.decide("files_write", false, false).kind).toBe("ask");
    expect(policy.decide("anything", true, false).kind).toBe("ask");
    expect(policy.decide("anything", false, false).kind).toBe("allow");
  });
  test("untrusted input is never asked about: what would be asked is denied", () => {
    expect(policy.decide("files_write", false, true)).toEqual({ kind: "deny", reason: "files_write needs a person's approval, and the input is untrusted" });
    expect(new ApprovalPolicy({ default: "ask", timeout_ms: 1, allow: [], ask: [], deny: [], untrusted_deny: [] }).decide("x", false, true).kind).toBe("deny");
  });
});

describe("one gate", () => {
  test("only the ToolExecutor sends tool/run to plugins", () => {
    const hits: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (p.endsWith(".ts") && /AgentMethod\.RunTool|["']tool\/run["']/.test(readFileSync(p, "utf8"))) hits.push(relative(ROOT, p));
      }
    };
    walk(join(ROOT, "src"));
    // protocol/agent.ts defines the name; the executor is its only sender.
    expect(hits.sort()).toEqual(["src/agent/tool-executor.ts", "src/protocol/agent.ts"]);
  });
});
