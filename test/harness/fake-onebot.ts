/**
 * A fake OneBot v11 implementation that speaks what NapCat and Lagrange.OneBot speak, for the QQ
 * channel's tests: one port serving the forward WebSocket (events pushed, API calls answered by
 * echo) and the HTTP API (POST /<action>); optionally a reverse WebSocket client to a given URL
 * and HTTP-POST event reports (X-Self-ID, X-Signature) to another. Events have NapCat's shapes:
 * meta_event lifecycle connect and heartbeat, message events with sender, self_id, message_id,
 * message as segments (or a CQ string), raw_message. Answers: {status, retcode, data, message,
 * wording, echo}. A wrong token on the WebSocket gets NapCat's retcode 1403 frame and a close.
 * It is itself checked against node-napcat-ts and Koishi's OneBot adapter (test/plugins/qq-fake.test.ts).
 */
import { createHmac } from "node:crypto";
import type { Server, ServerWebSocket } from "bun";

export type Segment = { type: string; data: Record<string, unknown> };

export interface FakeOneBotOptions {
  selfId?: number;
  /** Required of clients (Authorization: Bearer / ?access_token=) and sent by the reverse client. */
  accessToken?: string;
  port?: number;
  /** Connect as a reverse WebSocket client to this URL (reconnecting every 100 ms when lost). */
  reverseUrl?: string;
  /** The token the reverse client sends (default accessToken). */
  reverseToken?: string;
  /** POST every event to this URL, signed with `secret` when set. */
  postUrl?: string;
  secret?: string;
  heartbeatMs?: number;
}

export interface ApiCall {
  action: string;
  params: Record<string, unknown>;
  via: "ws" | "reverse" | "http";
}

const now = () => Math.floor(Date.now() / 1000);

export class FakeOneBot {
  readonly selfId: number;
  readonly calls: ApiCall[] = [];
  /** HTTP-POST reports and how the receiver answered each. */
  readonly reports: { status: number }[] = [];
  private server!: Server<{ authed: boolean }>;
  private readonly clients = new Set<ServerWebSocket<{ authed: boolean }>>();
  private reverse: WebSocket | null = null;
  private reverseOpen = false;
  private stopped = false;
  private nextMessageId = 1000;
  private readonly media = new Map<string, Uint8Array>();
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private waiters: { pred: (c: ApiCall) => boolean; resolve: (c: ApiCall) => void }[] = [];

  constructor(private readonly o: FakeOneBotOptions = {}) {
    this.selfId = o.selfId ?? 10001;
  }

