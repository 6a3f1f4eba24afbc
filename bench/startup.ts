/**
 * Binary sizes and daemon start-up: from spawning dist/homed on a fresh data dir to its control
 * socket answering a `status` request.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectUnixRpc } from "../src/ipc/unix-rpc.ts";
import { daemonRssMiB, HOMED, quietRpcLog as quiet, ROOT } from "./bench-daemon.ts";
import { median, report } from "./report.ts";

type Status = { plugins: { state: string; pid: number | null }[] };

/**
 * Spawn dist/homed on a fresh data dir and poll `status` on its control socket until `done`
 * accepts an answer; returns what `done` returned. Gives up after 30 s.
 */
async function withFreshDaemon<T>(done: (st: Status, t0: number, pid: number) => Promise<T | null>): Promise<T> {
  const data = mkdtempSync(join(tmpdir(), "homed-bench-"));
  const socket = join(data, "homed.sock");
  const t0 = performance.now();
  const proc = Bun.spawn([HOMED, "-data", data, "-listen", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "ignore"] });
  try {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`homed exited with ${proc.exitCode}`);
      if (performance.now() - t0 > 30_000) throw new Error("daemon not ready after 30 s");
      if (existsSync(socket)) {
        let st: Status | null = null;
        try {
          const c = await connectUnixRpc(socket, quiet, { timeoutMs: 2000 });
          st = (await c.peer.request("status")) as Status;
          c.close();
        } catch {
          // Socket file present but not accepting yet: try again.
        }
        const result = st ? await done(st, t0, proc.pid) : null;
        if (result !== null) return result;
      }
      await Bun.sleep(1);
    }
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    rmSync(data, { recursive: true, force: true });
  }
}

/** Daemon start to its control socket answering. */
const timeToReady = () => withFreshDaemon(async (_st, t0) => performance.now() - t0);

/**
 * Daemon start to every default plugin settled (ready, or not started by configuration), then,
 * after a second of idling, the resident memory of the daemon and its plugins together.
 */
const pluginsReady = () =>
  withFreshDaemon(async (st, t0, pid) => {
    const settled = st.plugins.every((p) => p.state === "ready" || p.state === "disabled" || p.state === "idle");
    if (!settled || !st.plugins.some((p) => p.state === "ready")) return null;
    const readyMs = performance.now() - t0;
    await Bun.sleep(1000);
    return { readyMs, rssMb: daemonRssMiB(pid, st.plugins) };
  });

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
