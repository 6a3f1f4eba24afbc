/** Stage and tool registries and the approval policy, through their public APIs. */
import * as v from "valibot";
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { StageRegistry } from "../../src/agent/stages.ts";
import { ToolRegistry } from "../../src/agent/tools.ts";
import { ApprovalPolicy, isPolicyPattern } from "../../src/agent/approval.ts";
import { RegisterToolsParams, type RiskClass } from "../../src/protocol/agent.ts";
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
    t.register("p1", {
      name: "x",
      description: "",
      parameters: { type: "object" },
      risk: "read",
      approval: "auto",
      untrustedOutput: false,
      sendsOut: false,
      checks: false,
      examples: [],
    });
    expect(() =>
      t.register("p2", {
        name: "x",
        description: "",
        parameters: { type: "object" },
        risk: "read",
        approval: "auto",
        untrustedOutput: false,
        sendsOut: false,
        checks: false,
        examples: [],
      }),
    ).toThrow("already registered by plugin p1");
    expect(() =>
      t.register("p2", {
        name: "y",
        description: "",
        parameters: { type: "object", properties: { a: { type: "no-such-type" } } },
        risk: "read",
        approval: "auto",
        untrustedOutput: false,
        sendsOut: false,
        checks: false,
        examples: [],
      }),
    ).toThrow("does not compile");
    expect(t.unregister("p1")).toBe(1);
    expect(t.unregister("p1")).toBe(0);
  });
  test("a registration without a risk class does not parse", () => {
    const r = v.safeParse(RegisterToolsParams, {
      tools: [{ name: "x", description: "", parameters: { type: "object" } }],
    });
    expect(r.success).toBe(false);
    expect(
      v.safeParse(RegisterToolsParams, {
        tools: [{ name: "x", description: "", parameters: { type: "object" }, risk: "dangerous" }],
      }).success,
    ).toBe(false);
    expect(
      v.safeParse(RegisterToolsParams, {
        tools: [{ name: "x", description: "", parameters: { type: "object" }, risk: "network" }],
      }).success,
    ).toBe(true);
  });
});

describe("ApprovalPolicy", () => {
  const tool = (name: string, risk: RiskClass = "exec", wantsApproval = false) => ({ name, risk, wantsApproval });
  const rules = {
    timeout_ms: 1000,
    allow: ["safe_*", "risk:network"],
    ask: ["files_write"],
    deny: ["rm_*"],
    untrusted_deny: ["shell_*"],
  };
  const policy = new ApprovalPolicy({ default: "allow", ...rules });
  test("deny wins, then untrusted_deny, allow, ask, the tool's own wish, the default", () => {
    expect(policy.decide(tool("rm_all"), false)).toEqual({ kind: "deny", reason: "policy denies rm_all" });
    expect(policy.decide(tool("shell_run"), true).kind).toBe("deny");
    expect(policy.decide(tool("shell_run"), false).kind).toBe("allow");
    expect(policy.decide(tool("safe_x", "exec", true), false).kind).toBe("allow");
    expect(policy.decide(tool("files_write"), false).kind).toBe("ask");
    expect(policy.decide(tool("anything", "exec", true), false).kind).toBe("ask");
    expect(policy.decide(tool("anything"), false).kind).toBe("allow");
  });
  test("as shipped (default ask): read runs unasked, every other class is asked, risk:<class> rules match by class", () => {
    const shipped = new ApprovalPolicy({ default: "ask", ...rules });
    expect(shipped.decide(tool("notes_search", "read"), false).kind).toBe("allow");
    for (const risk of ["write", "exec", "secret"] as const)
      expect(shipped.decide(tool("x", risk), false).kind).toBe("ask");
    expect(shipped.decide(tool("web_fetch", "network"), false).kind).toBe("allow");
    // A read tool that asks for itself is still asked; default deny denies read tools too.
    expect(shipped.decide(tool("peek", "read", true), false).kind).toBe("ask");
    expect(new ApprovalPolicy({ default: "deny", ...rules }).decide(tool("notes_search", "read"), false).kind).toBe(
      "deny",
    );
  });
  test("patterns are tool globs or risk:<known class>", () => {
    expect(isPolicyPattern("shell_*")).toBe(true);
    expect(isPolicyPattern("risk:write")).toBe(true);
    expect(isPolicyPattern("risk:dangerous")).toBe(false);
    expect(isPolicyPattern("")).toBe(false);
  });
});

describe("one gate", () => {
  test("only the ToolExecutor sends tool/run to plugins", () => {
    const hits: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (p.endsWith(".ts") && /AgentMethod\.RunTool|["']tool\/run["']/.test(readFileSync(p, "utf8")))
          hits.push(relative(ROOT, p));
      }
    };
    walk(join(ROOT, "src"));
    // protocol/agent.ts defines the name; the executor is its only sender. The plugin template
    // (`homed plugin new`) writes a test for the new plugin that plays the kernel's part.
    expect(hits.sort()).toEqual(["src/agent/tool-executor.ts", "src/cli/plugin-template.ts", "src/protocol/agent.ts"]);
  });
});
