/**
 * JSON-RPC over a unix stream socket: the daemon's control socket (server) and the subcommands
 * and waiter that talk to it (client). Each connection is its own RpcPeer. Writes honour
 * backpressure: what the socket does not take now is queued and flushed on `drain`.
 */
import { chmodSync, existsSync, unlinkSync } from "node:fs";
import type { Socket, UnixSocketListener } from "bun";
import { RpcPeer, type RequestHandler, type RpcLog } from "./rpc-peer.ts";

interface ConnState {
  peer: RpcPeer;
  queue: Uint8Array[];
}

const encoder = new TextEncoder();

function makeSend(socket: Socket<ConnState>): (line: string) => void {
  return (line) => {
    const state = socket.data;
    const bytes = encoder.encode(line);
    if (state.queue.length > 0) {
      state.queue.push(bytes);
      return;
    }
    const n = socket.write(bytes);
    if (n < bytes.length) state.queue.push(bytes.subarray(Math.max(n, 0)));
  };
}

function flush(socket: Socket<ConnState>): void {
  const q = socket.data.queue;
  while (q.length > 0) {
    const head = q[0] as Uint8Array;
    const n = socket.write(head);
    if (n < head.length) {
      q[0] = head.subarray(Math.max(n, 0));
      return;
    }
    q.shift();
  }
}

export interface RpcServer {
  readonly path: string;
  readonly connections: number;
  stop(): void;
}

/**
 * Listen on `path` (replacing a stale socket file, which the caller must know is stale — the
 * daemon holds homed.lock first) with permissions 0600.
 */
export function listenUnixRpc(path: string, onRequest: RequestHandler, log: RpcLog): RpcServer {
  if (existsSync(path)) unlinkSync(path);
  const conns = new Set<Socket<ConnState>>();
  // Create the socket file with 0600 from the start: no window where another user could connect.
  const oldMask = process.umask(0o177);
  let listener: UnixSocketListener<ConnState>;
  try {
    listener = Bun.listen<ConnState>({
      unix: path,
      socket: {
        open(socket) {
          socket.data = { queue: [], peer: undefined as unknown as RpcPeer };
          socket.data.peer = new RpcPeer({ send: makeSend(socket), onRequest, log, name: "control" });
          conns.add(socket);
        },
        data(socket, data) {
          socket.data.peer.feed(data);
        },
        drain(socket) {
          flush(socket);
        },
        close(socket) {
          conns.delete(socket);
          socket.data.peer?.close();
        },
        error(socket, err) {
          log.warn("control connection error", { err });
          conns.delete(socket);
          socket.data.peer?.close();
        },
      },
    });
  } finally {
    process.umask(oldMask);
  }
  chmodSync(path, 0o600);
  return {
    path,
    get connections() {
      return conns.size;
    },
    stop() {
      for (const s of conns) s.end();
      listener.stop(true);
      try {
        unlinkSync(path);
      } catch {
        // Already gone: nothing to clean.
      }
    },
  };
}

export interface RpcClient {
  peer: RpcPeer;
  close(): void;
}

/** Connect to a unix-socket JSON-RPC server. Rejects if nothing listens at `path`. */
export async function connectUnixRpc(
  path: string,
  log: RpcLog,
  opts: { timeoutMs?: number; onNotification?: (method: string, params: unknown) => void; onRequest?: RequestHandler } = {},
): Promise<RpcClient> {
  const socket = await Bun.connect<ConnState>({
    unix: path,
    socket: {
      data(s, data) {
        s.data.peer.feed(data);
      },
      drain(s) {
        flush(s);
      },
      close(s) {
        s.data?.peer?.close("daemon closed the connection");
      },
      error(s, err) {
        log.warn("control connection error", { err });
        s.data?.peer?.close(String(err));
      },
    },
    data: { queue: [], peer: undefined as unknown as RpcPeer },
  });
  const peer = new RpcPeer({
    send: makeSend(socket),
    log,
    name: "daemon",
    timeoutMs: opts.timeoutMs,
    onNotification: opts.onNotification,
    onRequest: opts.onRequest,
  });
  socket.data.peer = peer;
  return {
    peer,
    close() {
      peer.close();
      socket.end();
    },
  };
}
