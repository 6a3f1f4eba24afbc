/**
 * A2A on the web listener: GET /.well-known/agent-card.json (open, like any agent card) and
 * POST /a2a, the JSON-RPC endpoint (answers in JSON, or SSE for streaming methods).
 *
 * Who calls: a bearer token from [channels.a2a] peers names that peer; otherwise, where the
 * listener needs a login (beyond loopback, or a token the owner set) the login token (or the web
 * UI's session cookie) is required and names its holder "owner"; on an open loopback listener a
 * caller without credentials, or with a bearer token that names nobody, is "anon". Every bearer
 * token and cookie counts against the listener's one per-client guess limit (a peer token is
 * worth guessing even where anyone may call as "anon"). Cross-site safety: the body must be
 * application/json (a browser cannot send that cross-site without a preflight, which is never
 * answered) and the security middleware refuses a foreign Origin.
 */
import { Hono, type Context } from "hono";
import { streamSSE } from "hono/streaming";
import * as v from "valibot";
import { A2A_ANON_PEER, A2A_OWNER_PEER, type A2aChannelConfig } from "../a2a/config.ts";
import type { Plugin } from "../sdk/index.ts";
import { A2A_PATH, agentCard, CARD_PATH } from "./a2a-card.ts";
import { A2aRpcError, type A2aContext, dispatch, RPC } from "./a2a-rpc.ts";
import { A2aRunner, type A2aCaller } from "./a2a-runner.ts";
import { TaskBook } from "./a2a-tasks.ts";
import { METHODS, RpcRequest } from "./a2a-wire.ts";
import type { ChatHub } from "./chat-hub.ts";
import { BadBody, isJsonContentType, jsonBody } from "./http-util.ts";
import { type Security, tooManyAttempts } from "./security.ts";

function sameBytes(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

type RpcId = string | number | null;
const rpcError = (id: RpcId, code: number, message: string) => ({ jsonrpc: "2.0", id, error: { code, message } });

/** A version the A2A-Version header may name: 1.x or 0.3 (empty or absent: 0.3, per the spec). */
const SERVED_VERSION = /^\s*(1(\.\d+)?|0\.3(\.\d+)?)?\s*$/;

export interface A2aOptions {
  plugin: Plugin;
  hub: ChatHub;
  security: Security;
  /** The login token in force. */
  token: string;
  config: A2aChannelConfig;
}

export function a2aRoutes(o: A2aOptions): Hono {
  const app = new Hono();
  const { config, security } = o;
  const book = new TaskBook(o.plugin);
  const runner = new A2aRunner(o.plugin, o.hub, book);
  const trusted = new Set(config.trusted_peers);
  const caller = (peer: string): A2aCaller => ({ peer, trusted: trusted.has(peer) });

  /** The peer a bearer token names: a listed peer, the owner (the login token), or none. */
  const peerOf = (bearer: string): string | null => {
    let found: string | null = null;
    for (const p of config.peers) if (sameBytes(p.token, bearer)) found = p.name;
    return found ?? (sameBytes(bearer, o.token) ? A2A_OWNER_PEER : null);
  };

  /**
   * The caller, or the refusal to send. A bearer token is a guess at a peer's or the owner's
   * token on every bind, open loopback too (a peer may be trusted with more than "anon"), so it
   * is checked under the listener's guess limit: blocked clients get 429 before any comparison.
   */
  const identify = async (c: Context): Promise<A2aCaller | Response> => {
    const h = c.req.header("authorization") ?? "";
    const bearer = h.toLowerCase().startsWith("bearer ") ? h.slice(7).trim() : null;
    if (bearer !== null) {
      const r = await security.guard(c, () => peerOf(bearer) !== null);
      if (r.result === "blocked") return tooManyAttempts(c, r.retryAfter);
      const peer = r.result === "ok" ? peerOf(bearer) : null;
      if (peer !== null) return caller(peer);
    }
    if (security.loginRequired) {
      // No bearer: the web UI's session cookie, counted the same way.
      if (bearer === null && (await security.authenticated(c))) return caller(A2A_OWNER_PEER);
      c.header("www-authenticate", 'Bearer realm="homed"');
      // Plain HTTP 401, not a JSON-RPC error: clients then report it as the HTTP auth failure it is.
      return c.json({ error: "A2A here needs a token: homed's login token or one from [channels.a2a] peers" }, 401);
    }
    return caller(A2A_ANON_PEER);
  };

  app.get(CARD_PATH, (c) => {
    if (!config.enabled) return c.json({ error: "A2A is turned off ([channels.a2a] enabled = false)" }, 404);
    return c.json(
      agentCard(c, { config, version: o.plugin.hello.kernelVersion, tokenRequired: security.loginRequired }),
    );
  });

  app.post(A2A_PATH, async (c) => {
    if (!config.enabled) return c.json({ error: "A2A is turned off ([channels.a2a] enabled = false)" }, 404);
    const who = await identify(c);
    if (who instanceof Response) return who;
    if (!isJsonContentType(c.req.header("content-type")))
      return c.json(rpcError(null, RPC.invalidRequest, "send the JSON-RPC request as application/json"), 415);
    let body: unknown;
    try {
      body = await jsonBody(c);
    } catch (err) {
      return c.json(rpcError(null, RPC.parse, err instanceof BadBody ? err.message : "the body could not be read"));
    }
    if (Array.isArray(body))
      return c.json(rpcError(null, RPC.invalidRequest, "A2A takes one request per call, not a batch"));
    const req = v.safeParse(RpcRequest, body);
    if (!req.success) {
      const raw = (body as { id?: unknown } | null)?.id;
      const id = typeof raw === "string" || (typeof raw === "number" && Number.isInteger(raw)) ? raw : null;
      const issue = req.issues[0];
      return c.json(rpcError(id, RPC.invalidRequest, `not a JSON-RPC 2.0 request: ${issue?.message ?? "invalid"}`));
    }
    const id = req.output.id ?? null;
    const method = Object.hasOwn(METHODS, req.output.method) ? METHODS[req.output.method] : undefined;
    if (!method) return c.json(rpcError(id, RPC.noMethod, `no method ${req.output.method}`));
    const version = c.req.header("a2a-version") ?? "";
    if (!SERVED_VERSION.test(version))
      return c.json(rpcError(id, RPC.version, `A2A version ${version} is not served here; homed speaks 1.0 and 0.3`));
    const x: A2aContext = { book, runner, caller: who, dialect: method.dialect };
    try {
      await book.load();
      const out = await dispatch(x, method.op, req.output.params);
      if ("result" in out) return c.json({ jsonrpc: "2.0", id, result: out.result });
      return streamSSE(c, async (sse) => {
        try {
          for await (const result of out.stream)
            await sse.writeSSE({ data: JSON.stringify({ jsonrpc: "2.0", id, result }) });
        } catch (err) {
          o.plugin.log.warn("a2a: stream failed", { err });
          await sse.writeSSE({ data: JSON.stringify(rpcError(id, RPC.internal, (err as Error).message)) });
        }
      });
    } catch (err) {
      if (err instanceof A2aRpcError) return c.json(rpcError(id, err.code, err.message));
      o.plugin.log.warn("a2a: request failed", { method: req.output.method, err });
      return c.json(rpcError(id, RPC.internal, `homed could not answer: ${(err as Error).message}`));
    }
  });
  return app;
}
