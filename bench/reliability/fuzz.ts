/**
 * fuzz.rpc_frames, fuzz.http_requests, fuzz.crashes: malformed input at both doors of a running
 * daemon, from a seeded generator (FUZZ_SEED), only to 127.0.0.1 and the data dir's socket.
 *
 * - Control socket: truncated JSON, huge and odd ids, wrong types in every field, binary garbage,
 *   oversized lines, unknown methods, known methods with bad params, batches, notifications,
 *   frames split across writes and connections dropped mid-frame.
 * - Web port: random and unknown methods, odd paths (long, encoded, traversal, NUL), hostile
 *   headers (foreign Host/Origin, bogus auth, absurd content types), bodies that are not JSON,
 *   JSON of the wrong shape, deep nesting, oversized bodies — through fetch — plus broken HTTP on
 *   raw sockets (bad request lines, bad chunking, truncated requests, NUL bytes).
 *
 * A crash is the daemon or the web plugin dying or restarting: the daemon's pid must be the
 * same process and alive, the web plugin's pid unchanged with no restart counted, and the
 * control socket must still answer `status` afterwards. Nothing generated restarts a plugin or
 * changes the model on purpose: restart targets and provider settings are never valid ones.
 */
import { connect } from "node:net";
import { BenchDaemon } from "../bench-daemon.ts";
import { startFakeModel } from "../fake-model.ts";
import { report } from "../report.ts";
import { mulberry32 } from "../../test/harness/prng.ts";

const rng = mulberry32;

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const int = (r: Rand, n: number) => Math.floor(r() * n);

function garbage(r: Rand, n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = int(r, 256);
  return b;
}

const METHODS = [
  "status",
  "event.append",
  "plugin.restart",
  "llm.get",
  "llm.set",
  "llm.test",
  "chat.send",
  "memory.peek",
  "chat.event",
  "chat.attach",
  "chat.answer",
];

function oddValue(r: Rand, depth = 0): unknown {
  switch (int(r, 14)) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return pick(r, [0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.5, -0]);
    case 3:
      return "";
    case 4:
      return "x".repeat(int(r, 5000));
    case 5:
      return `\u0000\ud800\uffff${String.fromCharCode(int(r, 65536))}`;
    case 6:
      return depth < 4 ? Array.from({ length: int(r, 5) }, () => oddValue(r, depth + 1)) : [];
    case 7:
      return depth < 4
        ? Object.fromEntries(
            Array.from({ length: int(r, 5) }, () => [
              pick(r, ["conv", "text", "kind", "body", "name", "__proto__", "constructor", "provider", "k", ""]),
              oddValue(r, depth + 1),
            ]),
          )
        : {};
    case 8:
      return "../../../etc/passwd";
    case 9:
      return pick(r, ["cli", "fuzz", "api", "kill9-0"]); // never a plugin name: no valid restart
    case 10:
      return { toString: "x", valueOf: 1 };
    case 11:
      return -(2 ** 31);
    case 12:
      return "🙂".repeat(int(r, 50));
    default:
      return int(r, 100);
  }
}

/** Params for a known method that its schema must refuse (never a valid restart or provider). */
function badParams(r: Rand, method: string): unknown {
  const v = oddValue(r);
  switch (method) {
    case "plugin.restart":
      return pick(r, [{ name: `no-such-${int(r, 1e6)}` }, { name: v }, v, { name: "web", extra: 1 }]);
    case "llm.set":
      return pick(r, [{ provider: "nope", model: v }, { provider: v }, v, { provider: "openai", baseURL: "ftp://x" }]);
    case "chat.send":
      return pick(r, [
        { text: "" },
        { text: v },
        { text: "hi", conv: "" },
        { text: "hi", conv: "x".repeat(300) },
        { text: "hi", untrusted: "yes" },
        v,
      ]);
    case "event.append":
      return pick(r, [{ conv: v, kind: v, actor: v, body: v }, { conv: "fuzz", kind: "", actor: "user", body: {} }, v]);
    case "memory.peek":
      return pick(r, [{ conv: "fuzz", text: "" }, { conv: "fuzz", text: "a", k: 1e9 }, { conv: v, text: v }, v]);
    default:
      return v;
  }
}

