/**
 * A daemon with a fake LLM behind it and the agent fixture plugin installed: what the turn
 * suites start from. `chat()` runs `homed chat` as a person would.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, run, type RunResult } from "./binary.ts";
import { startDaemon, type Daemon } from "./daemon.ts";
import { startFakeLlm, type FakeLlm } from "./fake-llm.ts";
import { installBunPlugin } from "./plugins.ts";
import { poll } from "./poll.ts";

export interface AgentRig {
  data: string;
  daemon: Daemon;
  llm: FakeLlm;
  pluginDir: string;
  /** `homed chat` with optional stdin (approval answers). */
  chat(text: string, opts?: { stdin?: string; conv?: string; json?: boolean }): Promise<RunResult>;
  /** Set what the fixture plugin's stages answer from now on. */
  behave(b: Record<string, unknown>): void;
  /** What the fixture plugin's stages and tools have seen. */
  seen(): { stage?: string; tool?: string; payload?: Record<string, unknown>; args?: Record<string, unknown> }[];
  status(): Promise<
    Record<string, unknown> & {
      tools: { name: string; plugin?: string; risk?: string }[];
      stages: { stage: string; plugin: string }[];
    }
  >;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function startAgentRig(
  data: string,
  opts: {
    env?: Record<string, string>;
    behavior?: Record<string, unknown>;
    plugin?: boolean;
    kind?: "openai" | "anthropic";
    critical?: boolean;
    /** External plugins in their bubblewrap rooms (test/harness/daemon.ts). */
    pluginSandbox?: boolean;
  } = {},
): Promise<AgentRig> {
  const llm = await startFakeLlm();
  const pluginDir = join(data, "plugins", "agent");
  if (opts.plugin !== false) {
    installBunPlugin(data, "agent", "agent.ts", { critical: opts.critical ?? false });
    writeFileSync(join(pluginDir, "behavior.json"), JSON.stringify(opts.behavior ?? {}));
  }
  const daemon = await startDaemon(data, { env: opts.env, pluginSandbox: opts.pluginSandbox });
  const kind = opts.kind ?? "openai";
  const set = await run(
    [
      HOMED,
      "provider",
      "-data",
      data,
      "-kind",
      kind,
      "-base-url",
      kind === "openai" ? llm.url : llm.origin,
      "-model",
      "test-model",
      "-key-stdin",
    ],
    { stdin: "sk-test-secret-key-1234\n" },
  );
  if (set.exitCode !== 0) throw new Error(`provider set failed: ${set.stderr}`);
  const rig: AgentRig = {
    data,
    daemon,
    llm,
    pluginDir,
    async chat(text, o = {}) {
      const args = [
        HOMED,
        "chat",
        "-data",
        data,
        ...(o.conv ? ["-conv", o.conv] : []),
        ...(o.json ? ["-json"] : []),
        text,
      ];
      return await run(args, { stdin: o.stdin ?? "" });
    },
    behave(b) {
      writeFileSync(join(pluginDir, "behavior.json"), JSON.stringify(b));
    },
    seen() {
      const f = join(pluginDir, "seen.jsonl");
      return existsSync(f)
        ? readFileSync(f, "utf8")
            .trim()
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : [];
    },
    async status() {
      return JSON.parse((await run([HOMED, "status", "-data", data, "-json"])).stdout);
    },
    async [Symbol.asyncDispose]() {
      await daemon[Symbol.asyncDispose]();
      await llm.stop();
    },
  };
  if (opts.plugin !== false) {
    // The kernel's own memory_search and built-in plugins' tools are there from boot; wait for the fixture's five.
    const fixtureTools = (st: Awaited<ReturnType<AgentRig["status"]>>) =>
      (st.tools as { plugin?: string }[]).filter((t) => t.plugin === "agent").length;
    await poll(rig.status, (st) => fixtureTools(st) >= 5 && st.stages.length >= 7, {
      what: "the fixture plugin's tools and seven stages",
    });
  }
  return rig;
}
