/**
 * The browser's address pin: a forward proxy on 127.0.0.1 that Chromium sends every request
 * through (documents, subresources, fetch/XHR, WebSockets; `--proxy-server`, with loopback not
 * exempted), so Chromium never resolves a page's host itself. For each request the proxy
 * resolves the host once, judges every address by nav-guard's rule, and connects to exactly the
 * address it judged — a DNS answer that changes between a check and a connection (rebinding)
 * has no second lookup to change. Plain HTTP comes in absolute form and is forwarded one request
 * at a time (a kept-alive connection from Chromium may carry requests for many hosts); CONNECT
 * (https, wss, and ws through a proxy) is a byte tunnel to the pinned address, so TLS, SNI and
 * the certificate check stay Chromium's, end to end with the site.
 *
 * Bounded so a page cannot hold the plugin (PROXY_LIMITS): a lookup and a tunnel's connection
 * attempt each get connectMs, a request or tunnel with nothing moving for idleMs is closed (a
 * plain request's connection attempt included), and at most maxExchanges requests and tunnels
 * are open at once (more are answered 503 at once).
 */
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { type AddressPolicy, nonPublicReason, parseIp } from "../../src/shared/ip-range.ts";
import { addressRefusal, type Resolve } from "./nav-guard.ts";

export const PROXY_LIMITS = {
  /** Longest wait for a name's addresses, and for a tunnel's connection to the chosen one. */
  connectMs: 10_000,
  /** A request or tunnel with no byte either way for this long is closed (a chat's WebSocket pings well within it). */
  idleMs: 120_000,
  /** Requests and tunnels open at once; Chromium itself keeps at most 32 connections per proxy. */
  maxExchanges: 256,
};

/** Where a checked address is reached: the address itself, unless a test stands a local server in for it. */
export type Route = (address: string, port: number) => { address: string; port: number };

export interface GuardProxyOptions {
  policy: AddressPolicy;
  resolve: Resolve;
  route?: Route;
  /** Each refused request: its host (and port unless 80/443) and why, worded as nav-guard words it. */
  onRefused: (host: string, why: string) => void;
  /** PROXY_LIMITS, or tighter ones (tests). */
  limits?: typeof PROXY_LIMITS;
}

export interface GuardProxy {
  /** The loopback port Chromium is told to use. */
  port: number;
  close(): Promise<void>;
}

/** A host and port to connect to, or why not. */
type Verdict = { address: string; port: number } | { refused: string } | { failed: string };

/** Headers that belong to one hop (RFC 9110 §7.6.1), never forwarded. */
const HOP_BY_HOP = new Set([
  "connection",
  "proxy-connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const named = new Set(
    String(headers.connection ?? "")
      .split(",")
      .map((h) => h.trim().toLowerCase()),
  );
  const out: Record<string, string | string[]> = {};
  for (const [k, val] of Object.entries(headers))
    if (val !== undefined && !HOP_BY_HOP.has(k) && !named.has(k)) out[k] = val;
  return out;
}

