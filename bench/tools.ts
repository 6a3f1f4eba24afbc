/**
 * Tool figures: `tools.count` is the length of `homed tools list` from the built binary (every
 * built-in tool; MCP tools are not built in). The per-tool timings live beside their plugins'
 * benchmarks and are reported from here; `tools.shell_start_ms` is the sandbox of shell_run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSandboxed } from "../plugins/shell/sandbox.ts";
import { median, report } from "./report.ts";

const ROOT = join(import.meta.dir, "..");

export async function benchTools(): Promise<void> {
  const proc = Bun.spawnSync([join(ROOT, "dist/homed"), "tools", "list", "-json"], { stderr: "inherit" });
  if (proc.exitCode !== 0) throw new Error(`homed tools list exited ${proc.exitCode}`);
  const list = JSON.parse(proc.stdout.toString()) as unknown[];
  report("tools.count", list.length, "tools", 0);
  await benchShellStart();
}

/**
 * `tools.shell_start_ms`: wall time of `true` through shell_run's sandbox (bwrap with every
 * namespace unshared, the system bound read-only, a workspace bound read-write), the median of
 * 20 runs after one warm-up (which also pays the one-time check that bwrap works here).
 */
async function benchShellStart(): Promise<void> {
  const workspace = mkdtempSync(join(tmpdir(), "homed-bench-ws-"));
  try {
    const settings = {
      mode: "bwrap" as const,
      network: false,
      timeoutMs: 10_000,
      outputBytes: 64 * 1024,
      maxJobs: 1,
      workspace,
      searchPath: process.env.PATH ?? "/usr/bin:/bin",
    };
    const times: number[] = [];
    for (let i = 0; i <= 20; i++) {
      const t0 = performance.now();
      const r = await runSandboxed(settings, "bench", { argv: ["true"] });
      const ms = performance.now() - t0;
      if ("refused" in r) throw new Error(r.refused);
      if (r.exitCode !== 0) throw new Error(`sandboxed true exited ${r.exitCode}: ${r.stderr.text()}`);
      if (i > 0) times.push(ms);
    }
    report("tools.shell_start_ms", median(times), "ms");
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