/** One line for the control socket (without its newline), or raw bytes. */
function rpcFrame(r: Rand, seq: number): string | Uint8Array {
  const id = pick<unknown>(r, [seq, -seq, 1e308, 2 ** 64, `id-${seq}`, null, {}, [], true, 0.1, "9".repeat(400)]);
  const method =
    r() < 0.6
      ? pick(r, METHODS)
      : pick(r, ["", "rpc.discover", "__proto__", "status ", "STATUS", "x".repeat(2000), `m${seq}`]);
  const kind = int(r, 12);
  switch (kind) {
    case 0: {
      // truncated JSON
      const s = JSON.stringify({ jsonrpc: "2.0", id: seq, method, params: oddValue(r) });
      return s.slice(0, int(r, s.length));
    }
    case 1:
      return garbage(r, 1 + int(r, 300));
    case 2:
      return JSON.stringify({ jsonrpc: pick(r, ["1.0", 2, null, ""]), id, method });
    case 3:
      return JSON.stringify({ jsonrpc: "2.0", id, method: oddValue(r), params: oddValue(r) });
    case 4:
      return JSON.stringify({ jsonrpc: "2.0", id, method, params: pick<unknown>(r, ["str", 1, true, null]) });
    case 5:
      return JSON.stringify(Array.from({ length: int(r, 4) }, () => ({ jsonrpc: "2.0", id: seq, method }))); // batches
    case 6:
      return JSON.stringify({ jsonrpc: "2.0", method, params: badParams(r, method) }); // notification
    case 7:
      return pick(r, [
        "",
        " ",
        "{}",
        "[]",
        "null",
        "0",
        '"x"',
        "{",
        "}",
        "\u0000",
        '{"jsonrpc":"2.0","id":1,"result":{}}',
        '{"jsonrpc":"2.0","id":999999,"error":{"code":1,"message":"x"}}',
      ]);
    case 8:
      return JSON.stringify({ jsonrpc: "2.0", id, method: `unknown.${seq}` });
    case 9: {
      // deep nesting
      const d = 1 + int(r, 5000);
      return `{"jsonrpc":"2.0","id":${seq},"method":"status","params":${"[".repeat(d)}${"]".repeat(d)}}`;
    }
    default:
      return JSON.stringify({ jsonrpc: "2.0", id, method: pick(r, METHODS.slice(0, 8)), params: badParams(r, method) });
  }
}

/** Frames through `conns` connections at once; returns how many frames (lines) were sent. */
async function fuzzRpc(d: BenchDaemon, r: Rand, total: number): Promise<number> {
  const conns = 16;
  const per = Math.ceil(total / conns);
  let sent = 0;
  const one = async (c: number) => {
    const sock = connect(d.socket);
    await new Promise<void>((res, rej) => sock.once("connect", () => res()).once("error", rej));
    sock.on("data", () => {}); // read and drop whatever comes back
    sock.on("error", () => {});
    for (let i = 0; i < per; i++) {
      const f = rpcFrame(r, c * per + i);
      const bytes = typeof f === "string" ? Buffer.from(`${f}\n`) : Buffer.concat([Buffer.from(f), Buffer.from("\n")]);
      if (r() < 0.1 && bytes.length > 2) {
        // Split one frame across two writes.
        const cut = 1 + int(r, bytes.length - 1);
        sock.write(bytes.subarray(0, cut));
        await Bun.sleep(0);
        sock.write(bytes.subarray(cut));
      } else if (!sock.write(bytes)) await new Promise((res) => sock.once("drain", res));
      sent++;
      if (i % 200 === 199) await Bun.sleep(1);
    }
    // Oversized lines (over the 4 MiB frame limit), and a frame left half-written at close.
    if (c < 3) {
      sock.write(Buffer.alloc(5 * 1024 * 1024, 0x61));
      sock.write("\n");
      sent++;
    }
    // The daemon answers a connection's lines in order: the reply to this last status proves it
    // read and handled every frame before it.
    const endId = `fuzz-end-${c}`;
    const answered = new Promise<void>((res) => {
      // The id opens the reply, and a status reply runs to many KiB (every tool is listed): look
      // in each chunk plus just enough of the one before for the marker to straddle them.
      const marker = `"id":"${endId}"`;
      let carry = "";
      sock.on("data", (d: Buffer) => {
        const seen = carry + d.toString("latin1");
        if (seen.includes(marker)) res();
        carry = seen.slice(-(marker.length - 1));
      });
    });
    sock.write(`${JSON.stringify({ jsonrpc: "2.0", id: endId, method: "status" })}\n`);
    // A campaign that hangs says so instead of waiting forever.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      answered,
      new Promise<never>((_, rej) => {
        timer = setTimeout(() => rej(new Error(`connection ${c}: no reply to its closing status in 60 s`)), 60_000);
      }),
    ]).finally(() => clearTimeout(timer));
    sock.write('{"jsonrpc":"2.0","id":1,"method":"sta');
    sent += 2;
    sock.destroy();
  };
  await Promise.all(Array.from({ length: conns }, (_, c) => one(c)));
  return sent;
}

