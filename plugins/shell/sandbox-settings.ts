/**
 * What the sandbox needs from config.toml: [tools.sandbox] and the workspace, which is the first
 * of [tools.files] roots (the folder files_* work in, so both tool families see the same files).
 */
import * as v from "valibot";
import { mkdirSync, realpathSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import type { Plugin } from "../sdk/index.ts";

export interface SandboxSettings {
  /** "bwrap": bubblewrap confinement; "none": unconfined, only because the owner said so. */
  mode: "bwrap" | "none";
  /** Share the host's network with sandboxed commands. */
  network: boolean;
  /** Upper bound of a command's run time; a call may ask for less, never more. */
  timeoutMs: number;
  /** Output kept per stream, in bytes (head and tail). */
  outputBytes: number;
  /** Background jobs that may run at once. */
  maxJobs: number;
  /** Real path of the folder bound read-write as the sandbox's working directory. */
  workspace: string;
  /** Where to look for bwrap (the plugin's PATH unless a test says otherwise). */
  searchPath: string;
  /** Real path of the data dir, which must not be inside the workspace (it holds the secrets). */
  dataDir?: string;
}

const ToolsSection = v.object({
  files: v.object({ roots: v.array(v.string()) }),
  sandbox: v.object({
    mode: v.picklist(["bwrap", "none"]),
    network: v.boolean(),
    timeout_ms: v.number(),
    output_kb: v.number(),
    max_jobs: v.number(),
  }),
});

/** The workspace folder: the first files root (absolute, or relative to the data dir), created if missing. */
export function resolveWorkspace(dataDir: string, roots: readonly string[]): string {
  const root = roots[0] ?? "workspace";
  const path = isAbsolute(root) ? root : join(dataDir, root);
  mkdirSync(path, { recursive: true, mode: 0o700 });
  return realpathSync(path);
}

/** Ask the kernel for [tools] and make the settings both sandboxed tool plugins use. */
export async function loadSandboxSettings(plugin: Plugin): Promise<SandboxSettings> {
  const tools = await plugin.call(PluginMethod.ConfigGet, { section: "tools" }, ToolsSection);
  const s = tools.sandbox;
  return {
    mode: s.mode,
    network: s.network,
    timeoutMs: s.timeout_ms,
    outputBytes: s.output_kb * 1024,
    maxJobs: s.max_jobs,
    workspace: resolveWorkspace(plugin.hello.dataDir, tools.files.roots),
    searchPath: process.env.PATH ?? "/usr/bin:/bin",
    dataDir: realpathSync(plugin.hello.dataDir),
  };
}
