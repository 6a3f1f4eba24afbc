/**
 * Tool figures: `tools.count` is the length of `homed tools list` from the built binary (every
 * built-in tool; MCP tools are not built in). The per-tool timings live beside their plugins'
 * benchmarks and are reported from here.
 */
import { join } from "node:path";
import { report } from "./report.ts";

const ROOT = join(import.meta.dir, "..");

export async function benchTools(): Promise<void> {
  const proc = Bun.spawnSync([join(ROOT, "dist/homed"), "tools", "list", "-json"], { stderr: "inherit" });
  if (proc.exitCode !== 0) throw new Error(`homed tools list exited ${proc.exitCode}`);
  const list = JSON.parse(proc.stdout.toString()) as unknown[];
  report("tools.count", list.length, "tools", 0);
}