/** host:port as a page's URL would show it (no port for 80 and 443). */
function shown(host: string, port: number): string {
  const h = host.includes(":") ? `[${host}]` : host;
  return port === 80 || port === 443 ? h : `${h}:${port}`;
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Start the proxy on 127.0.0.1 (a port of the system's choosing). */
export async function startGuardProxy(o: GuardProxyOptions): Promise<GuardProxy> {
  const route = o.route ?? ((address, port) => ({ address, port }));
  const { connectMs, idleMs, maxExchanges } = o.limits ?? PROXY_LIMITS;
  const server: Server = createServer();
  let ownPort = 0;
  let open = 0;
  const sockets = new Set<Duplex>();

  /** Resolve once, judge every address, and pick the one to connect to (IPv4 first, as fetch_url). */
  async function pin(rawHost: string, port: number): Promise<Verdict> {
    const host = rawHost.replace(/^\[(.*)\]$/, "$1").toLowerCase();
    if (!Number.isInteger(port) || port < 1 || port > 65_535) return { failed: `bad port ${port}` };
    let addresses: string[];
    try {
      addresses = parseIp(host) ? [host] : await withTimeout(o.resolve(host), connectMs, `resolving ${host}`);
    } catch (err) {
      return { failed: `cannot resolve ${host}: ${(err as Error).message}` };
    }
    if (addresses.length === 0) return { failed: `${host} has no address` };
    const why = addressRefusal(host, addresses, o.policy);
    if (why) return { refused: why };
    const pick = addresses.find((a) => !a.includes(":")) ?? (addresses[0] as string);
    // The proxy itself listens on loopback (0.0.0.0 and the like reach it too): a request to it
    // would come back in, once more per hop.
    const ip = parseIp(pick);
    if (port === ownPort && (!ip || nonPublicReason(ip))) return { refused: "that is the browser's own proxy" };
    return route(pick, port);
  }

  function refuse(host: string, port: number, why: string): void {
    o.onRefused(shown(host.replace(/^\[(.*)\]$/, "$1"), port), why);
  }

  /** Open a connection to a pinned target, or fail within connectMs. */
  function dial(target: { address: string; port: number }): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const upstream = connect({ host: target.address, port: target.port });
      const timer = setTimeout(() => {
        upstream.destroy();
        reject(new Error(`no connection within ${connectMs} ms`));
      }, connectMs);
      upstream.once("connect", () => {
        clearTimeout(timer);
        resolve(upstream);
      });
      upstream.once("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  /** Count an exchange; false (and the caller answers 503) when maxExchanges are open. */
  function admit(): boolean {
    if (open >= maxExchanges) return false;
    open++;
    return true;
  }

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const answer = (status: number, text: string) => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
      res.end(`${text}\n`);
    };
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      return answer(400, "this is a forward proxy: requests name an absolute http URL");
    }
    if (url.protocol !== "http:") return answer(400, `${url.protocol} is not proxied (https goes through CONNECT)`);
    if (!admit()) return answer(503, "too many requests at once");
    let released = false;
    const release = () => {
      if (!released) open--;
      released = true;
    };
    res.once("close", release);
    void (async () => {
      const port = Number(url.port || 80);
      const verdict = await pin(url.hostname, port);
      if ("refused" in verdict) {
        refuse(url.hostname, port, verdict.refused);
        return answer(403, `homed refused ${url.host}: ${verdict.refused}`);
      }
      if ("failed" in verdict) return answer(502, verdict.failed);
      const upstream = httpRequest({
        host: verdict.address,
        port: verdict.port,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers: { ...endToEnd(req.headers), host: url.host, connection: "close" },
        agent: false,
      });
      upstream.setTimeout(idleMs, () => upstream.destroy(new Error(`nothing for ${idleMs} ms`)));
      upstream.on("response", (up) => {
        try {
          res.writeHead(up.statusCode ?? 502, up.statusMessage, endToEnd(up.headers));
        } catch {
          // A head this side cannot repeat is the site's failure, never the plugin's crash.
          upstream.destroy();
          return answer(502, `${url.host} sent a response head that cannot be passed on`);
        }
        up.pipe(res);
        up.on("error", () => res.destroy());
      });
      upstream.on("error", (err) => answer(502, `${url.host}: ${err.message}`));
      req.pipe(upstream);
      req.on("error", () => upstream.destroy());
      res.on("close", () => upstream.destroy());
    })();
  });

  server.on("connect", (req: IncomingMessage, client: Duplex, head: Buffer) => {
    client.on("error", () => {});
    const say = (status: string) => client.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? "");
    if (!m) return say("400 Bad Request");
    const [, host, portText] = m as unknown as [string, string, string];
    const port = Number(portText);
    if (!admit()) return say("503 Service Unavailable");
    sockets.add(client);
    let released = false;
    const release = () => {
      if (!released) open--;
      released = true;
      sockets.delete(client);
    };
    client.once("close", release);
    void (async () => {
      const verdict = await pin(host, port);
      if ("refused" in verdict) {
        refuse(host, port, verdict.refused);
        return say("403 Forbidden");
      }
      if ("failed" in verdict) return say("502 Bad Gateway");
      if (client.destroyed) return;
      let upstream: Socket;
      try {
        upstream = await dial(verdict);
      } catch {
        return say("502 Bad Gateway");
      }
      if (client.destroyed) return void upstream.destroy();
      sockets.add(upstream);
      const closeBoth = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(upstream);
      };
      upstream.on("error", closeBoth);
      upstream.on("close", closeBoth);
      client.on("close", closeBoth);
      upstream.setTimeout(idleMs, closeBoth);
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      client.pipe(upstream);
      upstream.pipe(client);
      // Bytes from the page's side reset the idle timer too: an upload keeps the tunnel alive.
      client.on("data", () => upstream.setTimeout(idleMs));
    })();
  });

  // A WebSocket over plain HTTP to a proxy comes as CONNECT; an Upgrade in absolute form is not served.
  server.on("upgrade", (_req: IncomingMessage, client: Duplex) => {
    client.on("error", () => {});
    client.end("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  });

  server.headersTimeout = connectMs;
  server.requestTimeout = 0;
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  ownPort = (server.address() as { port: number }).port;
  return {
    port: ownPort,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