/** What fetch sends as given; methods it would rewrite (unknown ones) go out on raw sockets. */
const HTTP_METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "PROPFIND"];
const ODD_METHODS = ["FOO", "get", "BREW", "CONNECT", "TRACE", "M-SEARCH", "P\u00f6ST", "G ET", "x".repeat(3000)];

/** Every byte percent-encoded (encodeURIComponent refuses lone surrogates). */
const pct = (s: string) => [...Buffer.from(s, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
const PATHS = [
  "/",
  "/healthz",
  "/v1/models",
  "/v1/chat/completions",
  "/v1/completions",
  "/api/session",
  "/api/login",
  "/api/status",
  "/api/conversations",
  "/api/conversations/x",
  "/api/context/x",
  "/api/chat",
  "/api/approve",
  "/api/cancel",
  "/api/provider",
  "/api/provider/test",
  "/api/plugins",
  "/assets/app.js",
  "/favicon.ico",
];

function httpPath(r: Rand): string {
  switch (int(r, 8)) {
    case 0:
      return `/${"a/".repeat(int(r, 2000))}`;
    case 1:
      return pick(r, [
        "/%00",
        "/%",
        "/%zz",
        "/..%2f..%2fetc%2fpasswd",
        "/api/conversations/%2e%2e",
        "/api//status",
        "/v1/chat/completions/",
        `/api/conversations/${"x".repeat(5000)}`,
      ]);
    case 2:
      return `/api/plugins/no-such-${int(r, 1e6)}/restart`;
    case 3:
      return `${pick(r, PATHS)}?q=${pct(JSON.stringify(oddValue(r)) ?? "")}`;
    default:
      return pick(r, PATHS);
  }
}

function httpBody(r: Rand): string | Uint8Array | undefined {
  switch (int(r, 9)) {
    case 0:
      return undefined;
    case 1:
      return "{";
    case 2:
      return JSON.stringify(oddValue(r));
    case 3:
      return JSON.stringify({ messages: oddValue(r), stream: oddValue(r), user: oddValue(r) });
    case 4:
      return JSON.stringify({
        messages: [{ role: "user", content: oddValue(r) }],
        stream: r() < 0.5,
        user: pick(r, ["fuzz", "bad user!", ""]),
      });
    case 5:
      return garbage(r, int(r, 2000));
    case 6:
      return `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
    case 7:
      return JSON.stringify({
        text: oddValue(r),
        conv: oddValue(r),
        stream: oddValue(r),
        callId: oddValue(r),
        approved: oddValue(r),
        token: oddValue(r),
        provider: "nope",
      });
    default:
      return "x".repeat(int(r, 100_000));
  }
}

function httpHeaders(r: Rand, host: string): Record<string, string> {
  const h: Record<string, string> = {};
  const ct = pick(r, [
    "application/json",
    "application/json; charset=utf-8",
    "text/plain",
    "multipart/form-data; boundary=",
    "application/x-www-form-urlencoded",
    "",
    `application/json${"x".repeat(1000)}`,
  ]);
  if (ct) h["content-type"] = ct;
  if (r() < 0.2) h.host = pick(r, ["evil.example", "localhost", "127.0.0.1", "[::1]", "", "a".repeat(300)]);
  else h.host = host;
  if (r() < 0.2) h.origin = pick(r, ["http://evil.example", "null", "not a url", `http://${host}`]);
  if (r() < 0.2) h.authorization = pick(r, ["Bearer ", "Bearer x", "Basic Zm9vOmJhcg==", `bearer ${"x".repeat(5000)}`]);
  if (r() < 0.6) h["x-homed"] = pick(r, ["1", "1", "1", "0", ""]);
  if (r() < 0.1) h.cookie = pick(r, ["homed_session=x", `homed_session=${"y".repeat(3000)}`, "=;=;="]);
  if (r() < 0.05) h["x-big"] = "z".repeat(int(r, 60_000));
  return h;
}

/** Broken HTTP that fetch will not send: written to a raw socket, whatever comes back is read. */
function rawRequest(r: Rand, host: string): Uint8Array | string {
  switch (int(r, 11)) {
    case 10:
      return `${pick(r, ODD_METHODS)} ${pick(r, PATHS)} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 2\r\n\r\n{}`;
    case 0:
      return `GET / HTTP/1.1\r\nHost: ${host}\r\n`; // never ends its headers
    case 1:
      return "GARBAGE\r\n\r\n";
    case 2:
      return `POST /v1/chat/completions HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`;
    case 3:
      return `POST /api/chat HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 100000\r\nContent-Type: application/json\r\nX-Homed: 1\r\n\r\n{"text":`; // truncated body
    case 4:
      return `GET /\u0000 HTTP/1.1\r\nHost: ${host}\r\n\r\n`;
    case 5:
      return `GET / HTTP/9.9\r\nHost: ${host}\r\n\r\n`;
    case 6:
      return `GET / HTTP/1.1\r\nHost ${host}\r\nBroken header line\r\n\r\n`;
    case 7:
      return `POST /v1/chat/completions HTTP/1.1\r\nHost: ${host}\r\nContent-Length: -5\r\nContent-Length: 7\r\n\r\n{}`;
    case 8:
      return garbage(r, 1 + int(r, 4000));
    default:
      return `GET / HTTP/1.1\r\nHost: ${host}\r\n${"X-A: b\r\n".repeat(int(r, 2000))}\r\n`;
  }
}

function raw(port: number, payload: Uint8Array | string): Promise<void> {
  return new Promise((resolve) => {
    const sock = connect(port, "127.0.0.1");
    const done = () => {
      clearTimeout(timer);
      sock.destroy();
      resolve();
    };
    // A request that never completes is dropped by us after a moment, as a slow client would.
    const timer = setTimeout(done, 200);
    sock.on("error", done);
    sock.on("close", done);
    sock.on("data", () => {});
    sock.on("connect", () => sock.write(payload));
  });
}

async function fuzzHttp(
  d: BenchDaemon,
  r: Rand,
  total: number,
): Promise<{ sent: number; statuses: Map<string, number> }> {
  const base = d.webUrl();
  const url = new URL(base);
  const host = url.host;
  const port = Number(url.port);
  const statuses = new Map<string, number>();
  let sent = 0;
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      let label: string;
      if (r() < 0.15) {
        await raw(port, rawRequest(r, host));
        label = "raw";
      } else {
        const method = pick(r, HTTP_METHODS);
        const body = method === "GET" || method === "HEAD" ? undefined : httpBody(r);
        const ac = new AbortController();
        const timer = setTimeout(() => ac.abort(), 5000);
        try {
          const res = await fetch(`http://127.0.0.1:${port}${httpPath(r)}`, {
            method,
            headers: httpHeaders(r, host),
            body,
            signal: ac.signal,
          });
          // Half the responses are read to the end; the rest are dropped mid-stream.
          if (r() < 0.5) await res.arrayBuffer();
          else await res.body?.cancel();
          label = String(res.status);
        } catch (err) {
          label =
            (err as Error).name === "AbortError"
              ? "timeout"
              : `error:${(err as { code?: string }).code ?? (err as Error).name}`;
        } finally {
          clearTimeout(timer);
        }
      }
      statuses.set(label, (statuses.get(label) ?? 0) + 1);
      sent++;
      if (i % 1000 === 999) console.error(`fuzz: ${i + 1} HTTP requests`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, () => worker()));
  return { sent, statuses };
}

/** The daemon's and the web plugin's identity: what a crash or restart would change. */
async function identity(
  d: BenchDaemon,
): Promise<{ kernel: number; webPid: number | null; webRestarts: number; webState: string }> {
  const st = await d.status();
  const web = st.plugins.find((p) => p.name === "web");
  return {
    kernel: st.pid,
    webPid: web?.pid ?? null,
    webRestarts: web?.restarts ?? -1,
    webState: web?.state ?? "absent",
  };
}

export async function benchFuzz(
  opts: { rpcFrames?: number; httpRequests?: number; seed?: number } = {},
): Promise<void> {
  const seed = opts.seed ?? 1;
  const r = rng(seed);
  const model = startFakeModel({ chunks: 4 });
  // The fuzz reaches the handlers, as a logged-in client's requests do: no login on loopback.
  const daemon = await BenchDaemon.start({ model, env: { HOMED_WEB_AUTH: "none" } });
  let crashes = 0;
  const compare = async (phase: string, before: Awaited<ReturnType<typeof identity>>) => {
    if (!daemon.alive) {
      crashes++;
      console.error(`fuzz: ${phase}: the daemon died: ${daemon.stderr().slice(-2000)}`);
      return before;
    }
    const now = await identity(daemon);
    if (now.kernel !== before.kernel || now.kernel !== daemon.pid) crashes++;
    if (now.webPid !== before.webPid || now.webRestarts !== before.webRestarts || now.webState !== "ready") {
      crashes++;
      console.error(`fuzz: ${phase}: the web plugin restarted or died: ${JSON.stringify(now)}`);
    }
    return now;
  };
  try {
    const t0 = performance.now();
    const start = await identity(daemon);
    const frames = await fuzzRpc(daemon, r, opts.rpcFrames ?? 10_000);
    const afterRpc = await compare("control socket", start);
    console.error(`fuzz: ${frames} control frames in ${((performance.now() - t0) / 1000).toFixed(1)} s (seed ${seed})`);
    const t1 = performance.now();
    const http = await fuzzHttp(daemon, r, opts.httpRequests ?? 10_000);
    await compare("web port", afterRpc);
    console.error(
      `fuzz: ${http.sent} HTTP requests in ${((performance.now() - t1) / 1000).toFixed(1)} s; answers: ${[
        ...http.statuses,
      ]
        .sort()
        .map(([k, n]) => `${k}=${n}`)
        .join(" ")}`,
    );
    // Still answering: the control socket from a fresh connection, and a real turn over HTTP.
    const fresh = await daemon.connect();
    await fresh.peer.request("status");
    const res = await fetch(`${daemon.webUrl()}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...daemon.bearer() },
      body: JSON.stringify({ messages: [{ role: "user", content: "still there?" }] }),
    });
    if (!res.ok) {
      crashes++;
      console.error(`fuzz: a turn after the fuzz failed with HTTP ${res.status}`);
    }
    report("fuzz.rpc_frames", frames, "frames", 0);
    report("fuzz.http_requests", http.sent, "requests", 0);
    report("fuzz.crashes", crashes, "crashes", 0);
  } finally {
    await daemon.stop();
    model.stop();
  }
}

if (import.meta.main) await benchFuzz({ seed: Number(process.env.FUZZ_SEED ?? 1) });
