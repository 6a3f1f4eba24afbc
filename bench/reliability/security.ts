/**
 * security.exfil_requests, security.guesses_before_429.<kind>: the web surface against the two
 * attacks of issue 28, loopback only.
 *
 * - exfil_requests: headless Chromium opens a conversation whose reply points remote images,
 *   inline HTML, CSS and SVG at a counting server; the requests that server and Chromium saw
 *   (goal 0).
 * - guesses_before_429.<kind>: wrong secrets answered before the first 429 from one client, at
 *   the login form, a /v1 bearer token, an A2A peer token and the QQ channel's access token
 *   (goal ≤ 5 each; 100 means no limit was met).
 * - slow_conns_healthz_ms: the slowest of 20 authenticated GET /healthz from 127.0.0.1 while
 *   SLOW_CONNECTIONS connections from 127.0.0.2 and up (SLOW_ADDRESSES of them), opened by
 *   HOLDERS processes (slow-holder.ts), sit on a request body they never finish (goal ≤ 1000),
 *   asked once the server has dealt with the burst of opening them (their open count settled);
 *   slow_conns_open: how many of them the server still held open then. By default the slow
 *   clients have no token and are refused at once; the _noauth figures are the same with
 *   [web] auth = "none", where the per-client cap and the budget for all clients hold them.
 */
import { linesOf } from "../../src/client/stdin-lines.ts";
import { tempDir } from "../../test/harness/binary.ts";
import { launchBrowser } from "../../test/harness/browser.ts";
import { startDaemon, webUrlOf } from "../../test/harness/daemon.ts";
import { probeExfil } from "../../test/harness/exfil-probe.ts";
import { DOOR_KINDS, guessesBefore429, openDoor } from "../../test/harness/guess-doors.ts";
import { join } from "node:path";
import { report } from "../report.ts";

const SLOW_CONNECTIONS = 20_000;
const SLOW_ADDRESSES = 100;
const HOLDERS = 4;
const TOKEN = "bench-security-token-0123456789";

async function slowConnsHealthzMs(env: Record<string, string>): Promise<{ worstMs: number; open: number }> {
  using dir = tempDir();
  await using d = await startDaemon(dir.path, { env, loopbackLogin: true });
  const url = await webUrlOf(d);
  const addresses = Array.from(
    { length: SLOW_ADDRESSES },
    (_, i) => `127.0.${Math.floor((i + 2) / 256)}.${(i + 2) % 256}`,
  );
  const per = SLOW_ADDRESSES / HOLDERS;
  const holders = Array.from({ length: HOLDERS }, (_, h) =>
    Bun.spawn(
      [
        process.execPath,
        join(import.meta.dir, "slow-holder.ts"),
        url,
        String(SLOW_CONNECTIONS / HOLDERS),
        ...addresses.slice(h * per, (h + 1) * per),
      ],
      { stdin: "pipe", stdout: "pipe", stderr: "inherit" },
    ),
  );
  try {
    const lines = holders.map((p) => linesOf(p.stdout));
    for (const next of lines) if ((await next()) !== "sent") throw new Error("a slow holder did not start");
    const openNow = async () => {
      let n = 0;
      for (const [i, p] of holders.entries()) {
        p.stdin.write("stats\n");
        n += (JSON.parse((await lines[i]?.()) ?? "{}") as { open: number }).open;
      }
      return n;
    };
    // The figure is about connections being held, not the burst of opening them: wait until the
    // server has answered (or let stand) every one — the open count the same twice, 500 ms apart.
    const t0 = performance.now();
    for (let last = -1, now = await openNow(); now !== last && performance.now() - t0 < 60_000; ) {
      await Bun.sleep(500);
      last = now;
      now = await openNow();
    }
    console.error(`security: the slow connections settled in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    let worst = 0;
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const res = await fetch(`${url}healthz`, {
        headers: env.HOMED_WEB_TOKEN ? { authorization: `Bearer ${env.HOMED_WEB_TOKEN}` } : {},
        signal: AbortSignal.timeout(30_000),
      });
      const body = (await res.json()) as { kernel?: unknown };
      if (res.status !== 200 || !body.kernel) throw new Error(`/healthz answered ${res.status} without the details`);
      worst = Math.max(worst, performance.now() - t0);
    }
    const open = await openNow();
    console.error(`security: ${open} of ${SLOW_CONNECTIONS} slow connections still open while /healthz was asked`);
    return { worstMs: worst, open };
  } finally {
    for (const p of holders) {
      p.stdin.end();
      p.kill();
    }
    await Promise.all(holders.map((p) => p.exited));
  }
}

export async function benchSecurity(): Promise<void> {
  const browser = await launchBrowser();
  try {
    const probe = await probeExfil(browser);
    report("security.exfil_requests", probe.requests.length + probe.attempted.length, "requests", 0);
  } finally {
    await browser.close();
  }
  for (const kind of DOOR_KINDS) {
    await using door = await openDoor(kind);
    const { wrong } = await guessesBefore429(door, 100);
    report(`security.guesses_before_429.${kind}`, wrong, "guesses", 0);
  }
  // The default: the slow clients have no token, so each is answered 401 and closed at once.
  const slow = await slowConnsHealthzMs({ HOMED_WEB_TOKEN: TOKEN });
  report("security.slow_conns_healthz_ms", slow.worstMs, "ms", 1);
  report("security.slow_conns_open", slow.open, "connections", 0);
  // [web] auth = "none": every local client is let in, so the slow bodies reach the upload
  // handler and only the per-client cap and the budget for all clients hold them back.
  const trusting = await slowConnsHealthzMs({ HOMED_WEB_AUTH: "none" });
  report("security.slow_conns_healthz_ms_noauth", trusting.worstMs, "ms", 1);
  report("security.slow_conns_open_noauth", trusting.open, "connections", 0);
}

if (import.meta.main) await benchSecurity();
