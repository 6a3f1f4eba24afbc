/**
 * What keeps slow and greedy clients from holding the web listener's file descriptors, around
 * the app's fetch handler:
 *
 * - Deadlines. Bun's idle timer (Bun.serve idleTimeout) is not reset by body bytes nor by
 *   response bytes (measured: a trickled body, an event stream writing every second and a slow
 *   download were all cut), so it bounds a whole exchange. A body must have arrived `timeoutS`
 *   after the request began, or the client gets 408 and the connection is closed; once it is in
 *   (at once for a request without one) the timer is lifted, since a turn may take minutes, an
 *   event stream may stay quiet while a person reads an approval question and a 16 MiB block
 *   may go slowly to a phone; it is set again once the response has been handed over, so an
 *   idle keep-alive connection is closed. Headers that never finish are closed by Bun itself
 *   after about ten seconds.
 * - A cap per client (clientKey: an address, an IPv6 /64): at most `maxOpen` requests in
 *   progress; the next gets 429 with Retry-After and `Connection: close`, so its descriptor is
 *   freed at once. A person's browser uses a handful; a reverse proxy on this machine shares one
 *   address for everyone behind it, which is why the cap is generous.
 * - A budget for all clients together (`totalMax`, from the process's descriptor limit): once
 *   that many requests are in progress, a client holding its fair share (the budget divided
 *   among the clients that hold any) or more gets the same 429. Many addresses each under the
 *   per-client cap cannot take every descriptor, and a client holding none — the owner's
 *   browser, a health check — always gets in.
 */
import { readFileSync } from "node:fs";
import { clientKey } from "../sdk/index.ts";

/** The part of Bun's server this needs. */
export interface GuardedServer {
  requestIP(req: Request): { address: string } | null;
  timeout(req: Request, seconds: number): void;
}

export interface ConnectionGuardOptions {
  /** Seconds for a request's body to arrive and for an idle connection to stay ([web] request_timeout_s). */
  timeoutS: number;
  /** Requests in progress per client. */
  maxOpen: number;
  /** Requests in progress for all clients together, past which each gets its fair share. */
  totalMax: number;
  /** Handle a request; `address` is the client's source address. */
  handle(req: Request, address: string): Promise<Response> | Response;
}

/** Requests in progress at most per client, past which 429: see the file comment. */
export const MAX_OPEN_REQUESTS_PER_CLIENT = 256;

/** Requests in progress at most across clients, whatever the descriptor limit. */
const MAX_TOTAL_REQUESTS = 8192;

/**
 * The budget for all clients: half the process's open-file limit (a slow request holds one
 * descriptor, and the plugin needs the rest for its own files, sockets and pipes), at most
 * MAX_TOTAL_REQUESTS; 512 where the limit cannot be read.
 */
export function requestBudget(limits = "/proc/self/limits"): number {
  try {
    const soft = /^Max open files\s+(\d+)/m.exec(readFileSync(limits, "utf8"))?.[1];
    if (soft) return Math.max(64, Math.min(MAX_TOTAL_REQUESTS, Math.floor(Number(soft) / 2)));
  } catch {
    // Not Linux, or no /proc: the small budget.
  }
  return 512;
}

/**
 * Bun's idle timer for a `timeoutS` deadline: a little longer, so a late body gets this file's
 * 408 rather than a silent close (the timer fires up to a few seconds late anyway).
 */
export function idleTimeoutFor(timeoutS: number): number {
  return Math.min(255, timeoutS + 5);
}

const json = (status: number, error: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ error }), {
    status,
    headers: { "content-type": "application/json", connection: "close", ...headers },
  });

/**
 * Bytes of a request body read ahead of the handler. A body that fits has arrived whether or not
 * the handler reads it (POST /api/provider/test gets `{}` and waits on the model); a larger one
 * counts as arrived once the handler has read it all, so an unread body of someone who is not
 * let in never fills memory.
 */
const READ_AHEAD_BYTES = 64 * 1024;

/** A request body passed through with READ_AHEAD_BYTES read ahead; `arrived` once it has all come in. */
function arriving(body: ReadableStream<Uint8Array>, arrived: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(into) {
        try {
          const { value, done } = await reader.read();
          if (done) {
            arrived();
            into.close();
          } else into.enqueue(value);
        } catch (err) {
          into.error(err);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    new ByteLengthQueuingStrategy({ highWaterMark: READ_AHEAD_BYTES }),
  );
}

/** `res` with `Connection: close` (a copy: some responses' headers cannot be changed). */
function closing(res: Response): Response {
  const headers = new Headers(res.headers);
  headers.set("connection", "close");
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

/** A response body passed through, `sent` called once the server has taken all of it. */
function handedOver(body: ReadableStream<Uint8Array>, sent: () => void): ReadableStream<Uint8Array> {
  return body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: sent }));
}

/** The fetch handler for Bun.serve. */
export function guardConnections(o: ConnectionGuardOptions) {
  const open = new Map<string, number>();
  let total = 0;
  return async (req: Request, server: GuardedServer): Promise<Response> => {
    const address = server.requestIP(req)?.address ?? "unknown";
    const key = clientKey(address);
    const count = open.get(key) ?? 0;
    if (count >= o.maxOpen)
      return json(429, `more than ${o.maxOpen} requests at once from this address`, { "retry-after": "1" });
    if (total >= o.totalMax && count > 0 && count >= Math.floor(o.totalMax / open.size))
      return json(429, "the server is busy with other clients' requests; try again", { "retry-after": "1" });
    open.set(key, count + 1);
    total++;
    const setTimer = (seconds: number) => {
      try {
        server.timeout(req, seconds);
      } catch {
        // The connection is already gone: nothing left to time.
      }
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      let forward = req;
      let late: Promise<Response> | null = null;
      let arrived = !req.body;
      if (req.body) {
        forward = new Request(req, {
          body: arriving(req.body, () => {
            arrived = true;
            clearTimeout(timer);
            setTimer(0);
          }),
          duplex: "half",
        } as RequestInit);
        late = new Promise((resolve) => {
          timer = setTimeout(() => {
            if (!arrived)
              resolve(json(408, `the request body did not arrive within ${o.timeoutS} s; send it in one go`));
          }, o.timeoutS * 1000);
        });
      } else setTimer(0);
      const handled = Promise.resolve(o.handle(forward, address));
      let res = await (late ? Promise.race([handled, late]) : handled);
      // Answered before its body came in (refused, a 401): the rest of the body is not waited
      // for, and the connection is closed with the answer instead of held until the idle timer.
      if (!arrived) res = closing(res);
      const idle = idleTimeoutFor(o.timeoutS);
      if (!res.body) {
        setTimer(idle);
        return res;
      }
      return new Response(
        handedOver(res.body, () => setTimer(idle)),
        res,
      );
    } finally {
      clearTimeout(timer);
      total--;
      const left = (open.get(key) ?? 1) - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    }
  };
}
