/**
 * Forward WebSocket: homed connects to the implementation's WebSocket server (NapCat's
 * "WebSocket server", Lagrange's "ForwardWebSocket") and reconnects whenever it is lost, after
 * `reconnectMs`, for as long as the plugin runs.
 */
import { ApiCalls } from "./api-calls.ts";
import { authHeaders, type OneBotTransport, type TransportOptions } from "./transport.ts";

export class ForwardWs implements OneBotTransport {
  private ws: WebSocket | null = null;
  private open = false;
  private stopped = false;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private readonly calls: ApiCalls;
  /** Logged once per outage, not at every retry. */
  private down = false;

  constructor(private readonly o: TransportOptions) {
    this.calls = new ApiCalls(o.onEvent, o.log);
  }

  async start(): Promise<void> {
    this.connect();
  }

  private connect(): void {
    if (this.stopped) return;
    let ws: WebSocket;
    try {
      // Bun's WebSocket takes headers: the token goes in Authorization, never in the URL's log line.
      ws = new WebSocket(this.o.url, { headers: authHeaders(this.o.accessToken) } as unknown as string[]);
    } catch (err) {
      this.o.log.error("qq cannot connect", { url: this.o.url, err: (err as Error).message });
      this.later();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.open = true;
      this.down = false;
      this.o.log.info("qq connected", { mode: "ws", url: this.o.url });
    };
    ws.onmessage = (e) => this.calls.frame(typeof e.data === "string" ? e.data : new TextDecoder().decode(e.data));
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.calls.failAll("connection lost");
      if (this.open || !this.down)
        this.o.log.warn("qq disconnected; reconnecting", { url: this.o.url, code: e.code, reason: e.reason });
      this.open = false;
      this.down = true;
      this.later();
    };
    ws.onerror = () => {
      // onclose follows and reconnects.
    };
  }

  private later(): void {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect();
    }, this.o.reconnectMs);
  }

  call(action: string, params: Record<string, unknown>): Promise<unknown> {
    const ws = this.ws;
    if (!ws || !this.open) return Promise.reject(new Error(`${action}: not connected to ${this.o.url}`));
    return this.calls.call((f) => ws.send(f), action, params);
  }

  stop(): void {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.ws?.close();
    this.calls.failAll("stopped");
  }
}
