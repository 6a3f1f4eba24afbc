/**
 * Tool figures: `tools.count` is the length of `homed tools list` from the built binary (every
 * built-in tool; MCP tools are not built in). The per-tool timings live beside their plugins'
 * benchmarks and are reported from here; `tools.shell_start_ms` is the sandbox of shell_run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BrowserSession } from "../plugins/browser/session.ts";
import { runSandboxed } from "../plugins/shell/sandbox.ts";
import { median, report } from "./report.ts";

const ROOT = join(import.meta.dir, "..");

export async function benchTools(): Promise<void> {
  const proc = Bun.spawnSync([join(ROOT, "dist/homed"), "tools", "list", "-json"], { stderr: "inherit" });
  if (proc.exitCode !== 0) throw new Error(`homed tools list exited ${proc.exitCode}`);
  const list = JSON.parse(proc.stdout.toString()) as unknown[];
  report("tools.count", list.length, "tools", 0);
  await benchShellStart();
  await benchBrowserOpen();
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

/**
 * `tools.browser_open_ms`: what browser_open costs with the browser already running — navigate
 * to a local page (Bun.serve, allow_private, never cached) and read its text with numbered
 * elements. Median of 5 runs after one warm-up (which also starts Chromium).
 */
async function benchBrowserOpen(): Promise<void> {
  const page = `<!doctype html><title>Bench</title><h1>Bench page</h1>${"<p>Some text, <a href='/x'>a link</a>.</p>".repeat(50)}<input placeholder='q'><button>Go</button>`;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(page, { headers: { "content-type": "text/html", "cache-control": "no-store" } }),
  });
  const profile = mkdtempSync(join(tmpdir(), "homed-bench-browser-"));
  const session = new BrowserSession({
    executable: "/usr/bin/chromium",
    profileDir: profile,
    policy: { allowPrivate: true, allowHosts: [] },
    timeoutMs: 60_000,
  });
  try {
    const times: number[] = [];
    for (let i = 0; i <= 5; i++) {
      const t0 = performance.now();
      const snap = await session.open(`http://127.0.0.1:${server.port}/?run=${i}`);
      const ms = performance.now() - t0;
      if (!snap.text.includes("Bench page") || snap.elements.length !== 52)
        throw new Error(`browser_open read the bench page wrong: ${snap.elements.length} elements`);
      if (i > 0) times.push(ms);
    }
    report("tools.browser_open_ms", median(times), "ms");
  } finally {
    await session.close();
    server.stop(true);
    rmSync(profile, { recursive: true, force: true });
  }
}
