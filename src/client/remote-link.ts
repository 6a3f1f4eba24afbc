/**
 * waiter's link to a remote homed (`waiter -connect https://host:8080`): the web plugin's HTTP
 * API, as the web UI uses it — POST /api/chat answers with the turn as server-sent events,
 * approvals go back with POST /api/approve, Stop is POST /api/cancel. The login token goes as a
 * bearer token; `X-Homed: 1` is sent too, which a loopback listener without a token asks of
 * every change. Everything the server sends is valibot-checked.
 */
import * as v from "valibot";
import { ConversationSummary, TranscriptItem } from "../protocol/channel.ts";
import { StatusResult, TurnResultSchema, type TurnResultView } from "../protocol/control.ts";
import { knownEvent } from "../protocol/turn-stream.ts";
import { HomedError } from "../protocol/errors.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import type { ChatHandlers } from "./chat-connection.ts";
import { parseSse } from "../shared/sse.ts";
import type { ApproveBody } from "../protocol/web.ts";
import type { OpenLink, WaiterLink } from "./waiter-link.ts";

const SseEvent = v.looseObject({ type: v.string() });
const StreamHeader = v.looseObject({ type: v.literal("stream"), stream: v.string() });
const DoneEvent = v.looseObject({ type: v.literal("done"), result: TurnResultSchema });
const ErrorBody = v.looseObject({ error: v.string() });

/** A base URL as given (`https://host:8080`, with or without a trailing slash or path). */
export function parseBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new HomedError("usage", `-connect needs a URL like https://host:8080, not "${text}"`, { flag: "connect" });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new HomedError("usage", `-connect needs an http:// or https:// URL, not "${text}"`, { flag: "connect" });
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return url;
}

export function remoteLink(base: URL, token: string | null): OpenLink {
  const where = base.origin + base.pathname.replace(/\/$/, "");
  const headers = (json: boolean): Record<string, string> => ({
    "x-homed": "1",
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(json ? { "content-type": "application/json" } : {}),
  });

  /** One request; a refusal or an unreachable server is a HomedError in words a person can act on. */
  const request = async (path: string, body: unknown, signal: AbortSignal): Promise<Response> => {
    let res: Response;
    try {
      res = await fetch(new URL(path, base), {
        method: body === undefined ? "GET" : "POST",
        headers: headers(body !== undefined),
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
        redirect: "error",
      });
    } catch (err) {
      throw new HomedError("not_running", `cannot reach homed at ${where}: ${(err as Error).message}`);
    }
    if (res.ok) return res;
    const text = await res.text().catch(() => "");
    const parsed = v.safeParse(ErrorBody, safeJson(text));
    const why = parsed.success ? parsed.output.error : `HTTP ${res.status}`;
    if (res.status === 401)
      throw new HomedError(
        "forbidden",
        `${where} wants its login token: ${token ? "the one given is wrong" : "give it with -token-file FILE or $HOMED_TOKEN"}`,
      );
    if (res.status === 429) throw new HomedError("forbidden", `${where}: ${why}`);
    throw new HomedError(res.status >= 500 ? "upstream" : "invalid_params", `${where}: ${why}`);
  };
  const getJson = async <S extends v.GenericSchema>(path: string, schema: S, body: unknown, signal: AbortSignal) => {
    const res = await request(path, body, signal);
    const r = v.safeParse(schema, safeJson(await res.text()));
    if (!r.success)
      throw new HomedError("upstream", `${where} sent a malformed ${path} answer: ${describeIssues(r.issues)}`);
    return r.output as v.InferOutput<S>;
  };

  return async (handlers: ChatHandlers): Promise<WaiterLink> => {
    /** The streams of the turns this link runs or follows, so Stop can name them. */
    const streams = new Set<string>();
    /**
     * Every request of this link ends with it: a request still waiting when the person quits (a
     * status poll to a server that stopped answering) would otherwise keep the waiter alive.
     */
    const closed = new AbortController();
    const call = (path: string, body?: unknown) => request(path, body, closed.signal);
    const json = <S extends v.GenericSchema>(path: string, schema: S, body?: unknown) =>
      getJson(path, schema, body, closed.signal);

    /** Read one turn's event stream to its end; its result, or an error if it ends without one. */
    const follow = async (res: Response): Promise<TurnResultView> => {
      if (!res.body) throw new HomedError("upstream", `${where} sent no event stream`);
      let stream: string | null = null;
      try {
        for await (const { data } of parseSse(res.body)) {
          const e = v.safeParse(SseEvent, safeJson(data));
          if (!e.success) continue;
          const ev = e.output;
          if (ev.type === "stream") {
            const h = v.safeParse(StreamHeader, ev);
            if (h.success) {
              stream = h.output.stream;
              streams.add(stream);
            }
            continue;
          }
          // Every event the waiter knows reaches the renderer, as on the control socket; a kind
          // it does not know (a newer server) is skipped.
          const known = knownEvent(ev);
          if (known) handlers.event(known);
          if (known?.type === "approval") {
            const { type: _, ...q } = known;
            const s = stream;
            if (s === null) continue;
            void handlers.approve(q).then((answer) => {
              // A yes for the rest of the conversation goes as one, not as a no.
              const body: ApproveBody = {
                stream: s,
                callId: q.callId,
                approved: answer !== false,
                ...(answer === "conversation" ? { scope: "conversation" } : {}),
              };
              return call("api/approve", body).catch(() => {});
            });
          } else if (ev.type === "done") {
            const d = v.safeParse(DoneEvent, ev);
            if (!d.success)
              throw new HomedError("upstream", `${where} sent a malformed turn result: ${describeIssues(d.issues)}`);
            return d.output.result;
          } else if (ev.type === "error") {
            throw new HomedError(
              "upstream",
              `${where}: ${typeof ev.message === "string" ? ev.message : "the turn failed"}`,
            );
          }
        }
      } catch (err) {
        if (err instanceof HomedError) throw err;
        throw new HomedError("not_running", `lost the connection to ${where}: ${(err as Error).message}`);
      } finally {
        if (stream) streams.delete(stream);
      }
      throw new HomedError("not_running", `lost the connection to ${where} before the turn ended`);
    };
    const watch = async (res: Promise<Response>): Promise<TurnResultView | null> => {
      const r = await res;
      return r.status === 204 ? null : await follow(r);
    };

    // Check the address and the token now, so a wrong one is the first thing said.
    await json("api/status", StatusResult);
    return {
      where,
      status: () => json("api/status", StatusResult),
      conversations: () => json("api/conversations", v.array(ConversationSummary)),
      messages: (conv) => json(`api/conversations/${encodeURIComponent(conv)}`, v.array(TranscriptItem)),
      send: async (text, conv) => (await watch(call("api/chat", { conv, text, client: "waiter" }))) as TurnResultView,
      attach: (conv) => watch(call(`api/chat/live?conv=${encodeURIComponent(conv)}`)),
      cancel: async () => {
        let n = 0;
        for (const stream of [...streams]) {
          const r = await json("api/cancel", v.object({ cancelled: v.boolean() }), { stream });
          if (r.cancelled) n++;
        }
        return n;
      },
      allowTool: async (tool) => void (await call("api/settings/allow-tool", { tool })),
      onClose: () => () => {},
      close: () => closed.abort(),
    };
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
