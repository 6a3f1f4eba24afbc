/**
 * Forward WebSocket: homed connects to the implementation's WebSocket server (NapCat's
 * "WebSocket server", Lagrange's "ForwardWebSocket") and reconnects whenever it is lost, for as
 * long as the plugin runs: after `reconnectMs`, doubling while attempts keep failing (or keep
 * being refused at once, as a wrong token is) up to a minute, back to `reconnectMs` once a
 * connection has held for a while.
 */
import { ApiCalls } from "./api-calls.ts";
import { authHeaders, type OneBotTransport, type TransportOptions } from "./transport.ts";

/** A connection that held this long was a real one: the next outage starts from reconnectMs. */
const HELD_MS = 5000;
const MAX_DELAY_MS = 60_000;

export class ForwardWs implements OneBotTransport {
  private ws: WebSocket | null = null;
  private open = false;
  private stopped = false;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private readonly calls: ApiCalls;
  /** Logged once per outage, not at every retry. */
  private down = false;
  /** Attempts in a row that failed or did not hold; when the last connection opened. */
  private failures = 0;
  private openedAt = 0;

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
      ws = new WebSocket(this.o.url, { headers: authHeaders(this.o.accessToken) });
    } catch (err) {
      this.o.log.error("qq cannot connect", { url: this.o.url, err: (err as Error).message });
      this.later();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.open = true;
      this.openedAt = Date.now();
      this.down = false;
      this.o.log.info("qq connected", { mode: "ws", url: this.o.url });
    };
    ws.onmessage = (e) => this.calls.frame(typeof e.data === "string" ? e.data : new TextDecoder().decode(e.data));
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.calls.failAll("connection lost");
      this.failures = this.open && Date.now() - this.openedAt >= HELD_MS ? 0 : this.failures + 1;
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
    const delay = Math.min(this.o.reconnectMs * 2 ** Math.min(Math.max(this.failures - 1, 0), 10), MAX_DELAY_MS);
    this.retry = setTimeout(
      () => {
        this.retry = null;
        this.connect();
      },
      Math.max(delay, this.o.reconnectMs),
    );
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
