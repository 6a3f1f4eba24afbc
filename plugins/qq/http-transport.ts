/**
 * HTTP: API calls are POSTs to `url/<action>` with the access token; events arrive as HTTP-POST
 * reports at http://listen/ (any path), each checked against its X-Signature before it is read.
 * A report is answered 204 with no quick operation: replies go out through the API like the
 * other transports'.
 */
import type { Server } from "bun";
import * as v from "valibot";
import { GuessLimiter } from "../sdk/index.ts";
import { guessesBlocked, signatureOk, tokenOk } from "./auth.ts";
import { ApiResponse, apiResult, AnyEvent } from "./onebot.ts";
import { API_TIMEOUT_MS } from "./api-calls.ts";
import { authHeaders, type OneBotTransport, type TransportOptions } from "./transport.ts";

/** A report is one event: a message with its segments, never media bytes (those are URLs). */
const MAX_REPORT_BYTES = 4 * 1024 * 1024;

export class HttpTransport implements OneBotTransport {
  private server: Server<undefined> | null = null;
  private readonly guesses = new GuessLimiter();

  constructor(private readonly o: TransportOptions) {}

  async start(): Promise<void> {
    const o = this.o;
    this.server = Bun.serve({
      hostname: o.host,
      port: o.port,
      maxRequestBodySize: MAX_REPORT_BYTES,
      fetch: async (req, server) => {
        if (req.method !== "POST")
          return new Response("OneBot v11 HTTP-POST receiver: POST events here\n", { status: 405 });
        const from = server.requestIP(req)?.address ?? "unknown";
        const wait = guessesBlocked(this.guesses, from);
        if (wait) return wait;
        const body = new Uint8Array(await req.arrayBuffer());
        if (!signatureOk(req.headers.get("x-signature"), o.secret, body)) {
          this.guesses.failed(from);
          o.log.warn("qq report refused: X-Signature does not match");
          return new Response("signature mismatch\n", { status: 403 });
        }
        // Reports carry no token when a secret signs them; without a secret the token must be there.
        if (!o.secret && !tokenOk(req, o.accessToken)) {
          this.guesses.failed(from);
          o.log.warn("qq report refused: wrong or missing access token");
          return new Response("access token required\n", { status: 401 });
        }
        if (o.secret || o.accessToken) this.guesses.succeeded(from);
        let raw: unknown;
        try {
          raw = JSON.parse(new TextDecoder().decode(body));
        } catch {
          o.log.warn("qq report is not JSON; dropped", { bytes: body.length });
          return new Response("not JSON\n", { status: 400 });
        }
        if (!v.is(AnyEvent, raw)) return new Response("not a OneBot event\n", { status: 400 });
        o.onEvent(raw);
        return new Response(null, { status: 204 });
      },
    });
    o.log.info("qq listening", { mode: "http", url: `http://${o.host}:${this.server.port}/`, api: o.url });
  }

  async call(action: string, params: Record<string, unknown>): Promise<unknown> {
    const res = await fetch(`${this.o.url.replace(/\/+$/, "")}/${action}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...authHeaders(this.o.accessToken) },
      body: JSON.stringify(params),
      signal: AbortSignal.timeout(API_TIMEOUT_MS),
    });
    if (res.status === 401 || res.status === 403)
      throw new Error(`${action}: the access token was refused (${res.status})`);
    const r = v.safeParse(ApiResponse, await res.json().catch(() => null));
    if (!r.success) throw new Error(`${action}: HTTP ${res.status} with no OneBot answer`);
    return apiResult(action, r.output);
  }

  stop(): void {
    this.server?.stop(true);
  }
}
