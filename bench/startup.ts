/**
 * Binary sizes and daemon start-up: from spawning dist/homed on a fresh data dir to its control
 * socket answering a `status` request.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { connectUnixRpc } from "../src/ipc/unix-rpc.ts";
import { median, report } from "./report.ts";

const ROOT = resolve(import.meta.dir, "..");
const quiet = { warn: () => {}, debug: () => {} };

/** Resident memory of a process in MiB, from /proc. */
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : 0;
}

/**
 * Start a daemon with its default plugins; time until every plugin is ready, then, after a
 * second of idling, the resident memory of the daemon and its plugins together.
 */
async function pluginsReady(): Promise<{ readyMs: number; rssMb: number }> {
  const data = mkdtempSync(join(tmpdir(), "homed-bench-"));
  const socket = join(data, "homed.sock");
  const t0 = performance.now();
  const proc = Bun.spawn([join(ROOT, "dist/homed"), "-data", data, "-listen", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "ignore"] });
  try {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`homed exited with ${proc.exitCode}`);
      if (performance.now() - t0 > 30_000) throw new Error("plugins not ready after 30 s");
      if (existsSync(socket)) {
        try {
          const c = await connectUnixRpc(socket, quiet, { timeoutMs: 2000 });
          const st = (await c.peer.request("status")) as { plugins: { state: string; pid: number | null }[] };
          c.close();
          // Plugins turned off by configuration (or lazy ones) are settled without running.
          const settled = st.plugins.every((p) => p.state === "ready" || p.state === "disabled" || p.state === "idle");
          if (st.plugins.some((p) => p.state === "ready") && settled) {
            const readyMs = performance.now() - t0;
            await Bun.sleep(1000);
            const rssMb = rssMiB(proc.pid) + st.plugins.reduce((sum, p) => sum + (p.pid ? rssMiB(p.pid) : 0), 0);
            return { readyMs, rssMb };
          }
        } catch {
          // Not answering yet.
        }
      }
      await Bun.sleep(1);
    }
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    rmSync(data, { recursive: true, force: true });
  }
}

async function timeToReady(): Promise<number> {
  const data = mkdtempSync(join(tmpdir(), "homed-bench-"));
  const socket = join(data, "homed.sock");
  const t0 = performance.now();
  const proc = Bun.spawn([join(ROOT, "dist/homed"), "-data", data, "-listen", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "ignore"] });
  try {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`homed exited with ${proc.exitCode}`);
      if (performance.now() - t0 > 30_000) throw new Error("no answer on the control socket after 30 s");
      if (existsSync(socket)) {
        try {
          const c = await connectUnixRpc(socket, quiet, { timeoutMs: 2000 });
          await c.peer.request("status");
          c.close();
          return performance.now() - t0;
        } catch {
          // Socket file present but not accepting yet: try again.
        }
      }
      await Bun.sleep(1);
    }
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    rmSync(data, { recursive: true, force: true });
  }
}

export async function benchStartup(): Promise<void> {
  const mb = (p: string) => statSync(join(ROOT, p)).size / (1024 * 1024);
  report("binary.mb", mb("dist/homed"), "MiB");
  report("binary_arm64.mb", mb("dist/homed-linux-arm64"), "MiB");
  const runs: number[] = [];
  await timeToReady(); // warm the page cache: the first start after a build reads 100 MiB from disk
  for (let i = 0; i < 15; i++) runs.push(await timeToReady());
  report("start.ready_ms", median(runs), "ms");
  const plugins: { readyMs: number; rssMb: number }[] = [];
  for (let i = 0; i < 5; i++) plugins.push(await pluginsReady());
  report("plugins.ready_ms", median(plugins.map((p) => p.readyMs)), "ms");
  report("rss.idle_mb", median(plugins.map((p) => p.rssMb)), "MiB");
}
