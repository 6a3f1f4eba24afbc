/**
 * leak.fds_after_50_restarts: open file descriptors of the daemon after the web plugin was
 * restarted 50 times (`plugin.restart` on the control socket, each waited until the new process
 * is ready) minus before. Every restart makes a pipe pair, a doorbell socketpair and a segment
 * memfd; all of them must be closed when the old process is gone, so the goal is 0.
 */
import { BenchDaemon, fdCount, rssMiB } from "./bench-daemon.ts";
import { report } from "./report.ts";

const RESTARTS = 50;

async function webReady(d: BenchDaemon, notPid: number | null): Promise<number> {
  for (let i = 0; ; i++) {
    const web = (await d.status()).plugins.find((p) => p.name === "web");
    if (web?.state === "ready" && web.pid !== null && web.pid !== notPid) return web.pid;
    if (i > 6000) throw new Error(`web plugin not ready after a restart: ${JSON.stringify(web)}`);
    await Bun.sleep(5);
  }
}

export async function benchLeak(): Promise<void> {
  const daemon = await BenchDaemon.start();
  try {
    let pid = await webReady(daemon, null);
    const fds0 = fdCount(daemon.pid);
    const rss0 = rssMiB(daemon.pid);
    for (let i = 0; i < RESTARTS; i++) {
      await daemon.request("plugin.restart", { name: "web" });
      pid = await webReady(daemon, pid);
    }
    const fds1 = fdCount(daemon.pid);
    console.error(
      `leak: daemon fds ${fds0} → ${fds1}, rss ${rss0.toFixed(1)} → ${rssMiB(daemon.pid).toFixed(1)} MiB after ${RESTARTS} web restarts`,
    );
    report("leak.fds_after_50_restarts", fds1 - fds0, "fds", 0);
    report("leak.rss_after_50_restarts_mb", rssMiB(daemon.pid) - rss0, "MiB");
  } finally {
    await daemon.stop();
  }
}
