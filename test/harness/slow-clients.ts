/**
 * Slow clients on loopback: connections that send a request's headers and one byte of its body,
 * then nothing, from chosen source addresses (127.0.0.2 and up are other clients). Each records
 * what came back and when its connection closed. Bounded: `count` sockets, all destroyed on
 * dispose. Shared by test/web/slow-clients.test.ts and the security.slow_conns_healthz_ms bench.
 */
import { connect, type Socket } from "node:net";

export interface SlowConnection {
  from: string;
  /** Everything the server sent. */
  received: string;
  /** The status of the answer, if one came. */
  status: number | null;
  /** The server (or the network) closed it. */
  closed: boolean;
}

export interface SlowClients {
  conns: SlowConnection[];
  /** Resolves once every connection is established and has sent its bytes. */
  sent: Promise<void>;
  /** Resolves once every connection has sent its bytes or failed to (the server refused it). */
  tried: Promise<void>;
  [Symbol.dispose](): void;
}

/**
 * Open `count` connections to `url`'s host, spread over `from` addresses, each posting to
 * `path` a body of 1000 bytes of which only the first is sent.
 */
export function holdSlowBodies(url: string, opts: { count: number; from: string[]; path: string }): SlowClients {
  const u = new URL(url);
  const request = [
    `POST ${opts.path} HTTP/1.1`,
    `Host: ${u.host}`,
    "Content-Type: application/json",
    "X-Homed: 1",
    "Content-Length: 1000",
    "",
    "{",
  ].join("\r\n");
  const sockets: Socket[] = [];
  const conns: SlowConnection[] = [];
  const sent: Promise<void>[] = [];
  for (let i = 0; i < opts.count; i++) {
    const from = opts.from[i % opts.from.length] as string;
    const conn: SlowConnection = { from, received: "", status: null, closed: false };
    conns.push(conn);
    sent.push(
      new Promise((resolve, reject) => {
        const s = connect({ host: u.hostname, port: Number(u.port), localAddress: from }, () =>
          s.write(request, () => resolve()),
        );
        sockets.push(s);
        s.on("data", (d: Buffer) => {
          conn.received += d.toString("latin1");
          conn.status ??= Number(/^HTTP\/1\.1 (\d{3})/.exec(conn.received)?.[1]) || null;
        });
        s.on("error", reject);
        s.on("close", () => {
          conn.closed = true;
        });
      }),
    );
  }
  return {
    conns,
    sent: Promise.all(sent).then(() => {}),
    tried: Promise.allSettled(sent).then(() => {}),
    [Symbol.dispose]() {
      for (const s of sockets) s.destroy();
    },
  };
}
