/**
 * The browser guard's proxy on its own, spoken to as Chromium speaks to it (raw HTTP over TCP):
 * CONNECT tunnels to the pinned address and refuses others, absolute-form requests for several
 * hosts on one kept-alive connection each go where their own host was pinned, and the bounds
 * hold (an idle tunnel is closed, the cap answers 503, a resolver that never answers gets 502,
 * the proxy cannot be made to call itself). White-box by necessity: bounds of minutes and a cap
 * of hundreds are set small here, which only the module's options allow; the browser's use of
 * it is in browser-guard.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { connect, createServer, type Socket } from "node:net";
import { type GuardProxy, PROXY_LIMITS, startGuardProxy } from "../../plugins/browser/guard-proxy.ts";

/** Documentation addresses: public to the guard, routed to local servers by the tests. */
const PUBLIC = "93.184.216.34";
const OTHER_PUBLIC = "93.184.216.35";

/** A TCP server on `host` that echoes and counts connections. */
async function echoServer(
  host: string,
): Promise<{ port: number; connections: () => number; [Symbol.dispose](): void }> {
  let n = 0;
  const server = createServer((s) => {
    n++;
    s.on("error", () => {});
    s.pipe(s);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as { port: number }).port,
    connections: () => n,
    [Symbol.dispose]: () => server.close(),
  };
}

