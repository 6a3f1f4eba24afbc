/**
 * JSON-RPC over a unix stream socket: the daemon's control socket (server) and the subcommands
 * and waiter that talk to it (client). Each connection is its own RpcPeer. Writes honour
 * backpressure: what the socket does not take now is queued and flushed on `drain`, up to
 * MAX_QUEUED_BYTES per connection; a peer that lets more pile up is disconnected.
 */
import { chmodSync, existsSync, unlinkSync } from "node:fs";
import type { Socket, UnixSocketListener } from "bun";
import { RpcPeer, type RequestHandler, type RpcLog } from "./rpc-peer.ts";

interface ConnState {
  peer: RpcPeer;
  queue: Uint8Array[];
  /** Bytes in `queue`. */
  queued: number;
}

/**
 * Most bytes queued for one connection that is not reading what we send. Far above any one
 * reply (a status is ~1.5 KiB, a frame at most 4 MiB) or a chat turn's stream to a slow
 * terminal, far below what would hurt the daemon: some 6,000 unread status replies. Past it
 * the connection is dropped — an unread reply is worth nothing, and waiting would let one
 * client grow the daemon without bound.
 */
export const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

const encoder = new TextEncoder();

/** `onOverflow` is called once when the queue would pass MAX_QUEUED_BYTES; nothing more is queued. */
function makeSend(socket: Socket<ConnState>, onOverflow: (queued: number) => void): (line: string) => void {
  return (line) => {
    const state = socket.data;
    const bytes = encoder.encode(line);
    let rest = bytes;
    if (state.queue.length === 0) {
      const n = socket.write(bytes);
      if (n >= bytes.length) return;
      rest = bytes.subarray(Math.max(n, 0));
    }
    if (state.queued + rest.length > MAX_QUEUED_BYTES) {
      const queued = state.queued;
      state.queue = [];
      state.queued = 0;
      onOverflow(queued);
      return;
    }
    state.queue.push(rest);
    state.queued += rest.length;
  };
}

function flush(socket: Socket<ConnState>): void {
  const state = socket.data;
  const q = state.queue;
  while (q.length > 0) {
    const head = q[0] as Uint8Array;
    const n = Math.max(socket.write(head), 0);
    state.queued -= Math.min(n, head.length);
    if (n < head.length) {
      q[0] = head.subarray(n);
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
          socket.data = { queue: [], queued: 0, peer: undefined as unknown as RpcPeer };
          const send = makeSend(socket, (queued) => {
            log.warn("control client is not reading its replies; closing it", { queued, limit: MAX_QUEUED_BYTES });
            conns.delete(socket);
            socket.data.peer.close("client not reading");
            socket.terminate();
          });
          socket.data.peer = new RpcPeer({ send, onRequest, log, name: "control" });
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
  opts: {
    timeoutMs?: number;
    onNotification?: (method: string, params: unknown) => void;
    onRequest?: RequestHandler;
  } = {},
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
    data: { queue: [], queued: 0, peer: undefined as unknown as RpcPeer },
  });
  const peer = new RpcPeer({
    send: makeSend(socket, () => {
      peer.close("the daemon is not reading our requests");
      socket.terminate();
    }),
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