  get port(): number {
    return this.server.port as number;
  }
  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}/`;
  }
  get httpUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  /** WebSocket peers connected now (forward clients and the reverse link). */
  connections(): number {
    return [...this.clients].filter((c) => c.data.authed).length + (this.reverseOpen ? 1 : 0);
  }

  start(): this {
    const token = this.o.accessToken ?? "";
    this.server = Bun.serve<{ authed: boolean }>({
      hostname: "127.0.0.1",
      port: this.o.port ?? 0,
      fetch: async (req, server) => {
        const url = new URL(req.url);
        if (url.pathname.startsWith("/media/")) {
          const bytes = this.media.get(url.pathname.slice(7));
          return bytes ? new Response(bytes) : new Response("not found", { status: 404 });
        }
        const header = req.headers.get("authorization") ?? "";
        const given = /^Bearer\s+(.+)$/i.exec(header)?.[1] ?? url.searchParams.get("access_token") ?? "";
        const authed = !token || given === token;
        if (req.headers.get("upgrade")?.toLowerCase() === "websocket") {
          if (server.upgrade(req, { data: { authed } })) return undefined;
          return new Response("upgrade failed", { status: 400 });
        }
        if (!authed)
          return Response.json(
            {
              status: "failed",
              retcode: 403,
              data: null,
              message: "token verify failed!",
              wording: "token verify failed!",
            },
            { status: 403 },
          );
        const action = url.pathname.replace(/^\/+/, "");
        let params: Record<string, unknown> = Object.fromEntries(url.searchParams);
        if (req.method === "POST") params = ((await req.json().catch(() => ({}))) as Record<string, unknown>) ?? {};
        return Response.json(this.answer({ action, params, via: "http" }));
      },
      websocket: {
        open: (ws) => {
          this.clients.add(ws);
          if (!ws.data.authed) {
            ws.send(
              JSON.stringify({
                status: "failed",
                retcode: 1403,
                data: null,
                message: "token验证失败",
                wording: "token验证失败",
                echo: null,
              }),
            );
            ws.close(1008, "token验证失败");
            return;
          }
          ws.send(JSON.stringify(this.lifecycle()));
        },
        message: (ws, msg) => this.onFrame(String(msg), "ws", (s) => ws.send(s)),
        close: (ws) => {
          this.clients.delete(ws);
        },
      },
    });
    if (this.o.reverseUrl) this.connectReverse();
    const hb = this.o.heartbeatMs ?? 0;
    if (hb > 0)
      this.heartbeat = setInterval(
        () =>
          this.emit({
            time: now(),
            self_id: this.selfId,
            post_type: "meta_event",
            meta_event_type: "heartbeat",
            status: { online: true, good: true },
            interval: hb,
          }),
        hb,
      );
    return this;
  }

  private lifecycle() {
    return {
      time: now(),
      self_id: this.selfId,
      post_type: "meta_event",
      meta_event_type: "lifecycle",
      sub_type: "connect",
    };
  }

  private connectReverse(): void {
    if (this.stopped || !this.o.reverseUrl) return;
    const token = this.o.reverseToken ?? this.o.accessToken ?? "";
    const ws = new WebSocket(this.o.reverseUrl, {
      headers: {
        "X-Self-ID": String(this.selfId),
        "X-Client-Role": "Universal",
        "User-Agent": "OneBot/11",
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
    });
    this.reverse = ws;
    ws.onopen = () => {
      this.reverseOpen = true;
      ws.send(JSON.stringify(this.lifecycle()));
    };
    ws.onmessage = (e) => this.onFrame(String(e.data), "reverse", (s) => ws.send(s));
    ws.onclose = () => {
      this.reverseOpen = false;
      if (this.reverse === ws) this.reverse = null;
      if (!this.stopped) setTimeout(() => this.connectReverse(), 100);
    };
  }

  private onFrame(text: string, via: ApiCall["via"], send: (s: string) => void): void {
    let frame: { action?: unknown; params?: unknown; echo?: unknown };
    try {
      frame = JSON.parse(text);
    } catch {
      send(
        JSON.stringify({
          status: "failed",
          retcode: 1400,
          data: null,
          message: "json parse failed",
          wording: "",
          echo: null,
        }),
      );
      return;
    }
    const res = this.answer({
      action: String(frame.action ?? ""),
      params: (frame.params as Record<string, unknown>) ?? {},
      via,
    });
    send(JSON.stringify({ ...res, echo: frame.echo }));
  }

  /** An API call's answer, as NapCat shapes it; every call is recorded. */
  private answer(call: ApiCall): Record<string, unknown> {
    this.calls.push(call);
    for (const w of [...this.waiters])
      if (w.pred(call)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(call);
      }
    const ok = (data: unknown) => ({ status: "ok", retcode: 0, data, message: "", wording: "" });
    switch (call.action) {
      case "get_login_info":
        return ok({ user_id: this.selfId, nickname: "homed-bot" });
      case "get_version_info":
        return ok({ app_name: "NapCat.Onebot", protocol_version: "v11", app_version: "4.8.0" });
      case "get_status":
        return ok({ online: true, good: true, stat: {} });
      case "get_friend_list":
        return ok([{ user_id: 20002, nickname: "Alice", remark: "" }]);
      case "get_group_list":
        return ok([{ group_id: 30003, group_name: "test group", member_count: 3, max_member_count: 200 }]);
      case "get_group_info":
        return ok({
          group_id: Number(call.params.group_id),
          group_name: "test group",
          member_count: 3,
          max_member_count: 200,
        });
      case "send_group_msg":
      case "send_private_msg":
      case "send_msg":
        if (call.params.message === undefined || call.params.message === "")
          return { status: "failed", retcode: 1400, data: null, message: "消息为空", wording: "消息为空" };
        return ok({ message_id: this.nextMessageId++ });
      case "delete_msg":
        return ok(null);
      default:
        return {
          status: "failed",
          retcode: 1404,
          data: null,
          message: `不支持的Api ${call.action}`,
          wording: `不支持的Api ${call.action}`,
        };
    }
  }

  /** Resolves with the first call (already made or coming) that `pred` accepts. */
  waitForCall(pred: (c: ApiCall) => boolean, timeoutMs = 15_000): Promise<ApiCall> {
    const seen = this.calls.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(
          new Error(`no matching OneBot call in ${timeoutMs} ms; calls: ${JSON.stringify(this.calls).slice(0, 800)}`),
        );
      }, timeoutMs);
      const done = (c: ApiCall) => {
        clearTimeout(t);
        resolve(c);
      };
      this.waiters.push({ pred, resolve: done });
    });
  }

  /** The send_* calls so far. */
  sends(): ApiCall[] {
    return this.calls.filter((c) => c.action.startsWith("send_"));
  }

  /** Serve `bytes` at a URL of this fake (an image segment's url, as QQ's CDN would). */
  serveMedia(name: string, bytes: Uint8Array): string {
    this.media.set(name, bytes);
    return `${this.httpUrl}/media/${name}`;
  }

  /** Deliver an event on every transport (WebSocket peers, the reverse link, HTTP-POST). */
  emit(event: Record<string, unknown>): Promise<void> {
    return this.emitRaw(JSON.stringify(event));
  }

  /** Deliver any text as a frame/report (malformed frames included). */
  async emitRaw(text: string): Promise<void> {
    for (const c of this.clients) if (c.data.authed) c.send(text);
    if (this.reverseOpen) this.reverse?.send(text);
    if (this.o.postUrl) {
      const headers: Record<string, string> = { "Content-Type": "application/json", "X-Self-ID": String(this.selfId) };
      if (this.o.secret)
        headers["X-Signature"] = `sha1=${createHmac("sha1", this.o.secret).update(text).digest("hex")}`;
      const res = await fetch(this.o.postUrl, { method: "POST", headers, body: text });
      this.reports.push({ status: res.status });
    }
  }

  private message(
    kind: "group" | "private",
    userId: number,
    message: Segment[] | string,
    extra: Record<string, unknown>,
    nickname: string,
  ): Record<string, unknown> {
    const id = this.nextMessageId++;
    const raw = typeof message === "string" ? message : toCq(message);
    return {
      self_id: this.selfId,
      user_id: userId,
      time: now(),
      message_id: id,
      message_seq: id,
      real_id: id,
      real_seq: String(id),
      message_type: kind,
      sender: { user_id: userId, nickname, card: "", ...(kind === "group" ? { role: "member" } : {}) },
      raw_message: raw,
      font: 14,
      sub_type: kind === "group" ? "normal" : "friend",
      message,
      message_format: typeof message === "string" ? "string" : "array",
      post_type: "message",
      ...extra,
    };
  }

  /** A group message from `userId` in `groupId`; returns the event (its message_id included). */
  async groupMessage(groupId: number, userId: number, message: Segment[] | string, nickname = "Alice") {
    const e = this.message("group", userId, message, { group_id: groupId }, nickname);
    await this.emit(e);
    return e;
  }

  async privateMessage(userId: number, message: Segment[] | string, nickname = "Owner") {
    const e = this.message("private", userId, message, { target_id: userId }, nickname);
    await this.emit(e);
    return e;
  }

  /** Segments helpers, in NapCat's shapes (ids as strings). */
  static text(text: string): Segment {
    return { type: "text", data: { text } };
  }
  static at(qq: number | "all"): Segment {
    return { type: "at", data: { qq: String(qq) } };
  }

  [Symbol.dispose](): void {
    this.stop();
  }

  stop(): void {
    this.stopped = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.reverse?.close();
    this.server?.stop(true);
  }
}

function toCq(segments: Segment[]): string {
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/\[/g, "&#91;").replace(/\]/g, "&#93;");
  return segments
    .map((s) =>
      s.type === "text"
        ? esc(String(s.data.text))
        : `[CQ:${s.type}${Object.entries(s.data)
            .map(([k, v]) => `,${k}=${esc(String(v)).replace(/,/g, "&#44;")}`)
            .join("")}]`,
    )
    .join("");
}

export async function startFakeOneBot(o: FakeOneBotOptions = {}): Promise<FakeOneBot> {
  return new FakeOneBot(o).start();
}