/** Everything the socket receives, and a way to wait for a condition on it (or its close). */
function reader(sock: Socket) {
  let text = "";
  let closed = false;
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  sock.on("data", (d) => {
    text += d.toString("latin1");
    wake();
  });
  sock.on("close", () => {
    closed = true;
    wake();
  });
  sock.on("error", () => {});
  return {
    get text() {
      return text;
    },
    get closed() {
      return closed;
    },
    async until(ok: () => boolean, what: string): Promise<void> {
      while (!ok()) {
        if (closed) throw new Error(`closed before ${what}; got ${JSON.stringify(text)}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    async close(): Promise<void> {
      while (!closed) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}

async function dialProxy(proxy: GuardProxy) {
  const sock = connect(proxy.port, "127.0.0.1");
  await new Promise<void>((resolve) => sock.once("connect", resolve));
  return { sock, r: reader(sock) };
}

function proxyFor(
  opts: {
    allowPrivate?: boolean;
    resolve?: (host: string) => Promise<string[]>;
    limits?: Partial<typeof PROXY_LIMITS>;
  },
  refused: string[] = [],
) {
  return startGuardProxy({
    policy: { allowPrivate: opts.allowPrivate ?? false, allowHosts: [] },
    resolve: opts.resolve ?? (async (host) => (host.endsWith(".public") ? [PUBLIC] : ["127.0.0.2"])),
    // PUBLIC stands for the internet: it is reached at 127.0.0.1.
    route: (address, port) => (address === PUBLIC ? { address: "127.0.0.1", port } : { address, port }),
    onRefused: (host, why) => refused.push(`${host}: ${why}`),
    limits: { ...PROXY_LIMITS, ...opts.limits },
  });
}

describe("the browser guard's proxy", () => {
  test("CONNECT tunnels bytes to the pinned address; a name on loopback gets 403 and its server no connection", async () => {
    using open = await echoServer("127.0.0.1");
    using inside = await echoServer("127.0.0.2");
    const refused: string[] = [];
    const proxy = await proxyFor({}, refused);
    try {
      const a = await dialProxy(proxy);
      a.sock.write(`CONNECT site.public:${open.port} HTTP/1.1\r\nHost: site.public:${open.port}\r\n\r\n`);
      await a.r.until(() => a.r.text.includes("\r\n\r\n"), "the CONNECT answer");
      expect(a.r.text).toStartWith("HTTP/1.1 200");
      a.sock.write("ping through the tunnel");
      await a.r.until(() => a.r.text.endsWith("ping through the tunnel"), "the echo");
      a.sock.destroy();

      const b = await dialProxy(proxy);
      b.sock.write(`CONNECT router.lan:${inside.port} HTTP/1.1\r\nHost: router.lan:${inside.port}\r\n\r\n`);
      await b.r.close();
      expect(b.r.text).toStartWith("HTTP/1.1 403");
      expect(inside.connections()).toBe(0);
      expect(refused).toEqual([
        `router.lan:${inside.port}: router.lan resolves to 127.0.0.2, which is not a public address (loopback); it is refused unless the owner lists it in [tools.browser] allow_hosts (or on the settings page) or sets allow_private = true`,
      ]);
    } finally {
      await proxy.close();
    }
  });

  test("requests for different hosts on one kept-alive connection each go to their own pinned address", async () => {
    const seen: string[] = [];
    const serve = (hostname: string) =>
      Bun.serve({
        hostname,
        port: 0,
        fetch: (req) => {
          const line = `${hostname} got ${req.headers.get("host")} ${new URL(req.url).pathname} proxy-connection=${req.headers.get("proxy-connection")}`;
          seen.push(line);
          return new Response(`hello from ${req.headers.get("host")}`);
        },
      });
    const a = serve("127.0.0.1");
    const b = serve("127.0.0.3");
    using inside = await echoServer("127.0.0.2");
    const proxy = await startGuardProxy({
      policy: { allowPrivate: false, allowHosts: [] },
      resolve: async (host) => [host === "a.public" ? PUBLIC : host === "b.public" ? OTHER_PUBLIC : "127.0.0.2"],
      route: (address, port) => ({
        address: address === PUBLIC ? "127.0.0.1" : address === OTHER_PUBLIC ? "127.0.0.3" : address,
        port,
      }),
      onRefused: () => {},
      // One at a time: each request must give its place back for the next to be served.
      limits: { ...PROXY_LIMITS, maxExchanges: 1 },
    });
    try {
      const c = await dialProxy(proxy);
      const get = (host: string, path: string) =>
        c.sock.write(`GET http://${host}${path} HTTP/1.1\r\nHost: ${host}\r\nProxy-Connection: keep-alive\r\n\r\n`);
      get(`a.public:${a.port}`, "/one");
      await c.r.until(() => c.r.text.includes(`hello from a.public:${a.port}`), "the first answer");
      get(`b.public:${b.port}`, "/two");
      await c.r.until(() => c.r.text.includes(`hello from b.public:${b.port}`), "the second answer");
      get(`router.lan:${inside.port}`, "/admin");
      await c.r.close();
      expect(c.r.text).toContain("HTTP/1.1 403");
      expect(c.r.text).toContain(`homed refused router.lan:${inside.port}`);
      expect(seen).toEqual([
        `127.0.0.1 got a.public:${a.port} /one proxy-connection=null`,
        `127.0.0.3 got b.public:${b.port} /two proxy-connection=null`,
      ]);
      expect(inside.connections()).toBe(0);
    } finally {
      await proxy.close();
      a.stop(true);
      b.stop(true);
    }
  });

  test("an idle tunnel is closed; past the cap a request gets 503; a lookup that never ends gets 502; the proxy never calls itself", async () => {
    using open = await echoServer("127.0.0.1");
    const proxy = await proxyFor({
      allowPrivate: true,
      resolve: (host) => (host === "hangs.public" ? new Promise<string[]>(() => {}) : Promise.resolve(["127.0.0.1"])),
      limits: { connectMs: 300, idleMs: 500, maxExchanges: 2 },
    });
    try {
      const tunnel = async () => {
        const t = await dialProxy(proxy);
        t.sock.write(`CONNECT x.public:${open.port} HTTP/1.1\r\n\r\n`);
        await t.r.until(() => t.r.text.includes("\r\n\r\n"), "the CONNECT answer");
        return t;
      };
      const first = await tunnel();
      const second = await tunnel();
      expect(first.r.text).toStartWith("HTTP/1.1 200");
      expect(second.r.text).toStartWith("HTTP/1.1 200");
      const third = await tunnel();
      expect(third.r.text).toStartWith("HTTP/1.1 503");
      // Nothing moves in the first two: both are closed by the idle bound, freeing their places.
      const t0 = performance.now();
      await first.r.close();
      await second.r.close();
      expect(performance.now() - t0).toBeLessThan(5_000);
      const fourth = await tunnel();
      expect(fourth.r.text).toStartWith("HTTP/1.1 200");
      fourth.sock.destroy();

      const hang = await dialProxy(proxy);
      hang.sock.write("CONNECT hangs.public:443 HTTP/1.1\r\n\r\n");
      await hang.r.close();
      expect(hang.r.text).toStartWith("HTTP/1.1 502");

      const self = await dialProxy(proxy);
      self.sock.write(`CONNECT 127.0.0.1:${proxy.port} HTTP/1.1\r\n\r\n`);
      await self.r.close();
      expect(self.r.text).toStartWith("HTTP/1.1 403");
    } finally {
      await proxy.close();
    }
  });
});
