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
 *   SLOW_PER_ADDRESS connections from each of 127.0.0.2–127.0.0.9 sit on a request body they
 *   never finish (goal ≤ 1000).
 */
import { tempDir } from "../../test/harness/binary.ts";
import { launchBrowser } from "../../test/harness/browser.ts";
import { startDaemon, webUrlOf } from "../../test/harness/daemon.ts";
import { probeExfil } from "../../test/harness/exfil-probe.ts";
import { DOOR_KINDS, guessesBefore429, openDoor } from "../../test/harness/guess-doors.ts";
import { holdSlowBodies } from "../../test/harness/slow-clients.ts";
import { report } from "../report.ts";

const SLOW_PER_ADDRESS = 300;
const TOKEN = "bench-security-token-0123456789";

async function slowConnsHealthzMs(): Promise<number> {
  using dir = tempDir();
  await using d = await startDaemon(dir.path, { env: { HOMED_WEB_TOKEN: TOKEN } });
  const url = await webUrlOf(d);
  const from = Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 2}`);
  using slow = holdSlowBodies(url, { count: SLOW_PER_ADDRESS * from.length, from, path: "/api/uploads?name=a.txt" });
  await slow.sent;
  let worst = 0;
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    const res = await fetch(`${url}healthz`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await res.json()) as { kernel?: unknown };
    if (res.status !== 200 || !body.kernel) throw new Error(`/healthz answered ${res.status} without the details`);
    worst = Math.max(worst, performance.now() - t0);
  }
  const held = slow.conns.filter((c) => !c.closed).length;
  console.error(`security: ${held} of ${slow.conns.length} slow connections still open while /healthz was asked`);
  return worst;
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
  report("security.slow_conns_healthz_ms", await slowConnsHealthzMs(), "ms", 1);
}

if (import.meta.main) await benchSecurity();
