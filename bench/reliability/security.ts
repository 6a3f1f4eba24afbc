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
 */
import { launchBrowser } from "../../test/harness/browser.ts";
import { probeExfil } from "../../test/harness/exfil-probe.ts";
import { DOOR_KINDS, guessesBefore429, openDoor } from "../../test/harness/guess-doors.ts";
import { report } from "../report.ts";

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
}

if (import.meta.main) await benchSecurity();
