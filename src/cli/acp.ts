/**
 * `homed acp [-data DIR]`: the Agent Client Protocol over stdio, for editors (Zed and others).
 * stdin carries the editor's JSON-RPC frames, one per line; stdout carries only homed's frames —
 * every log line goes to stderr. A line that is not a JSON-RPC message is answered with the
 * JSON-RPC error for it (parse error, invalid request) and the bridge keeps reading. It ends when
 * the editor closes stdin.
 */
import * as v from "valibot";
import { homedir } from "node:os";
import { join } from "node:path";
import { Frame, JSONRPC_VERSION } from "../protocol/jsonrpc.ts";
import { formatLogLine } from "../protocol/logfmt.ts";
import { LineDecoder } from "../ipc/line-decoder.ts";
import { RpcPeer } from "../ipc/rpc-peer.ts";
import { dataPaths } from "../kernel/data-paths.ts";
import { AcpBridge } from "./acp-bridge.ts";
import type { AcpLog } from "./acp-permission.ts";
import { AcpErrorCode } from "./acp-schema.ts";

/** Largest frame either way: a prompt may embed whole files. */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

export interface AcpStdio {
  input: ReadableStream<Uint8Array>;
  write(line: string): void;
  log: AcpLog;
}

/**
 * The data dir as an editor's settings name it: editors start agents without a shell, so a
 * leading `~/` (as in `-data ~/ha`) is expanded here.
 */
export function editorDataDir(dir: string): string {
  return dir === "~" || dir.startsWith("~/") ? join(homedir(), dir.slice(2)) : dir;
}

/** Serve ACP on `io` for the daemon on `dataDir` until the input ends; resolves with the exit status. */
export async function runAcp(given: string, io: AcpStdio = processStdio()): Promise<number> {
  const dataDir = editorDataDir(given);
  const bridge = new AcpBridge(dataDir, dataPaths(dataDir).socket, io.log);
  /** Requests still being answered: at the end of input they are answered before the bridge stops. */
  const inFlight = new Set<Promise<unknown>>();
  const peer = new RpcPeer({
    send: io.write,
    onRequest: (method, params) => {
      const answer = bridge.request(method, params);
      inFlight.add(answer);
      void answer.catch(() => {}).finally(() => inFlight.delete(answer));
      return answer;
    },
    onNotification: (method, params) => bridge.notification(method, params),
    log: { warn: (msg, fields) => io.log("warn", msg, fields), debug: () => {} },
    maxFrameBytes: MAX_FRAME_BYTES,
    name: "editor",
  });
  bridge.attach(peer);
  const reply = (id: unknown, code: number, message: string) =>
    io.write(`${JSON.stringify({ jsonrpc: JSONRPC_VERSION, id, error: { code, message } })}\n`);
  const enc = new TextEncoder();
  const screen = (text: string) => {
    if (text.trim() === "") return;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      io.log("warn", "line from the editor is not JSON", { head: text.slice(0, 120) });
      return reply(null, AcpErrorCode.ParseError, "parse error: the line is not JSON");
    }
    if (!v.is(Frame, raw)) {
      const o =
        typeof raw === "object" && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : null;
      // A malformed answer to one of our requests gets no answer back: two peers could loop on it.
      if (o && !("method" in o) && ("result" in o || "error" in o)) {
        io.log("warn", "malformed response from the editor dropped", { head: text.slice(0, 120) });
        return;
      }
      const id = o && (typeof o.id === "string" || Number.isSafeInteger(o.id)) ? o.id : null;
      io.log("warn", "line from the editor is not a JSON-RPC message", { head: text.slice(0, 120) });
      const what = Array.isArray(raw) ? "batches are not used by ACP" : "not a JSON-RPC 2.0 request or notification";
      return reply(id, AcpErrorCode.InvalidRequest, `invalid request: ${what}`);
    }
    peer.feed(enc.encode(`${text}\n`));
  };
  const lines = new LineDecoder(
    {
      line: screen,
      oversized: (bytes) =>
        reply(null, AcpErrorCode.InvalidRequest, `frame of ${bytes} bytes exceeds ${MAX_FRAME_BYTES}`),
    },
    MAX_FRAME_BYTES,
  );
  const reader = io.input.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    lines.push(value);
  }
  lines.end();
  io.log("info", "the editor closed stdin: bye");
  // Nobody is left to watch a turn: running ones stop; what was asked is still answered.
  bridge.cancelAll();
  await Promise.allSettled([...inFlight]);
  peer.close("the editor closed stdin");
  bridge.close();
  return 0;
}

function processStdio(): AcpStdio {
  return {
    input: Bun.stdin.stream() as ReadableStream<Uint8Array>,
    write: (line) => void process.stdout.write(line),
    log: (level, msg, fields = {}) => void process.stderr.write(`${formatLogLine(level, msg, fields)}\n`),
  };
}
