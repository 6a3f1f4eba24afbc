/**
 * `homed chat`: send one message to the running daemon and stream the answer. On a terminal the
 * reply is shown as it is written; into a pipe or file only the final reply goes, so stdout is
 * exactly the answer. Tool calls, notices and approval questions go to stderr, so stdout
 * can be piped. An approval question is answered with a line on stdin (y = yes); no terminal or
 * no answer means no.
 */
import * as v from "valibot";
import { existsSync } from "node:fs";
import {
  ChatApproveParams,
  ChatEventParams,
  ControlMethod,
  TurnResultSchema,
  type TurnResultView,
} from "../protocol/control.ts";
import { HomedError, RpcError } from "../protocol/errors.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import { parseParams } from "../protocol/parse-params.ts";
import { connectUnixRpc } from "../ipc/unix-rpc.ts";
import { throwDaemonGone } from "./control-client.ts";

const quietLog = { warn: () => {}, debug: () => {} };

export interface ChatIO {
  /** Stream the reply as it is written (a terminal); otherwise only the final text is printed. */
  stream: boolean;
  out(text: string): void;
  err(text: string): void;
  /** One line typed by the person, or null when there is nobody to ask. */
  readLine(): Promise<string | null>;
}

function short(text: string, max = 200): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
}

export async function chatOnce(
  socketPath: string,
  message: { text: string; conv: string },
  io: ChatIO,
): Promise<TurnResultView> {
  if (!existsSync(socketPath))
    throw new HomedError("not_running", `homed is not running (no control socket at ${socketPath})`);
  let streamed = "";
  let afterTools = false;
  const client = await connectUnixRpc(socketPath, quietLog, {
    timeoutMs: 24 * 60 * 60 * 1000,
    onNotification: (method, params) => {
      if (method !== ControlMethod.ChatEvent) return;
      const p = v.safeParse(ChatEventParams, params);
      if (!p.success) return;
      const e = p.output.event as Record<string, string>;
      switch (e.type) {
        case "text-delta":
          if (!io.stream) break;
          if (afterTools) {
            // A new model call after tool results: the reply so far was an intermediate step.
            streamed = "";
            afterTools = false;
          }
          streamed += e.text;
          io.out(e.text ?? "");
          break;
        case "text-replace":
          if (!io.stream) break;
          if (streamed) io.out("\n");
          io.err(`[the reply was changed by a plugin]\n`);
          streamed = e.text ?? "";
          if (streamed) io.out(streamed);
          break;
        case "tool-call":
          if (io.stream && streamed && !streamed.endsWith("\n")) io.out("\n");
          io.err(`→ ${e.name} ${short(e.arguments ?? "")}\n`);
          break;
        case "tool-result":
          io.err(`← ${e.name} [${e.status}] ${short(e.content ?? "")}\n`);
          afterTools = true;
          break;
        case "notice":
          io.err(`[${e.text}]\n`);
          break;
      }
    },
    onRequest: async (method, params) => {
      if (method !== ControlMethod.ChatApprove) throw new RpcError(-32601, `unknown method ${method}`);
      const q = parseParams(ChatApproveParams, params);
      io.err(`? allow ${q.tool} ${short(JSON.stringify(q.arguments), 400)} [y/N] `);
      const line = await io.readLine();
      const approved = line !== null && /^y(es)?$/i.test(line.trim());
      io.err(approved ? "approved\n" : line === null ? "no answer: denied\n" : "denied\n");
      return { approved };
    },
  }).catch((err: Error) => {
    throw new HomedError("not_running", `homed is not running (cannot connect to ${socketPath}: ${err.message})`);
  });
  try {
    const raw = await client.peer
      .request(ControlMethod.ChatSend, { text: message.text, conv: message.conv })
      .catch(throwDaemonGone);
    const r = v.safeParse(TurnResultSchema, raw);
    if (!r.success)
      throw new HomedError("upstream", `daemon sent a malformed chat result: ${describeIssues(r.issues)}`);
    // The final text may differ from what streamed (before_output); make stdout end with it.
    if (r.output.text !== streamed) {
      if (streamed) io.out("\n");
      io.out(r.output.text);
    }
    io.out("\n");
    return r.output;
  } finally {
    client.close();
  }
}
