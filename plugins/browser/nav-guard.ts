/**
 * The browser's SSRF guard, the same rule as fetch_url's: a page on a private, loopback,
 * link-local (or otherwise non-public, src/shared/ip-range.ts) address is refused unless the
 * owner lists its host, address or range in [tools.browser] allow_hosts or sets allow_private.
 * Checked here twice: the URL browser_open is given,
 * before anything is sent; and every request the browser makes — a document (main frame or frame,
 * the first one and each redirect hop, a link clicked, a form sent, a script's location change)
 * and everything a page loads (images, scripts, styles, fetch/XHR, beacons) — paused over CDP
 * (Fetch domain, request stage) until its host has been resolved and judged. With the proxy
 * below, a public page cannot make the browser reach the router, homed's own web UI or a cloud
 * metadata address for it.
 * A refused document is what the tool reports; a refused subresource just fails, as an ad
 * blocker's would, and is counted.
 *
 * Limits: this check judges its own lookup, not the connection, and the Fetch domain does not
 * see WebSockets. What enforces is guard-proxy.ts, which every request of the browser goes
 * through: it judges addresses with addressRefusal and connects to the very address it judged,
 * so a host whose DNS answer changes after a check (rebinding) gains nothing. This check stays
 * because only it knows a request is a document, and so can tell the model why a page did not
 * open.
 */
import { lookup } from "node:dns/promises";
import type { CDPSession } from "playwright-core";
import { type AddressPolicy, parseIp, refusedAddress } from "../../src/shared/ip-range.ts";

/** Resolves a host name to every address it has. */
export type Resolve = (host: string) => Promise<string[]>;

/** The system's resolver (getaddrinfo: /etc/hosts, then DNS). */
export const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Why `url` may not be opened (a sentence for the model), or null when it may. */
export async function refusalOf(
  url: string,
  policy: AddressPolicy,
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
  if (policy.allowPrivate) return null;
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
  return addressRefusal(host, addresses, policy);
}

/**
 * Why `host`, which has `addresses`, may not be reached (a sentence for the model), or null when
 * every address is public or the owner allows it. One non-public address refuses the host: the
 * connection could go to any of them.
 */
export function addressRefusal(host: string, addresses: readonly string[], policy: AddressPolicy): string | null {
  const r = refusedAddress(host, addresses, policy);
  if (!r) return null;
  const shown = r.address === host ? host : `${host} resolves to ${r.shown}, which`;
  return (
    `${shown} is not a public address (${r.why}); it is refused unless the owner lists it in ` +
    `[tools.browser] allow_hosts (or on the settings page) or sets allow_private = true`
  );
}

interface RequestPaused {
  requestId: string;
  request: { url: string };
  resourceType: string;
}

/** How long a host's addresses are reused for the requests of a page (dozens per page). */
const RESOLVE_CACHE_MS = 30_000;

/** `resolve` with its answers (and failures) kept for RESOLVE_CACHE_MS per host. */
export function cachedResolve(resolve: Resolve, now: () => number = Date.now): Resolve {
  const cache = new Map<string, { at: number; addresses: Promise<string[]> }>();
  return (host) => {
    const hit = cache.get(host);
    if (hit && now() - hit.at < RESOLVE_CACHE_MS) return hit.addresses;
    if (cache.size > 1000) cache.clear();
    const addresses = resolve(host);
    cache.set(host, { at: now(), addresses });
    return addresses;
  };
}

/**
 * Pause every request of the page `cdp` is attached to and let through only those `refusalOf`
 * allows. `onRefused` hears each refused document (the tool reports the last one), `onBlocked`
 * each refused subresource.
 */
export async function guardNavigations(
  cdp: CDPSession,
  policy: AddressPolicy,
  onRefused: (url: string, why: string) => void,
  resolve: Resolve = systemResolve,
  onBlocked: (url: string, why: string) => void = () => {},
): Promise<void> {
  const lookupOnce = cachedResolve(resolve);
  cdp.on("Fetch.requestPaused", (ev: RequestPaused) => {
    void (async () => {
      const why = await refusalOf(ev.request.url, policy, lookupOnce);
      try {
        if (why) {
          if (ev.resourceType === "Document") onRefused(ev.request.url, why);
          else onBlocked(ev.request.url, why);
          await cdp.send("Fetch.failRequest", { requestId: ev.requestId, errorReason: "BlockedByClient" });
        } else await cdp.send("Fetch.continueRequest", { requestId: ev.requestId });
      } catch {
        // The page or its request went away meanwhile: nothing to let through or stop.
      }
    })();
  });
  await cdp.send("Fetch.enable", {
    patterns: [{ urlPattern: "*", requestStage: "Request" }],
  });
}
