/**
 * Reverse WebSocket: the implementation connects to homed (NapCat's "WebSocket client",
 * Lagrange's "ReverseWebSocket") at ws://listen/ on any path, with the access token. Calls go to
 * the newest connection that takes API calls (X-Client-Role Universal or API; Event-only
 * connections just deliver events).
 */
import type { Server, ServerWebSocket } from "bun";
import { ApiCalls } from "./api-calls.ts";
import { GuessLimiter } from "../sdk/index.ts";
import { guessesBlocked, tokenOk } from "./auth.ts";
import type { OneBotTransport, TransportOptions } from "./transport.ts";

interface Conn {
  role: string;
  selfId: string;
}

export class ReverseWs implements OneBotTransport {
  private server: Server<Conn> | null = null;
  private readonly conns: ServerWebSocket<Conn>[] = [];
  private readonly calls: ApiCalls;
  private readonly guesses = new GuessLimiter();

  constructor(private readonly o: TransportOptions) {
    this.calls = new ApiCalls(o.onEvent, o.log);
  }

  async start(): Promise<void> {
    const o = this.o;
    this.server = Bun.serve<Conn>({
      hostname: o.host,
      port: o.port,
      fetch: (req, server) => {
        const from = server.requestIP(req)?.address ?? "unknown";
        const wait = guessesBlocked(this.guesses, from);
        if (wait) return wait;
        if (!tokenOk(req, o.accessToken)) {
          this.guesses.failed(from);
          o.log.warn("qq connection refused: wrong or missing access token", { from });
          return new Response("access token required\n", { status: 401 });
        }
        this.guesses.succeeded(from);
        const role = req.headers.get("x-client-role") ?? "Universal";
        const selfId = req.headers.get("x-self-id") ?? "";
        if (server.upgrade(req, { data: { role, selfId } })) return undefined;
        return new Response("OneBot v11 reverse WebSocket: connect with a WebSocket client\n", { status: 426 });
      },
      websocket: {
        // A large group's history or an image as base64 may come in one frame.
        maxPayloadLength: 64 * 1024 * 1024,
        idleTimeout: 0,
        open: (ws) => {
          this.conns.push(ws);
          o.log.info("qq connected", { mode: "reverse", self_id: ws.data.selfId, role: ws.data.role });
        },
        message: (_ws, msg) => this.calls.frame(typeof msg === "string" ? msg : new TextDecoder().decode(msg)),
        close: (ws, code) => {
          const i = this.conns.indexOf(ws);
          if (i >= 0) this.conns.splice(i, 1);
          o.log.warn("qq disconnected", { mode: "reverse", self_id: ws.data.selfId, code });
          if (!this.apiConn()) this.calls.failAll("connection lost");
        },
      },
    });
    o.log.info("qq listening", { mode: "reverse", url: `ws://${o.host}:${this.server.port}/` });
  }

  private apiConn(): ServerWebSocket<Conn> | undefined {
    return this.conns.findLast((c) => c.data.role.toLowerCase() !== "event");
  }

  call(action: string, params: Record<string, unknown>): Promise<unknown> {
    const ws = this.apiConn();
    if (!ws) return Promise.reject(new Error(`${action}: no OneBot implementation is connected`));
    return this.calls.call((f) => ws.send(f), action, params);
  }

  stop(): void {
    this.server?.stop(true);
    this.calls.failAll("stopped");
  }
}
