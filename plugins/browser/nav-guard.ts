/**
 * The browser's SSRF guard, the same rule as fetch_url's: a page on a private, loopback,
 * link-local (or otherwise non-public, src/protocol/ip-range.ts) address is refused unless the
 * owner sets [tools.browser] allow_private. Checked twice: the URL browser_open is given, before
 * anything is sent; and every document request the browser makes — main frame or frame, the
 * first one and each redirect hop, a link clicked, a form sent, a script's location change —
 * paused over CDP (Fetch domain, request stage) until its host has been resolved and judged.
 *
 * Limit: Chromium resolves the name again itself, so a host whose DNS answer changes between the
 * two lookups (rebinding) is not caught here; fetch_url pins the address, a browser cannot.
 */
import { lookup } from "node:dns/promises";
import type { CDPSession } from "playwright-core";
import { formatIp, nonPublicReason, parseIp } from "../../src/protocol/ip-range.ts";

/** Resolves a host name to every address it has. */
export type Resolve = (host: string) => Promise<string[]>;

const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Why `url` may not be opened (a sentence for the model), or null when it may. */
export async function refusalOf(
  url: string,
  allowPrivate: boolean,
  resolve: Resolve = systemResolve,
): Promise<string | null> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${url} is not a URL`;
  }
  if (u.protocol === "about:" && u.href === "about:blank") return null;
  if (u.protocol !== "http:" && u.protocol !== "https:")
    return `${u.protocol} URLs are not opened (http and https only)`;
  if (allowPrivate) return null;
  const host = u.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  let addresses: string[];
  if (parseIp(host)) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch (err) {
      return `cannot resolve ${host}: ${(err as Error).message}`;
    }
  }
  for (const a of addresses) {
    const ip = parseIp(a);
    const why = ip ? nonPublicReason(ip) : "not an address";
    if (!why) continue;
    const shown = a === host ? host : `${host} resolves to ${ip ? formatIp(ip) : a}, which`;
    return `${shown} is not a public address (${why}); it is refused unless the owner sets [tools.browser] allow_private = true`;
  }
  return null;
}

interface RequestPaused {
  requestId: string;
  request: { url: string };
  resourceType: string;
}

/**
 * Pause every document request of the page `cdp` is attached to and let through only those
 * `refusalOf` allows; `onRefused` hears each refusal (the tool reports the last one).
 */
export async function guardNavigations(
  cdp: CDPSession,
  allowPrivate: boolean,
  onRefused: (url: string, why: string) => void,
  resolve: Resolve = systemResolve,
): Promise<void> {
  cdp.on("Fetch.requestPaused", (ev: RequestPaused) => {
    void (async () => {
      const why = await refusalOf(ev.request.url, allowPrivate, resolve);
      try {
        if (why) {
          onRefused(ev.request.url, why);
          await cdp.send("Fetch.failRequest", { requestId: ev.requestId, errorReason: "BlockedByClient" });
        } else await cdp.send("Fetch.continueRequest", { requestId: ev.requestId });
      } catch {
        // The page or its request went away meanwhile: nothing to let through or stop.
      }
    })();
  });
  await cdp.send("Fetch.enable", {
    patterns: [{ urlPattern: "*", resourceType: "Document", requestStage: "Request" }],
  });
}
